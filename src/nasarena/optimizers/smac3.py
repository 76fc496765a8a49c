"""SMAC (Hutter et al. 2011) through SMAC3 2.x's ask/tell itself, over a ConfigSpace encoding of the space.

This is the library-backed reference (``smac3``) of nasarena's vectorised ``smac`` (:mod:`.smac`),
which runs the same algorithm (repeated evaluations included) on categorical encodings, conditional
ones too, at a fraction of the cost; this one also runs numeric encodings.

The NB101 paper's setting (Supplement S2.2) is the default: SMAC3's hyperparameter-optimisation
facade (random-forest surrogate, expected improvement, local and random search for the next
configuration) with a forest of 5 trees, a third of the configurations drawn at random, and at
most one evaluation per configuration. ``repeated_evaluations`` > 1 is the anytime paper's
variant: SMAC's intensifier races challengers against the incumbent on up to that many seeds,
so configurations are re-queried (on a deterministic table the results repeat). As in the
original scripts (``initial_incumbent: RANDOM``), the search starts from one random
configuration rather than SMAC3's Sobol design of 10 configurations per parameter.

SMAC minimises cost = 1 - validation accuracy; invalid architectures cost 1 (accuracy 0), the
original convention. The runner owns the budget, so the scenario has unlimited trials and
walltime. SMAC3 writes its state into an output directory only when it is built (this wrapper
never asks ``tell`` to save), so a temporary directory serves and is removed straight away:
nothing lands in the working directory. SMAC3 is imported only when a SMAC optimizer is built.
"""

from __future__ import annotations

import logging
import sys
import tempfile
from pathlib import Path

import numpy as np

from ..errors import import_extra
from .base import Observation, Optimizer, Setting, Trial
from .smac import SMAC

#: Random configurations scored per acquisition search: SMAC3 1.x's default (``acq_opt_challengers``,
#: the generation of the NB101 paper's SMAC); the 2.x facade's 10,000 doubles the cost of a search.
ACQUISITION_CHALLENGERS = 5000


def _import_smac():
    smac = import_extra("smac", "the smac3 optimizer")
    from smac.initial_design import RandomInitialDesign
    from smac.main.exceptions import ConfigurationSpaceExhaustedException
    from smac.runhistory.dataclasses import TrialValue

    return smac, RandomInitialDesign, ConfigurationSpaceExhaustedException, TrialValue


def _forest(scenario, n_trees: int):
    """The facade's random forest (``HyperparameterOptimizationFacade.get_model``), made cheap.

    Two changes that keep the model (fully grown trees on bootstrap samples, same options
    otherwise; SMAC3 asks for random split thresholds but its trees get scikit-learn's default
    best split, see :mod:`.random_forest`) and remove most of SMAC's overhead (see ``bench/bench_smac.py``):

    - one thread: SMAC3 predicts with every core (joblib threads), and the acquisition search
      predicts in many small batches, so on few or busy cores the hand-offs cost more than
      the trees; one thread also keeps experiments run side by side from competing;
    - no leaf limit instead of SMAC3's ``max_leaf_nodes=2**20``, which switches scikit-learn
      to its best-first builder and its allocations (~80 ms per tree on 100 points, against
      ~1 ms depth-first). Trees are grown until pure either way.
    """
    from smac.model.random_forest import RandomForest

    return RandomForest(scenario.configspace, log_y=True, n_trees=n_trees, bootstrapping=True, ratio_features=1.0,
                        min_samples_split=2, min_samples_leaf=1, max_depth=2**20, max_leaf_nodes=None,
                        instance_features=scenario.instance_features, seed=scenario.seed, n_jobs=1)


