"""BANANAS (White, Neiswanger & Savani 2021): Bayesian optimisation with an ensemble of neural
predictors on the path encoding.

The first ``num_init`` architectures are random samples. Then, every ``retrain_every``
results (the original's batch of 10), an ensemble of ``ensemble_size`` MLPs (scikit-learn's
``MLPRegressor``, each seeded from the optimizer's generator) is trained on the path encodings
(``space.encode(arch, "path")``) of all valid results, with the validation accuracies
standardised as targets. The original's networks are kept: 10 hidden layers of 20 units, Adam
with learning rate 0.01, up to 200 epochs; scikit-learn's MSE loss replaces the original's MAE,
and its stopping when the training loss stalls bounds the cost.

Retraining turns warm once the results outnumber ``batch_size``. Until then every retraining
trains new networks, as the original does: an epoch is one minibatch, so that costs at most
``epochs`` small steps. Then each retraining goes on training the same networks (weights, Adam's
moments and step counts, shuffling streams) for whole epochs over all results, as many as make
at least ``warm_steps`` = 40 Adam steps (8 epochs at 1,000 results, 2 at 4,000), exactly as that
many calls of scikit-learn's ``MLPRegressor.partial_fit`` do. New networks at every retraining
(``warm_steps=None``) take about 60 epochs each, so their cost per retraining grows with the
history: over a 1e7 s NB101 run (about 4,000 evaluations) 53 ms of CPU per evaluation, against
3.8 ms warm. Only the training schedule differs: the networks, their loss, the acquisition
and the candidates are the original's; the warm ensemble ranks the scored candidates as well as
new networks do, and the search behaves the same (final regrets and anytime curves,
``bench/bench_equivalence.py``; the predictor's Kendall tau on the scored pools,
``bench/bench_bananas_retraining.py``; figures in their docstrings).

The acquisition is optimised as in the original: a pool of ``num_candidates`` architectures
is made by mutating (``space.mutate``) the ``num_parents`` best architectures found so far,
de-duplicated by ``space.identity`` and excluding every architecture already evaluated or
proposed (an NB201 mutation changes one edge, so there the pool holds at most 24 cells per
parent). ``acquisition="its"`` (the original's default) is independent Thompson sampling: one
draw per candidate from a normal distribution with the ensemble's mean and standard deviation;
``"ucb"`` ranks by mean + ``ucb_beta`` * standard deviation. The candidates are proposed in
the order of the acquisition until the next retraining; when the list runs out first
(parallel workers whose results are outstanding) a new pool is scored with the same ensemble.

Spaces without a path encoding (DARTS, FBNet) use the first of ``ENCODING_PREFERENCE`` they
support (``encoding=`` names one explicitly): adjacency one-hot, which White et al.'s study of
NAS encodings found next best for predictors, then one-hot.

``predictor="numpy"`` (the default) trains the ensemble with :class:`~.mlp_ensemble.MLPEnsemble`:
scikit-learn's ``MLPRegressor`` algorithm step for step (the same initial weights, batches, Adam
steps and stopping for the same seeds, in ``fit`` and ``partial_fit``), with the five members
batched into one numpy network and the inputs that no training sample uses kept out of the
matrix products. It agrees with ``predictor="sklearn"`` (the reference, one ``MLPRegressor`` per
member) up to float rounding, and costs about 7x less time per training step
(``bench/bench_mlp_ensemble.py``; over whole runs, which also mutate and score candidates,
``bench/bench_optimizer_cpu.py``; search behaviour compared by ``bench/bench_equivalence.py
bananas bananas:predictor=sklearn,warm_steps=null``).

``zero_cost_warmup=N`` makes the ``num_init`` initial architectures the best of ``N`` random ones by
the benchmark's zero-cost proxy (:mod:`.zero_cost_warmup`): Abdelfattah et al. (2021) warm up
aging evolution this way and predictor-based search with the proxy too, without publishing the
latter's exact protocol; this is the same warm-up applied to BANANAS' initial samples.

Constrained mode: a result told ``feasible=False`` (the run's constraint violated) is trained on
as the worst accuracy seen, so the acquisition ranks infeasible regions last, and never parents
the pool while a feasible result exists; with every result feasible nothing changes, bit for bit.

Invalid architectures are not trained on. scikit-learn is imported when the optimizer is built
(the ``[surrogates]`` extra; the numpy predictor uses its threadpoolctl).
"""

