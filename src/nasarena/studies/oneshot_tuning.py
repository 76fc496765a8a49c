"""Tuning a one-shot optimizer's hyperparameters with nasarena's BOHB (NAS-Bench-1Shot1 Sec. 5.4, App. F).

The paper's setup: BOHB's fidelity is the number of search epochs (25 to 100, eta 2, 16 workers),
its objective the NB101 *validation* error of the architecture the search returns (the test
error is recorded for the analysis only: the tuner never sees it; the default ``nb101-noisy`` and the
imported ``nb101`` separate them, while ``nb101-lite`` holds one draw per cell as both), and the configuration space
holds only hyperparameters of the search. Here the space is the one-shot method's learning
rate, momentum, weight decay, cutout, batch size, architecture learning rate and, for GDAS,
the temperature range, for PC-DARTS the channel fraction (:func:`hyperparameters`).

nasarena's BOHB (:class:`nasarena.optimizers.bohb.BOHB`) proposes from categorical encodings
(``categorical_dims``, ``from_categorical``, ``sample``), so :class:`HyperparameterSpace`
offers each hyperparameter as a few levels on a log or linear grid; the KDE treats levels as
unordered categories, as it treats architecture choices. Every trial is one search
(:func:`~.run.run_search`) in ``trials/trial-NNNN`` of the output, with the trial's settings and
``epochs`` = its budget, from scratch (the cosine schedule depends on the epoch count).

Trials run ``workers`` at a time: ``workers`` asks, the searches on processes (tasks of
:func:`nasarena.execution.run_tasks`: Ctrl-C stops them at once), the tells in ask
order, then the next group, until the trials' epochs reach the budget (the last group may pass it). ``trials.jsonl`` logs each finished group; a restart replays the
log into a fresh BOHB with the same seed (so it asks the same configurations) and continues,
and a search killed mid-trial resumes from its own checkpoint. The paper's default settings
are run too (``default/``, at the largest budget) for the comparison with the incumbent.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import DataFileError, InvalidSettingError
from ..execution import run_tasks
from ..io.files import atomic_write_bytes
from ..oneshot.records import SearchEpochRecord as EpochRecord
from ..oneshot.settings import SearchSettings
from ..optimizers.base import Observation
from ..training.threads import TORCH_MODULES

TUNE_FILE = "tune.json"
TRIALS_FILE = "trials.jsonl"
#: The one-shot optimizers with hyperparameters of an architecture search to tune (the paper's three, and
#: second-order DARTS).
TUNABLE = ("darts", "darts-2nd", "gdas", "pc-darts")


@dataclass(frozen=True)
class Hyperparameter:
    """One setting of :class:`~.settings.SearchSettings` and the levels BOHB chooses among."""

    name: str
    values: tuple


def hyperparameters(base: SearchSettings) -> tuple[Hyperparameter, ...]:
    """The configuration space of ``base.optimizer`` (levels around the paper's defaults, which are on the grids)."""
    if base.optimizer not in TUNABLE:
        raise InvalidSettingError(f"oneshot tune tunes {', '.join(TUNABLE)}; {base.optimizer} has no architecture "
                                  "search hyperparameters of the paper's to tune")
    space = [
        Hyperparameter("learning_rate", (0.001, 0.0025, 0.01, 0.025, 0.1, 0.25, 1.0)),
        Hyperparameter("momentum", (0.0, 0.5, 0.9, 0.99)),
        Hyperparameter("weight_decay", (1e-5, 1e-4, 3e-4, 1e-3, 1e-2, 1e-1)),
        Hyperparameter("cutout", (0, base.image_size // 2)),  # off, or DARTS's 16 pixels at 32 x 32
        Hyperparameter("batch_size", (16, 32, 64, 96, 128)),
        Hyperparameter("arch_learning_rate", (1e-5, 1e-4, 3e-4, 1e-3, 1e-2)),
    ]
    if base.optimizer == "gdas":
        space += [Hyperparameter("tau_max", (5.0, 10.0, 20.0)), Hyperparameter("tau_min", (0.1, 0.5, 1.0))]
    if base.optimizer == "pc-darts":
        space.append(Hyperparameter("partial_channels", tuple(k for k in (2, 4, 8) if base.channels % k == 0)))
    return tuple(space)


class HyperparameterSpace:
    """The hyperparameters as independent categorical choices: what nasarena's BOHB needs of a space.
    A configuration is a ``{name: value}`` dict of :class:`~.settings.SearchSettings` changes."""

    def __init__(self, params: Sequence[Hyperparameter]):
        self.params = tuple(params)

    def categorical_dims(self) -> tuple[int, ...]:
        return tuple(len(p.values) for p in self.params)

    def from_categorical(self, values) -> dict[str, object]:
        return {p.name: p.values[int(v)] for p, v in zip(self.params, values)}

    def sample(self, rng: np.random.Generator) -> dict[str, object]:
        return self.from_categorical([rng.integers(d) for d in self.categorical_dims()])


@dataclass(frozen=True)
class TrialResult:
    """One finished trial: its configuration and budget, and the returned architecture's NB101 numbers."""

    number: int
    group: int
    config: dict
    epochs: int
    architecture: str
    valid_accuracy: float
    test_accuracy: float
    test_regret: float
    seconds: float

    @classmethod
    def of(cls, number: int, group: int, config: dict, epochs: int, records: Sequence[EpochRecord]) -> TrialResult:
        last = records[-1]
        return cls(number, group, config, epochs, last.architecture, last.nb101_valid_accuracy,
                   last.nb101_test_accuracy, last.test_regret, sum(r.seconds for r in records))


def observation(result: TrialResult) -> Observation:
    """What BOHB is told: the NB101 validation accuracy of the returned architecture (never its test accuracy)."""
    return Observation(valid_accuracy=result.valid_accuracy, cost_seconds=result.seconds)


def fidelities(min_epochs: int, max_epochs: int, eta: int) -> list[int]:
    """The search-epoch budgets: ``max_epochs / eta**k`` down to ``min_epochs`` (the paper: 25, 50, 100)."""
    if not 1 <= min_epochs < max_epochs:
        raise InvalidSettingError(f"need 1 <= min epochs < max epochs, got {min_epochs} and {max_epochs}")
    if eta < 2:
        raise InvalidSettingError(f"eta must be at least 2, got {eta}")
    budgets = [max_epochs]
    while budgets[-1] / eta >= min_epochs * (1 - 1e-9):
        budgets.append(max(min_epochs, round(budgets[-1] / eta)))
    if len(budgets) < 2:
        raise InvalidSettingError(f"max epochs {max_epochs} must be at least eta ({eta}) times min epochs {min_epochs}, "
                                  "or BOHB has a single budget (plain BO, no successive halving)")
    return sorted(set(budgets))


@dataclass(frozen=True)
class TuneSetup:
    """Everything a tuning run depends on but its total budget (which a rerun may raise)."""

    base: SearchSettings
    min_epochs: int
    max_epochs: int
    eta: int
    seed: int
    workers: int

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "base": self.base.to_dict()}


def tune(setup: TuneSetup, out_dir: str | Path, budget: int, *, data_path: str | None = None,
         progress: Callable[[TrialResult], None] | None = None) -> list[TrialResult]:
    """Run (or continue) BOHB until ``budget`` search epochs are spent, then the default settings; all results."""
    from ..optimizers.bohb import BOHB

    out_dir = Path(out_dir)
    space = HyperparameterSpace(hyperparameters(setup.base))  # bad input is refused before anything is written
    bohb = BOHB(space, setup.seed, fidelities=fidelities(setup.min_epochs, setup.max_epochs, setup.eta),
                eta=setup.eta)
    _check_setup(out_dir, setup)
    results = read_trials(out_dir)
    done = sorted({r.group for r in results})
    for group in done:  # replay: the same seed asks the same configurations
        logged = [r for r in results if r.group == group]
        trials = [bohb.ask() for _ in logged]
        for trial, result in zip(trials, logged):
            if trial.arch != result.config or trial.fidelity != result.epochs:
                raise DataFileError(f"{out_dir / TRIALS_FILE}: trial {result.number} does not replay (logged "
                                    f"{result.config} for {result.epochs} epochs, asked {trial.arch} for "
                                    f"{trial.fidelity}); the log belongs to another tuning run")
            bohb.tell(trial, observation(result))
    group = len(done)
    while sum(r.epochs for r in results) < budget:
        trials = [bohb.ask() for _ in range(setup.workers)]
        jobs = [(setup.base.replace(**t.arch, epochs=t.fidelity), setup.seed, out_dir / "trials" / f"trial-{t.number:04d}",
                 data_path) for t in trials]
        finished = _run_all(jobs, setup.workers)
        new = [TrialResult.of(t.number, group, t.arch, t.fidelity, records) for t, records in zip(trials, finished)]
        for trial, result in zip(trials, new):
            bohb.tell(trial, observation(result))
            if progress is not None:
                progress(result)
        results += new
        atomic_write_bytes(out_dir / TRIALS_FILE, "".join(json.dumps(dataclasses.asdict(r)) + "\n"
                                                          for r in results).encode())
        group += 1
    _run_all([(setup.base.replace(epochs=setup.max_epochs), setup.seed, out_dir / "default", data_path)], 1)
    return results


def _run_all(jobs: list[tuple], workers: int) -> list[list[EpochRecord]]:
    """Every job's search on ``workers`` processes; their records in the order of ``jobs``."""
    records: dict[Path, list[EpochRecord]] = {}

    def done(task: tuple, result: list[EpochRecord]) -> None:
        records[task[0][2]] = result  # by the job's run directory, one per job

    run_tasks(_search, [(job,) for job in jobs], workers, done, preload=("nasarena.oneshot.run", *TORCH_MODULES))
    return [records[job[2]] for job in jobs]


def _search(job: tuple) -> list[EpochRecord]:
    import torch

    from ..oneshot.run import run_search

    settings, seed, run_dir, data_path = job
    torch.set_num_threads(1)
    return run_search(settings, seed, run_dir, data_path=data_path)


def _check_setup(out_dir: Path, setup: TuneSetup) -> None:
    """Write ``tune.json`` for a new run; refuse to continue one started with another setup."""
    file = out_dir / TUNE_FILE
    if not file.exists():
        if out_dir.exists() and any(out_dir.iterdir()):
            raise InvalidSettingError(f"{out_dir} holds files but no {TUNE_FILE}: choose an empty or new folder")
        atomic_write_bytes(file, json.dumps(setup.to_dict(), indent=1).encode())
        return
    try:
        stored = json.loads(file.read_text())
    except ValueError as error:
        raise DataFileError(f"{file}: not a tuning setup ({error})") from None
    if stored != json.loads(json.dumps(setup.to_dict())):
        changed = sorted(k for k in stored if stored[k] != json.loads(json.dumps(setup.to_dict())).get(k))
        raise InvalidSettingError(f"{out_dir} was tuned with another setup ({', '.join(changed)} differ); "
                                  "continue with the same one (only --budget may grow) or use another folder")


def read_trials(out_dir: str | Path) -> list[TrialResult]:
    """The finished trials of a tuning run, in tell order (none for a new one)."""
    file = Path(out_dir) / TRIALS_FILE
    if not file.exists():
        return []
    try:
        return [TrialResult(**json.loads(line)) for line in file.read_text().splitlines() if line.strip()]
    except (ValueError, TypeError) as error:
        raise DataFileError(f"{file}: not a trials log ({error})") from None
