"""An ensemble of scikit-learn-style MLP regressors trained together, as one batched numpy network.

:class:`MLPEnsemble` trains ``len(seeds)`` networks on the same data, each exactly as
scikit-learn's ``MLPRegressor(solver="adam", activation="relu", shuffle=True,
early_stopping=False)`` trains one: the algorithm is scikit-learn's (1.6), step for step, and
only the arithmetic is batched. Per member, as scikit-learn does:

- ``np.random.RandomState(seed)`` makes the Glorot-uniform initial weights (each layer's weights
  then its biases, drawn in float64 from +-sqrt(6 / (fan_in + fan_out))) and then, each epoch,
  the shuffle of the sample order (``shuffle`` of ``arange(n)``, composed with the last order);
- minibatches of ``min(batch_size, n)`` consecutive shuffled samples, the last one smaller;
- the loss of a batch is half the mean squared error plus ``0.5 * alpha * sum(W**2) / batch``,
  its gradient ``(a.T @ delta + alpha * W) / batch`` for the weights and the mean delta for the
  biases (relu hidden layers, identity output);
- Adam (``beta_1`` 0.9, ``beta_2`` 0.999, ``epsilon`` 1e-8, bias-corrected learning rate);
- an epoch's loss is the sample-weighted mean of its batch losses; training stops after
  ``max_iter`` epochs, or when the loss has not improved on the best by ``tol`` for more than
  ``n_iter_no_change`` epochs in a row. A stopped member is taken out of the stack; the others
  go on.

:meth:`MLPEnsemble.partial_fit` then goes on training the fitted members on new data (more samples,
even inputs no sample used before), as scikit-learn's ``partial_fit`` after ``fit`` does with a
``RandomState`` as ``random_state``: each member keeps its weights, Adam's moments and step count
and its random state; an epoch shuffles ``arange(n)`` afresh; there is no stopping rule. Members
stop ``fit`` at different epochs, so their Adam steps (and bias corrections) are counted apart.

How the arithmetic is laid out (each choice measured on BANANAS' network, 10 hidden layers of 20
units and batches of 200 NB101 path encodings: 1.3x less time per step than the row-by-row layout
with separate biases it replaced, ``bench/bench_mlp_ensemble.py``):

- **Members stacked.** The members' parameters are stacked along a leading member axis, so one
  ``matmul`` computes a layer of every member, and all parameters of all members live in one
  flat array, so one pass of Adam updates them all.
- **Unused inputs left out.** Inputs that are zero in every training sample (most of a path
  encoding's) get no gradient from the data: their first-layer weights move by the L2 term
  alone. The used inputs are put first, and only they go through the first layer's products.
  The first layer is computed row by row (the gathered batch times its (fan_in, fan_out)
  weights), as scikit-learn does.
- **Later layers transposed, biases folded in.** From the first hidden layer on, activations are
  (members, units + 1, batch): a layer is one product ``[W.T | b] @ [a; 1]`` whose long dimension
  (the batch) is BLAS's fast one, and one product gives its weights' and biases' gradients (a
  broadcast bias add over rows of 20 cost as much as the product). The row of ones passes through
  relu unchanged, so relu runs over whole contiguous arrays; its masks are float 0/1, three
  times cheaper to multiply by than booleans.
- **Fewer passes.** The gradients' ``1 / batch`` is applied once, to the output delta, and Adam
  runs on ``m / (1 - beta_1)`` and ``v / (1 - beta_2)`` with its constants folded (scalars of
  the ensemble's dtype: a float64 one makes numpy compute a float32 pass in float64).

With the same seeds, the members start from scikit-learn's weights and see scikit-learn's
batches, so the two agree up to float rounding (computed here in float32 throughout, where
scikit-learn's backward pass runs in float64), which SGD amplifies over many epochs; see
``tests/test_bananas_speed.py``.
"""

from __future__ import annotations

import math

import numpy as np