from __future__ import annotations

import contextlib
import functools
import warnings

import numpy as np

from ..errors import import_extra
from .base import Observation, Optimizer, Setting, Trial
from .mlp_ensemble import MLPEnsemble
from .zero_cost_warmup import ZeroCostWarmup, warmup_setting

ACQUISITIONS = ("its", "ucb")
PREDICTORS = ("numpy", "sklearn")
#: The original meta neural network: 10 layers of width 20.
HIDDEN_LAYERS = (20,) * 10
#: Mutation attempts per wanted candidate before a pool is accepted as smaller.
PATIENCE = 5
#: The predictor's input when none is named: the path encoding where the space has it.
ENCODING_PREFERENCE = ("path", "adjacency_one_hot", "one_hot")


def _mlp_class():
    return import_extra("sklearn.neural_network", "the bananas optimizer").MLPRegressor


class PredictorEnsemble:
    """MLP regressors on the same data, one per seed, differing only in their seeds.

    ``predictor`` is ``"numpy"`` (one batched :class:`MLPEnsemble`) or ``"sklearn"`` (one
    ``MLPRegressor`` per seed, the reference)."""

    def __init__(self, seeds: np.ndarray, epochs: int, batch_size: int, predictor: str = "numpy"):
        self.seeds = seeds
        self.epochs = epochs
        self.batch_size = batch_size
        self.predictor = predictor
        self.models: list = []

    def fit(self, x: np.ndarray, y: np.ndarray) -> None:
        """Train new networks on ``x`` and the standardised ``y``."""
        targets = self._standardised(y)
        with _training():
            if self.predictor == "numpy":
                self.models = [MLPEnsemble(self.seeds, HIDDEN_LAYERS, learning_rate_init=0.01, max_iter=self.epochs,
                                           batch_size=self.batch_size).fit(x, targets)]
            else:
                mlp = _mlp_class()
                # a RandomState (not its seed) goes on drawing the shuffles of later partial_fit calls
                self.models = [mlp(hidden_layer_sizes=HIDDEN_LAYERS, learning_rate_init=0.01, max_iter=self.epochs,
                                   batch_size=min(self.batch_size, len(x)),
                                   random_state=np.random.RandomState(int(seed))).fit(x, targets)
                               for seed in self.seeds]

    def partial_fit(self, x: np.ndarray, y: np.ndarray, epochs: int) -> None:
        """Go on training the fitted networks for ``epochs`` epochs on ``x`` and ``y``
        standardised afresh (``epochs`` calls of scikit-learn's ``partial_fit``)."""
        targets = self._standardised(y)
        with _training():
            for model in self.models:
                if self.predictor == "numpy":
                    model.partial_fit(x, targets, epochs)
                else:
                    model.batch_size = min(self.batch_size, len(x))
                    for _ in range(epochs):
                        model.partial_fit(x, targets)

    def _standardised(self, y: np.ndarray) -> np.ndarray:
        self.mean, self.scale = float(y.mean()), float(y.std()) or 1.0
        return (y - self.mean) / self.scale

    def predict(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation of the members' predicted accuracies."""
        with _one_blas_thread():  # one (members, rows) block from MLPEnsemble, one row per MLPRegressor
            predictions = np.vstack([model.predict(x) for model in self.models]) * self.scale + self.mean
        return predictions.mean(axis=0), predictions.std(axis=0)


@contextlib.contextmanager
def _training():
    """One BLAS thread, and scikit-learn's warning that ``max_iter`` epochs ended before its
    stopping rule silenced."""
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(), _one_blas_thread():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


@functools.cache
def _controller():
    """The process's BLAS and OpenMP libraries, found once (``threadpool_limits`` searches them
    again at every call: 0.7 ms, against 8 us to set a found controller's limits). Built after
    scikit-learn is imported (by ``Bananas.__init__``), so its libraries are among them."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def _one_blas_thread():
    """One BLAS thread: the matrices are small, and more threads only contend for the cores."""
    return _controller().limit(limits=1)


def _supported_encoding(space) -> str:
    """The first encoding of ``ENCODING_PREFERENCE`` that ``space`` can compute."""
    probe = space.sample(np.random.default_rng(0))  # its own generator: the optimizer's draws are untouched
    for kind in ENCODING_PREFERENCE:
        try:
            space.encode(probe, kind)
        except (ValueError, KeyError):
            continue
        return kind
    raise ValueError(f"BANANAS needs one of the encodings {', '.join(ENCODING_PREFERENCE)}; the {space.name} space "
                     f"has none: pass encoding=")


class Bananas(Optimizer):
    name = "bananas"
    summary = "BANANAS: path encoding, 5-MLP ensemble, Thompson sampling over mutations of the best"
    recorded_defaults = ("warm_steps",)  # warm retraining became the default after new networks each time

    SETTINGS = {
        "num_init": Setting(int, "random architectures before the first predictor", low=1),
        "retrain_every": Setting(int, "results between retrainings of the ensemble (the original's batch)", low=1),
        "num_candidates": Setting(int, "mutations scored by the acquisition per pool", low=1),
        "num_parents": Setting(int, "best architectures the pool's mutations start from", low=1),
        "ensemble_size": Setting(int, "MLPs in the ensemble (at least 2 for an uncertainty estimate)", low=2),
        "acquisition": Setting(str, "its: independent Thompson sampling; ucb: mean + ucb_beta * std",
                               choices=ACQUISITIONS),
        "ucb_beta": Setting(float, "weight of the standard deviation in the ucb acquisition", low=0),
        "epochs": Setting(int, "training epochs of each MLP at most (the first training; every one with "
                               "warm_steps=null)", low=1),
        "warm_steps": Setting(int, "once the results outnumber batch_size, Adam steps of each retraining (whole "
                                   "epochs, at least this many), which goes on training the same networks as "
                                   "scikit-learn's partial_fit does; null: new networks every time, as the original",
                              low=1, optional=True),
        "batch_size": Setting(int, "minibatch size of the MLPs' training", low=1),
        "encoding": Setting(str, "the predictor's input encoding (default: path where the space has it)",
                            optional=True),
        "predictor": Setting(str, "how the ensemble is trained: numpy (one batched network, the default) or "
                                  "sklearn (one MLPRegressor per member, the reference); the same algorithm",
                             choices=PREDICTORS),
        "zero_cost_warmup": warmup_setting("the num_init initial samples (at least num_init)"),
    }

    def __init__(self, space, seed=0, *, num_init: int = 10, retrain_every: int = 10, num_candidates: int = 100,
                 num_parents: int = 2, ensemble_size: int = 5, acquisition: str = "its", ucb_beta: float = 0.5,
                 epochs: int = 200, warm_steps: int | None = 40, batch_size: int = 200,
                 encoding: str | None = None, predictor: str = "numpy", zero_cost_warmup: int = 0):
        super().__init__(space, seed)
        self.encoding = encoding if encoding is not None else _supported_encoding(space)
        _mlp_class()
        self.num_init = num_init
        self.retrain_every = retrain_every
        self.num_candidates = num_candidates
        self.num_parents = num_parents
        self.ensemble_size = ensemble_size
        self.acquisition = acquisition
        self.ucb_beta = ucb_beta
        self.epochs = epochs
        self.warm_steps = warm_steps
        self.batch_size = batch_size
        self.predictor = predictor
        self.archs: list = []
        # the valid results' encodings, rows 0..len(accuracies)-1 of a buffer grown by doubling
        # (stacking thousands of rows at every retraining cost 1 ms)
        self.encodings = np.empty((0, 0), dtype=np.float32)
        self.accuracies: list[float] = []
        self.numbers: list[int] = []  # the valid results' trial numbers
        self.infeasible: list[bool] = []  # the run's constraint violated (constrained mode)
        self._stale = False  # the accuracies were rescored (ParEGO): retrain at the next ask
        self.seen: set = set()  # identities evaluated or proposed
        self.ensemble: PredictorEnsemble | None = None
        self.trained_on = 0
        self.proposals: list = []
        self.zero_cost_warmup = zero_cost_warmup
        self._warmup = ZeroCostWarmup(space, self.rng, zero_cost_warmup, num_init, self.name) \
            if zero_cost_warmup else None

    def _ask(self, number: int) -> Trial:
        if self._warmup is not None:
            trial = self._warmup.ask(number)
            if trial is not None:
                if trial.fidelity is None:  # one of the chosen, to train
                    self.seen.add(self.space.identity(trial.arch))
                return trial
            number -= self.zero_cost_warmup  # the warm-up's proxies are not initial samples
        if number < self.num_init or not self.accuracies:
            arch = self.space.sample(self.rng)
        else:
            if self.ensemble is None or len(self.accuracies) >= self.trained_on + self.retrain_every or self._stale:
                self._retrain()
                self.proposals = []
            while self.proposals and self.space.identity(self.proposals[-1]) in self.seen:
                self.proposals.pop()
            if not self.proposals:
                self.proposals = self._ranked_pool()[::-1]  # best last, for pop()
            arch = self.proposals.pop() if self.proposals else self.space.sample(self.rng)
        self.seen.add(self.space.identity(arch))
        return Trial(arch)

    def _tell(self, trial: Trial, observation: Observation) -> None:
        if not observation.valid or (self._warmup is not None and self._warmup.tell(trial, observation)):
            return
        encoding = np.asarray(self.space.encode(trial.arch, self.encoding), dtype=np.float32)
        count = len(self.accuracies)
        if count == len(self.encodings):
            grown = np.empty((max(64, 2 * count), encoding.size), dtype=np.float32)
            grown[:count] = self.encodings.reshape(count, encoding.size)  # (the empty start is 0 x 0)
            self.encodings = grown
        self.encodings[count] = encoding
        self.archs.append(trial.arch)
        self.accuracies.append(observation.valid_accuracy)
        self.numbers.append(trial.number)
        self.infeasible.append(not observation.feasible)

    def _rescore(self, numbers: np.ndarray, values: np.ndarray) -> None:
        """Replace the accuracies of the told trials ``numbers`` by ``values`` (ParEGO's new
        scalarisation, :mod:`.parego`) and retrain the ensemble at the next ask."""
        position = {number: index for index, number in enumerate(self.numbers)}
        for number, value in zip(numbers.tolist(), values.tolist()):
            self.accuracies[position[number]] = value
        self._stale = True

    def _targets(self) -> np.ndarray:
        """The accuracies the ensemble learns; in constrained mode an infeasible result counts as
        the worst accuracy seen, so the acquisition ranks infeasible regions last."""
        y = np.asarray(self.accuracies)
        if any(self.infeasible):
            y = np.where(self.infeasible, y.min(), y)
        return y

    def _retrain(self) -> None:
        x, y = self.encodings[: len(self.accuracies)], self._targets()
        if self.ensemble is not None and self.warm_steps is not None and len(x) > self.batch_size:
            batches = -(-len(x) // self.batch_size)
            self.ensemble.partial_fit(x, y, epochs=-(-self.warm_steps // batches))
        else:
            seeds = self.rng.integers(2**31, size=self.ensemble_size)
            self.ensemble = PredictorEnsemble(seeds, self.epochs, self.batch_size, self.predictor)
            self.ensemble.fit(x, y)
        self.trained_on = len(self.accuracies)
        self._stale = False

    def _pool(self) -> list:
        """Unseen, distinct mutations of the best architectures."""
        best = np.argsort(self.accuracies)[::-1]
        if any(self.infeasible) and not all(self.infeasible):  # constrained: feasible parents only
            best = best[~np.asarray(self.infeasible)[best]]
        best = best[: self.num_parents]
        pool: dict = {}
        for attempt in range(self.num_candidates * PATIENCE):
            if len(pool) == self.num_candidates:
                break
            child = self.space.mutate(self.archs[best[attempt % len(best)]], self.rng)
            identity = self.space.identity(child)
            if identity is not None and identity not in self.seen:
                pool.setdefault(identity, child)
        return list(pool.values())

    def _ranked_pool(self) -> list:
        """The pool in decreasing order of the acquisition."""
        pool = self._pool()
        if not pool:
            return []
        mean, std = self.ensemble.predict(np.stack([self.space.encode(a, self.encoding) for a in pool]).astype(np.float32))
        if self.acquisition == "its":
            score = self.rng.normal(mean, std)
        else:
            score = mean + self.ucb_beta * std
        return [pool[i] for i in np.argsort(-score, kind="stable")]