def _hash_free(maximizer):
    """``maximizer`` with its local search's start points in an order that does not depend on
    the process's string-hash seed (``PYTHONHASHSEED``).

    SMAC3 2.x's ``LocalSearch._get_init_points_from_previous_configs`` removes duplicate start
    points through a ``set`` of configurations (its docstring promises the first occurrence of
    each, left to right), so their order, and with it the local searches' random draws, followed
    the hash of the configurations' values: the same seed gave other runs in another process.
    Here the deduplicated points are sorted by their ConfigSpace vectors (inactive values, NaN,
    first), the same set in an order every process agrees on."""
    local_search = getattr(maximizer, "_local_search", None)
    if local_search is None:  # another maximizer: nothing to order
        return maximizer
    deduplicated = local_search._get_init_points_from_previous_configs

    def ordered(*args, **kwargs):
        points = deduplicated(*args, **kwargs)
        return sorted(points, key=lambda config: tuple(np.nan_to_num(config.get_array(), nan=-1.0)))

    local_search._get_init_points_from_previous_configs = ordered
    return maximizer


class SMAC3(Optimizer):
    """SMAC3 driven by ask/tell; settings are the NB101 paper's SMAC meta-parameters.

    ``retrain_after`` is SMAC3's number of configurations proposed between refits of the
    forest and new acquisition searches (SMAC3's default, 8): lower follows the data more
    closely, higher is cheaper (see ``bench/bench_smac.py``).
    """

    checkpointable = False  # the library's objects hold local functions: they do not pickle

    name = "smac3"
    summary = "SMAC by SMAC3 itself (random forest of 5 trees, log EI), any ConfigSpace encoding (the reference of smac)"

    #: ``smac``'s settings (the same meta-parameters), on any encoding.
    SETTINGS = {**SMAC.SETTINGS,
                "encoding": Setting(str, "the space's ConfigSpace encoding SMAC searches (numeric ones included)")}

    def __init__(self, space, seed=0, *, encoding: str = "categorical", repeated_evaluations: int = 1,
                 n_trees: int = 5, random_fraction: float = 0.33, retrain_after: int = 8):
        super().__init__(space, seed)
        smac, RandomInitialDesign, self._exhausted, self._trial_value = _import_smac()
        self.encoding = encoding
        self.repeated_evaluations = repeated_evaluations
        self.n_trees = n_trees
        self.random_fraction = float(random_fraction)
        self.retrain_after = retrain_after
        logging.getLogger("smac").setLevel(logging.ERROR)  # e.g. "could not return a new configuration"

        facade = smac.HyperparameterOptimizationFacade
        with tempfile.TemporaryDirectory(prefix="nasarena-smac-") as directory:
            scenario = smac.Scenario(
                space.config_space(encoding),
                output_directory=Path(directory),
                deterministic=self.repeated_evaluations == 1,  # a single seed, so one evaluation per configuration
                n_trials=sys.maxsize,
                walltime_limit=float("inf"),
                seed=int(self.rng.integers(2**31)),
            )
            self.facade = facade(
                scenario,
                model=_forest(scenario, self.n_trees),
                acquisition_maximizer=_hash_free(facade.get_acquisition_maximizer(
                    scenario, challengers=ACQUISITION_CHALLENGERS)),
                initial_design=RandomInitialDesign(scenario, n_configs=1),
                random_design=facade.get_random_design(scenario, probability=self.random_fraction),
                intensifier=facade.get_intensifier(scenario, max_config_calls=self.repeated_evaluations),
                config_selector=facade.get_config_selector(scenario, retrain_after=self.retrain_after),
                logging_level=False,
                overwrite=True,
            )
        self._pending: dict[int, object] = {}

    def _ask(self, number: int) -> Trial:
        try:
            info = self.facade.ask()
        except (StopIteration, self._exhausted):
            raise RuntimeError("SMAC found no configuration left to evaluate: "
                               f"the {self.encoding!r} configuration space looks exhausted") from None
        trial = Trial(self.space.from_config(info.config, self.encoding))
        self._pending[number] = info
        return trial

    def _tell(self, trial: Trial, observation: Observation) -> None:
        info = self._pending.pop(trial.number)
        accuracy = observation.valid_accuracy if observation.valid else 0.0
        self.facade.tell(info, self._trial_value(cost=1.0 - accuracy, time=observation.cost_seconds), save=False)
