"""An ensemble of scikit-learn-style MLP regressors trained together, as one batched numpy network.

:class:`MLPEnsemble` trains ``len(seeds)`` networks on the same data, each exactly as
scikit-learn's ``MLPRegressor(solver="adam", activation="relu", shuffle=True,
early_stopping=False)`` trains one: the algorithm is scikit-learn's (1.6), step for step, and
only the arithmetic is batched. The members' weights are stacked along a leading member axis, so
one ``matmul`` computes a layer of every member, and all parameters of all members live in one
flat array (per member: the weight matrices, then the biases), so one pass of Adam updates them
all. Per member, as scikit-learn does:

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

With the same seeds, the members start from scikit-learn's weights and see scikit-learn's
batches, so the two agree up to float rounding (computed here in float32 throughout, where
scikit-learn's backward pass runs in float64), which SGD amplifies over many epochs; see
``tests/test_bananas_speed.py``.
"""

from __future__ import annotations

import numpy as np


class MLPEnsemble:
    """``len(seeds)`` relu MLP regressors with one output, trained as one batched network."""

    def __init__(self, seeds, hidden_layer_sizes=(100,), *, learning_rate_init: float = 0.001,
                 max_iter: int = 200, batch_size: int = 200, alpha: float = 1e-4, tol: float = 1e-4,
                 n_iter_no_change: int = 10, beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-8,
                 dtype=np.float32):
        self.seeds = [int(seed) for seed in seeds]
        self.hidden_layer_sizes = tuple(hidden_layer_sizes)
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
        units = [n_features, *self.hidden_layer_sizes, 1]
        self.shapes = list(zip(units[:-1], units[1:]))
        offsets, start = [], 0
        for fan_in, fan_out in self.shapes:
            offsets.append((start, start + fan_in * fan_out))
            start += fan_in * fan_out
        self.n_coefs = start
        for _, fan_out in self.shapes:
            offsets.append((start, start + fan_out))
            start += fan_out
        self.offsets = offsets
        self.n_params = start

    def _views(self, flat: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Per-layer (members, fan_in, fan_out) weights and (members, 1, fan_out) biases of ``flat``."""
        members, layers = flat.shape[0], len(self.shapes)
        weights = [flat[:, a:b].reshape(members, *shape) for (a, b), shape in zip(self.offsets, self.shapes)]
        biases = [flat[:, a:b].reshape(members, 1, shape[1])
                  for (a, b), shape in zip(self.offsets[layers:], self.shapes)]
        return weights, biases

    # -- training -------------------------------------------------------------------------

    def fit(self, x: np.ndarray, y: np.ndarray) -> MLPEnsemble:
        x = np.ascontiguousarray(x, dtype=self.dtype)
        y = np.asarray(y, dtype=self.dtype).reshape(-1)
        n, n_features = x.shape
        self._layout(n_features)
        # Inputs that are zero in every training sample (most of a path encoding's) get no gradient
        # from the data: their first-layer weights move by the L2 term alone. The used inputs are
        # put first, and only they go through the first layer's matrix products.
        used = (x != 0).any(axis=0)
        self.perm_ = np.concatenate([np.flatnonzero(used), np.flatnonzero(~used)])
        self.n_used_ = int(used.sum())
        x = np.ascontiguousarray(x[:, used])
        states = [np.random.RandomState(seed) for seed in self.seeds]
        theta = np.empty((len(states), self.n_params), dtype=self.dtype)
        weights, biases = self._views(theta)
        for member, state in enumerate(states):
            for layer, (fan_in, fan_out) in enumerate(self.shapes):
                bound = np.sqrt(6.0 / (fan_in + fan_out))
                weight = state.uniform(-bound, bound, (fan_in, fan_out))
                weights[layer][member] = weight[self.perm_] if layer == 0 else weight
                biases[layer][member, 0] = state.uniform(-bound, bound, fan_out)

        batch = int(np.clip(self.batch_size, 1, n))
        bounds = [(start, min(start + batch, n)) for start in range(0, n, batch)]  # gen_batches
        self.final_ = np.empty_like(theta)
        self.n_iter_ = np.zeros(len(states), dtype=int)
        self.loss_ = np.zeros(len(states))
        active = np.arange(len(states))  # members still training, in stack order
        order = np.tile(np.arange(n), (len(states), 1))
        first, second = np.zeros_like(theta), np.zeros_like(theta)
        best = np.full(len(states), np.inf)
        stalled = np.zeros(len(states), dtype=int)
        grad, scratch = np.zeros_like(theta), np.empty_like(theta)
        views = self._views(theta), self._views(grad)
        step = 0
        for epoch in range(self.max_iter):
            for row, member in enumerate(active):
                shuffle = np.arange(n)
                states[member].shuffle(shuffle)
                order[row] = order[row][shuffle]
            epoch_loss = np.zeros(len(active))
            for start, stop in bounds:
                rows = order[:, start:stop]
                step += 1
                epoch_loss += self._step(theta, grad, scratch, first, second, views, x[rows],
                                         y[rows][..., None], step) * (stop - start)
            epoch_loss /= n
            self.n_iter_[active] = epoch + 1
            self.loss_[active] = epoch_loss
            # scikit-learn's _update_no_improvement_count on the training loss
            stalled = np.where(epoch_loss > best - self.tol, stalled + 1, 0)
            best = np.minimum(best, epoch_loss)
            done = stalled > self.n_iter_no_change
            if epoch == self.max_iter - 1:
                done[:] = True
            if done.any():
                self.final_[active[done]] = theta[done]
                keep = ~done
                active, order, best, stalled = active[keep], order[keep], best[keep], stalled[keep]
                theta, first, second = theta[keep], first[keep], second[keep]
                grad, scratch = np.zeros_like(theta), np.empty_like(theta)
                views = self._views(theta), self._views(grad)
                if not len(active):
                    break
        self.weights_, self.biases_ = self._views(self.final_)
        return self

    def _step(self, theta, grad, scratch, first, second, views, x, y, step) -> np.ndarray:
        """One minibatch (``x``: members x batch x used features) of every member: forward,
        backward, Adam. ``grad``'s rows of the unused inputs hold zeros.

        Returns each member's batch loss (before the update)."""
        (weights, biases), (weight_grads, bias_grads) = views
        weights, weight_grads = [weights[0][:, : self.n_used_], *weights[1:]], \
            [weight_grads[0][:, : self.n_used_], *weight_grads[1:]]
        size = x.shape[1]
        activations, masks = [x], [None]
        for layer, (weight, bias) in enumerate(zip(weights, biases)):
            out = np.matmul(activations[-1], weight)
            out += bias
            if layer < len(weights) - 1:  # relu, keeping its derivative (cheaper than np.maximum)
                masks.append(out > 0)
                np.multiply(out, masks[-1], out=out)
            activations.append(out)
        delta = activations.pop()
        delta -= y
        coefs = theta[:, : self.n_coefs]
        # sums as matrix products (one BLAS call each, where numpy's reductions cost more)
        squares = np.matmul(delta.transpose(0, 2, 1), delta)[:, 0, 0].astype(np.float64)
        penalty = np.matmul(coefs[:, None, :], coefs[:, :, None])[:, 0, 0].astype(np.float64)
        loss = squares / (2 * size) + 0.5 * self.alpha * penalty / size
        ones = np.ones((1, 1, size), dtype=self.dtype)
        for layer in range(len(weights) - 1, -1, -1):
            below = activations[layer]
            np.matmul(below.transpose(0, 2, 1), delta, out=weight_grads[layer])
            np.matmul(ones, delta, out=bias_grads[layer])
            if layer:
                delta = np.matmul(delta, weights[layer].transpose(0, 2, 1))
                np.multiply(delta, masks[layer], out=delta)
        # weights: (a.T @ delta + alpha * W) / size; biases: mean delta
        g = scratch
        np.multiply(coefs, self.alpha, out=g[:, : self.n_coefs])
        g[:, : self.n_coefs] += grad[:, : self.n_coefs]
        g[:, self.n_coefs:] = grad[:, self.n_coefs:]
        g *= 1.0 / size
        # Adam, as scikit-learn's AdamOptimizer
        first *= self.beta_1
        second *= self.beta_2
        update = g * (1 - self.beta_1)
        first += update
        np.square(g, out=g)
        g *= 1 - self.beta_2
        second += g
        rate = self.learning_rate_init * np.sqrt(1 - self.beta_2**step) / (1 - self.beta_1**step)
        np.sqrt(second, out=g)
        g += self.epsilon
        np.divide(first, g, out=g)
        g *= rate
        theta -= g
        return loss

    # -- prediction -----------------------------------------------------------------------

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Each member's prediction for each row of ``x``: (members, rows)."""
        out = np.asarray(x, dtype=self.dtype)[None, :, self.perm_]
        for layer, (weight, bias) in enumerate(zip(self.weights_, self.biases_)):
            out = np.matmul(out, weight)
            out += bias
            if layer < len(self.weights_) - 1:
                np.maximum(out, 0, out=out)
        return out[..., 0]