class MLPEnsemble:
    """``len(seeds)`` relu MLP regressors with one output, trained as one batched network.

    After :meth:`fit`, per member as in MLPRegressor: ``n_iter_`` (epochs), ``loss_`` (the last
    epoch's loss) and ``loss_curve_`` (every epoch's loss of ``fit``, which the stopping rule read)."""

    def __init__(self, seeds, hidden_layer_sizes=(100,), *, learning_rate_init: float = 0.001,
                 max_iter: int = 200, batch_size: int = 200, alpha: float = 1e-4, tol: float = 1e-4,
                 n_iter_no_change: int = 10, beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-8,
                 dtype=np.float32):
        self.seeds = [int(seed) for seed in seeds]
        self.hidden_layer_sizes = tuple(hidden_layer_sizes)
        if not self.hidden_layer_sizes:
            raise ValueError("MLPEnsemble needs at least one hidden layer")
        self.learning_rate_init = learning_rate_init
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.alpha = alpha
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.dtype = np.dtype(dtype)

    # -- layout ---------------------------------------------------------------------------

    def _layout(self, n_features: int) -> None:
        """Where each layer's parameters lie in a member's flat parameters: the first layer's
        weights (fan_in, fan_out), then each later layer's [W.T | b] block (fan_out, fan_in + 1),
        then the first layer's biases; and which entries are weights (the L2 term's)."""
        units = [n_features, *self.hidden_layer_sizes, 1]
        self.shapes = list(zip(units[:-1], units[1:]))
        fan_in, fan_out = self.shapes[0]
        start = fan_in * fan_out
        self.spans = [(0, start)]
        for fan_in, fan_out in self.shapes[1:]:
            self.spans.append((start, start + fan_out * (fan_in + 1)))
            start += fan_out * (fan_in + 1)
        self.spans.append((start, start + self.shapes[0][1]))
        self.n_params = start + self.shapes[0][1]
        weight_mask = np.ones((1, self.n_params), dtype=self.dtype)
        _, blocks, first_biases = self._views(weight_mask)
        first_biases[:] = 0
        for block in blocks:
            block[:, :, -1] = 0
        self.weight_mask = weight_mask[0]

    def _views(self, flat: np.ndarray) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
        """``flat``'s first-layer weights (members, fan_in, fan_out), later layers' blocks
        (members, fan_out, fan_in + 1) and first-layer biases (members, fan_out, 1)."""
        members = flat.shape[0]
        (a, b), shape = self.spans[0], self.shapes[0]
        first = flat[:, a:b].reshape(members, *shape)
        blocks = [flat[:, a:b].reshape(members, fan_out, fan_in + 1)
                  for (a, b), (fan_in, fan_out) in zip(self.spans[1:-1], self.shapes[1:])]
        a, b = self.spans[-1]
        return first, blocks, flat[:, a:b].reshape(members, shape[1], 1)

    # -- training -------------------------------------------------------------------------

    def fit(self, x: np.ndarray, y: np.ndarray) -> MLPEnsemble:
        """Train new networks from their initial weights (scikit-learn's ``fit``)."""
        x, y = self._arrays(x, y)
        self._layout(x.shape[1])
        self.states_ = [np.random.RandomState(seed) for seed in self.seeds]
        self.perm_, self.n_used_ = self._input_order(x)
        theta = np.empty((len(self.seeds), self.n_params), dtype=self.dtype)
        first, blocks, first_biases = self._views(theta)
        for member, state in enumerate(self.states_):
            for layer, (fan_in, fan_out) in enumerate(self.shapes):
                bound = np.sqrt(6.0 / (fan_in + fan_out))
                weight = state.uniform(-bound, bound, (fan_in, fan_out))
                bias = state.uniform(-bound, bound, fan_out)
                if layer == 0:
                    first[member], first_biases[member, :, 0] = weight[self.perm_], bias
                else:
                    blocks[layer - 1][member, :, :-1], blocks[layer - 1][member, :, -1] = weight.T, bias
        self.n_iter_ = np.zeros(len(self.seeds), dtype=int)
        self.loss_ = np.zeros(len(self.seeds))
        self.loss_curve_: list[list[float]] = [[] for _ in self.seeds]
        self._train(_Network(self, theta), x[:, self.perm_[: self.n_used_]], y, self.max_iter, continued=False)
        return self

    def partial_fit(self, x: np.ndarray, y: np.ndarray, epochs: int = 1) -> MLPEnsemble:
        """Go on training the fitted networks on ``(x, y)`` (which may hold more samples than the
        last fit) for ``epochs`` epochs, as ``epochs`` calls of scikit-learn's ``partial_fit``
        after its ``fit`` do: each member keeps its weights, Adam's moments and step count and
        its random state; each epoch shuffles ``arange(n)`` afresh; no stopping rule."""
        if not hasattr(self, "final_"):
            raise ValueError("partial_fit continues a fitted MLPEnsemble: call fit first")
        x, y = self._arrays(x, y)
        if x.shape[1] != self.shapes[0][0]:
            raise ValueError(f"partial_fit got {x.shape[1]} features; the ensemble was fitted on {self.shapes[0][0]}")
        perm, self.n_used_ = self._input_order(x)
        # the first layer's rows follow the input order: carry them from the old order to the new
        rows = np.argsort(self.perm_)[perm]
        for flat in (self.final_, self.adam_first_, self.adam_second_):
            first = self._views(flat)[0]
            first[:] = first[:, rows]
        self.perm_ = perm
        network = _Network(self, self.final_.copy(), self.adam_first_.copy(), self.adam_second_.copy(),
                           list(self.adam_steps_))
        self._train(network, x[:, perm[: self.n_used_]], y, epochs, continued=True)
        return self

    def _arrays(self, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x, y = np.asarray(x, dtype=self.dtype), np.asarray(y, dtype=self.dtype).reshape(-1)
        if x.ndim != 2 or len(x) != len(y) or not len(x):
            raise ValueError(f"MLPEnsemble trains on a (samples, features) x and one target per sample; "
                             f"got x of shape {x.shape} and {len(y)} targets")
        return x, y

    @staticmethod
    def _input_order(x: np.ndarray) -> tuple[np.ndarray, int]:
        """The first layer's input order, the inputs some sample uses first, and their number."""
        used = (x != 0).any(axis=0)
        return np.concatenate([np.flatnonzero(used), np.flatnonzero(~used)]), int(used.sum())

    def _train(self, network: _Network, x: np.ndarray, y: np.ndarray, epochs: int, continued: bool) -> None:
        """``epochs`` epochs of minibatch Adam on every member of ``network`` (``x``: the used
        inputs only). A first fit (``continued=False``) composes each epoch's shuffle with the
        last order and stops a member by scikit-learn's rule on the training loss; a continued
        one shuffles ``arange(n)`` each epoch and runs every epoch. Keeps each member's final
        parameters, Adam state, epoch count and last epoch loss."""
        x = np.ascontiguousarray(x)
        n, members = len(x), len(network.theta)
        batch = int(np.clip(self.batch_size, 1, n))
        bounds = [(start, min(start + batch, n)) for start in range(0, n, batch)]  # gen_batches
        self.final_ = np.empty_like(network.theta)
        self.adam_first_, self.adam_second_ = np.empty_like(network.theta), np.empty_like(network.theta)
        self.adam_steps_ = [0] * members
        active = np.arange(members)  # members still training, in stack order
        order = np.tile(np.arange(n), (members, 1))
        best = np.full(members, np.inf)
        stalled = np.zeros(members, dtype=int)
        start_iter = self.n_iter_.copy()
        for epoch in range(epochs):
            for row, member in enumerate(active):
                shuffle = np.arange(n)
                self.states_[member].shuffle(shuffle)
                order[row] = shuffle if continued else order[row][shuffle]
            epoch_loss = np.zeros(len(active))
            for start, stop in bounds:
                rows = order[:, start:stop]
                epoch_loss += network.step(np.take(x, rows, axis=0), y[rows][:, None, :]) * (stop - start)
            epoch_loss /= n
            self.n_iter_[active] = start_iter[active] + epoch + 1
            self.loss_[active] = epoch_loss
            for member, loss in zip(active, epoch_loss.tolist()):
                self.loss_curve_[member].append(loss)
            if continued:
                done = np.full(len(active), epoch == epochs - 1)
            else:
                # scikit-learn's _update_no_improvement_count on the training loss
                stalled = np.where(epoch_loss > best - self.tol, stalled + 1, 0)
                best = np.minimum(best, epoch_loss)
                done = (stalled > self.n_iter_no_change) | (epoch == epochs - 1)
            if done.any():
                finished = active[done]
                self.final_[finished] = network.theta[done]
                self.adam_first_[finished], self.adam_second_[finished] = network.first[done], network.second[done]
                for member, steps in zip(finished, np.asarray(network.steps)[done]):
                    self.adam_steps_[member] = int(steps)
                keep = ~done
                active, order, best, stalled = active[keep], order[keep], best[keep], stalled[keep]
                if not len(active):
                    break
                network = network.members(keep)

    # -- prediction -----------------------------------------------------------------------

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Each member's prediction for each row of ``x``: (members, rows)."""
        first, blocks, first_biases = self._views(self.final_)
        out = np.matmul(np.asarray(x, dtype=self.dtype)[:, self.perm_], first).transpose(0, 2, 1) + first_biases
        for block in blocks:
            np.maximum(out, 0, out=out)
            out = np.matmul(block[:, :, :-1], out)
            out += block[:, :, -1:]
        return out[:, 0, :]


class _Network:
    """The members still training: their parameters, Adam's moments and one step's buffers."""

    def __init__(self, ensemble: MLPEnsemble, theta: np.ndarray, first: np.ndarray | None = None,
                 second: np.ndarray | None = None, steps: list[int] | None = None):
        self.ensemble = ensemble
        self.theta = theta
        self.first = np.zeros_like(theta) if first is None else first  # Adam's m / (1 - beta_1)
        self.second = np.zeros_like(theta) if second is None else second  # Adam's v / (1 - beta_2)
        self.steps = [0] * len(theta) if steps is None else steps  # each member's Adam steps so far
        self.grad = np.zeros_like(theta)  # the unused inputs' rows stay 0: no product writes them
        self.scratch = np.empty_like(theta)
        weights, self.blocks, self.first_biases = ensemble._views(theta)
        grads, self.block_grads, self.first_bias_grads = ensemble._views(self.grad)
        self.first_weights, self.first_grads = weights[:, : ensemble.n_used_], grads[:, : ensemble.n_used_]
        self.buffers: dict[int, tuple] = {}

    def members(self, keep: np.ndarray) -> _Network:
        """The network of the members ``keep`` selects (each keeps its parameters, moments and step count)."""
        return _Network(self.ensemble, self.theta[keep], self.first[keep], self.second[keep],
                        [steps for steps, kept in zip(self.steps, keep) if kept])

    def _buffers(self, size: int) -> tuple:
        """Per batch size: each hidden layer's activations, (members, units + 1, size), whose last
        row of ones is the next layer's bias input (relu keeps it 1); their relu masks, float 0/1
        (multiplying by a float mask is 3x cheaper than by a boolean one); a column of ones (the
        first layer's bias gradients are the deltas times it); the L2 term's factor on the
        parameters (alpha / size on weights, 0 on biases)."""
        if size not in self.buffers:
            ensemble, members = self.ensemble, len(self.theta)
            activations = []
            for units in ensemble.hidden_layer_sizes:
                activation = np.empty((members, units + 1, size), dtype=ensemble.dtype)
                activation[:, -1] = 1
                activations.append(activation)
            masks = [np.empty_like(activation) for activation in activations]
            ones = np.ones((members, size, 1), dtype=ensemble.dtype)
            self.buffers[size] = activations, masks, ones, ensemble.weight_mask * ensemble.dtype.type(ensemble.alpha / size)
        return self.buffers[size]

    def step(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """One minibatch of every member (``x``: members x batch x used inputs, ``y``: members x
        1 x batch): forward, backward, Adam. Returns each member's batch loss (before the update)."""
        ensemble, blocks = self.ensemble, self.blocks
        size = x.shape[1]
        activations, masks, ones, decay = self._buffers(size)
        # the first layer row by row (x is the gathered batch), every later one transposed
        np.add(np.matmul(x, self.first_weights).transpose(0, 2, 1), self.first_biases, out=activations[0][:, :-1])
        for layer, block in enumerate(blocks):
            below, mask = activations[layer], masks[layer]
            np.greater(below, 0, out=mask, casting="unsafe")
            below *= mask
            out = activations[layer + 1][:, :-1] if layer + 1 < len(activations) else None
            out = np.matmul(block, below, out=out)
        delta = out
        delta -= y
        squares = np.matmul(delta, delta.transpose(0, 2, 1))[:, 0, 0].astype(np.float64)
        delta *= 1.0 / size  # every gradient below is then already divided by the batch size
        for layer in range(len(blocks) - 1, -1, -1):
            below = activations[layer]
            np.matmul(delta, below.transpose(0, 2, 1), out=self.block_grads[layer])
            # (the row of the bias input is computed with the others and not used)
            delta = np.matmul(blocks[layer].transpose(0, 2, 1), delta)
            delta *= masks[layer]
            delta = delta[:, :-1]
        np.matmul(delta, x, out=self.first_grads.transpose(0, 2, 1))
        np.matmul(delta, ones, out=self.first_bias_grads)
        # the L2 term on the weights: its gradient alpha * W / size and its loss 0.5 * alpha * sum(W**2) / size
        g = np.multiply(self.theta, decay, out=self.scratch)
        penalty = np.matmul(self.theta[:, None, :], g[:, :, None])[:, 0, 0].astype(np.float64)
        loss = squares / (2 * size) + 0.5 * penalty
        g += self.grad
        # Adam, as scikit-learn's AdamOptimizer, on m / (1 - beta_1) and v / (1 - beta_2)
        self.steps = [steps + 1 for steps in self.steps]
        beta_1, beta_2, scalar = ensemble.beta_1, ensemble.beta_2, ensemble.dtype.type
        self.first *= scalar(beta_1)
        self.first += g
        np.square(g, out=g)
        self.second *= scalar(beta_2)
        self.second += g
        np.sqrt(self.second, out=g)
        g += scalar(ensemble.epsilon / np.sqrt(1 - beta_2))
        np.divide(self.first, g, out=g)
        rate, sqrt = ensemble.learning_rate_init, math.sqrt
        g *= np.array([rate * sqrt(1 - beta_2**t) / (1 - beta_1**t) * (1 - beta_1) / sqrt(1 - beta_2)
                       for t in self.steps], dtype=ensemble.dtype)[:, None]
        self.theta -= g
        return loss
