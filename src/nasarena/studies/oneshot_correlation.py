"""Correlation of one-shot and true rankings per saved epoch (NAS-Bench-1Shot1, Sec. 5.2, Fig. 3).

For every supernet a run kept (``supernets/epoch-NNN.pt``, setting ``snapshot_every``), every
architecture of the space without loose ends (the authors' 2,487 / 3,609 / 24,066; for ENAS the
``samples`` architectures its controller draws at that epoch, as the paper does) is scored by
its one-shot validation accuracy under the shared weights on the first ``batches`` fixed
validation batches (:func:`.search.fixed_validation_batches`: a seeded class-mixed order, the
batches the run measures its one-shot errors on), by the scorer of the run's one-shot errors
(:mod:`.scoring`: batch statistics), so a run's validation error is the score of its epoch's
architecture on the same batches. The scores are compared
with the NB101 truth (the benchmark's mean test accuracy) by the metrics of the supernet
evaluation (:func:`nasarena.analysis.supernet.evaluate_checkpoints`: Spearman, Kendall, a1(k),
and a2(k) from the epoch's alpha, beta and gamma where the method has them).

Files written into the run directory (a checkpoint per epoch, so a killed scoring resumes):

- ``scores/epoch-NNN.csv``: ``arch_id`` (the architecture's text), ``score``;
- ``scores/scoring.json``: how they were scored (a rerun with other choices is refused);
- ``scores.csv``: all epochs in the long format ``nasarena supernet evaluate --scores`` reads
  (``arch_id``, ``checkpoint`` = epoch, ``score``), with ``--benchmark <the space>``;
- ``correlation.csv``: the metrics per epoch (checkpoint, metric, parameter, value), plus
  ``seconds_per_architecture`` (scoring time of one architecture on one worker).

Scoring runs one architecture per forward (a masked forward of many architectures at once does
every op of every block and was 2.5-5x slower per architecture on the CPU) and spreads chunks of
architectures over ``workers`` processes (each with one torch thread; tasks of
:func:`nasarena.execution.run_tasks`, so Ctrl-C stops them at once and the epochs written stay),
so it uses every core.
Each process puts its supernet and the fixed batches on ``device`` (auto: cuda, then mps, then
cpu, as ``oneshot run``); the counts of correct predictions stay there until a chunk ends.
Architectures that differ only in loose ends are one network and one row (see
:mod:`nasarena.spaces.oneshot.positions`); ENAS samples outside the authors' set are dropped.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DataFileError, InvalidSettingError
from ..execution import run_tasks
from ..io.files import atomic_write_bytes
from ..oneshot.run import SETTINGS_FILE, SNAPSHOT_DIR, error_reason, read_torch_file, read_weights
from ..oneshot.settings import SearchSettings
from ..spaces.oneshot import OneShotArch, architectures
from ..spaces.oneshot.choices import choices, to_categorical
from ..spaces.oneshot.positions import position
from ..training.threads import TORCH_MODULES, worker_on_one_thread

SCORES_DIR = "scores"
SCORES_FILE = "scores.csv"
CORRELATION_FILE = "correlation.csv"
SCORING_FILE = "scoring.json"
#: How the scored validation batches are cut, recorded in ``scoring.json``: scores of the stored,
#: class-ordered split (one class per batch, before this was recorded) are refused, not mixed in.
BATCH_ORDER = "fixed-class-mixed"
#: Thresholds k of a1(k) and a2(k) (those above the scored count are skipped).
KS = (10, 50, 100, 500)
#: The columns of ``correlation.csv`` that :func:`spearman_table` reads, and the metrics (over
#: all architectures, parameter ``all``) it shows.
TABLE_COLUMNS = ("checkpoint", "metric", "parameter", "value", "optimizer", "seed")
TABLE_METRICS = ("spearman", "kendall", "scored", "seconds_per_architecture")
#: What to do about a damaged file of the scoring: correlate writes it again.
REWRITE = "run 'nasarena oneshot correlate' on the results again to rewrite it"


@dataclass(frozen=True)
class Scoring:
    """How a run's supernets are scored: validation batches per architecture, and optionally a
    seeded random subset of ``architectures`` of the set (a CPU proof; the paper scores all)."""

    batches: int = 1
    architectures: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.batches, int) or self.batches < 1:
            raise InvalidSettingError(f"batches must be a positive number of validation batches, got {self.batches!r}")
        if self.architectures is not None and self.architectures < 2:
            raise InvalidSettingError(f"architectures must be at least 2 (a correlation), got {self.architectures}")


@dataclass(frozen=True)
class Task:
    """One chunk of architectures of one run's epoch, scored on one worker."""

    run_dir: Path
    epoch: int
    texts: tuple[str, ...]
    batches: int
    data_path: str | None
    device: str | None = None  # None: auto (cuda, then mps, then cpu), as 'oneshot run'


def snapshot_epochs(run_dir: str | Path) -> list[int]:
    """The epochs (from 1) whose supernet the run kept, ascending."""
    found = [re.fullmatch(r"epoch-(\d+)\.pt", p.name) for p in (Path(run_dir) / SNAPSHOT_DIR).glob("epoch-*.pt")]
    return sorted(int(m.group(1)) for m in found if m)


def run_settings(run_dir: str | Path) -> tuple[SearchSettings, int]:
    """The settings and seed a run directory was started with."""
    file = Path(run_dir) / SETTINGS_FILE
    try:
        stored = json.loads(file.read_text())
        return SearchSettings.from_dict(stored["settings"]), int(stored["seed"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise DataFileError(f"{file}: not a one-shot run's settings ({error})") from None


def candidates(run_dir: Path, epoch: int, scoring: Scoring) -> list[OneShotArch]:
    """The architectures scored at ``epoch``: the set without loose ends (or its seeded subset);
    for ENAS the controller's ``samples`` draws of that epoch (seeded by the run's seed and the
    epoch), as representatives in the set, each once."""
    settings, seed = run_settings(run_dir)
    chosen = architectures(settings.space, loose_ends=False)
    if settings.optimizer != "enas":
        rows = np.arange(len(chosen))
        if scoring.architectures is not None and scoring.architectures < len(chosen):
            rows = np.sort(np.random.default_rng(scoring.seed).choice(rows, scoring.architectures, replace=False))
        return [chosen[int(i)] for i in rows]
    import torch

    from ..oneshot.controller import Controller

    controller = Controller(settings.space, settings.controller_hidden)
    controller.load_state_dict(_snapshot(str(run_dir), epoch)["extra"]["controller"])
    generator = torch.Generator().manual_seed(seed * 100_003 + epoch)
    rows = []
    with torch.no_grad():
        for _ in range(settings.samples):
            try:
                rows.append(position(controller.sample(generator)[0]))
            except KeyError:  # not a chain of active blocks: outside the authors' set
                continue
    return [chosen[i] for i in dict.fromkeys(rows)]


@lru_cache(maxsize=2)
def _snapshot(run_dir: str, epoch: int) -> dict:
    from ..oneshot.run import snapshot_path

    return read_torch_file(snapshot_path(run_dir, epoch), "supernet snapshot",
                           "delete it (its epoch is then not scored) or run the search again")


@lru_cache(maxsize=2)
def _data(data_path: str | None, image_size: int, subset: int | None):
    from ..training.data import load_cifar10

    return load_cifar10(data_path, image_size=image_size, subset=subset)


def score_task(task: Task) -> tuple[np.ndarray, float]:
    """Scores of a chunk (one-shot validation accuracy of each architecture) and the seconds it took."""
    import torch

    from ..oneshot.scoring import correct_predictions
    from ..oneshot.search import fixed_validation_batches
    from ..oneshot.supernet import PathWeights, Supernet
    from ..training.device import pick_device

    settings, _ = run_settings(task.run_dir)
    partial = settings.partial_channels if settings.optimizer == "pc-darts" else 1
    supernet = Supernet(settings.space, settings.channels, settings.stacks, settings.cells_per_stack,
                        partial=partial)
    supernet.load_state_dict(_snapshot(str(task.run_dir), task.epoch)["supernet"])
    device = pick_device(task.device)
    supernet.to(device)
    data = _data(task.data_path, settings.image_size, settings.subset)
    fixed = [(images.to(device), labels.to(device))
             for images, labels in fixed_validation_batches(data, settings.batch_size, task.batches)]
    total = sum(len(labels) for _, labels in fixed)
    start = time.perf_counter()  # scoring only: loading the data and the supernet is once per process
    # the one scorer of the run's one-shot errors (batch statistics); the counts stay on the device
    # until the chunk ends: no wait for the GPU per architecture
    correct = [correct_predictions(supernet, PathWeights.of_architecture(OneShotArch.from_string(text), device), fixed)
               for text in task.texts]
    counts = torch.stack(correct).cpu().numpy() if correct else np.zeros(0)
    return counts / total, time.perf_counter() - start


def score_runs(run_dirs: Sequence[Path], scoring: Scoring, *, data_path: str | None = None, workers: int = 1,
               device: str | None = None,
               progress: Callable[[Path, int, int, float], None] | None = None) -> tuple[int, float]:
    """Score every kept epoch of every run not scored yet; write the files of the module docstring.
    ``device``: where the supernets run (``None`` or ``"auto"``: cuda, then mps, then cpu, as
    ``oneshot run``; ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"``), checked before any work;
    each worker process puts its supernet and the fixed batches there.
    ``progress(run_dir, epoch, architectures, seconds_per_architecture)`` after each epoch.
    Returns (architectures scored, wall seconds)."""
    from ..training.device import pick_device

    device = None if device is None or device == "auto" else str(pick_device(device))  # refuses an absent one
    start = time.perf_counter()
    pending: dict[tuple[Path, int], list[str]] = {}
    for run_dir in run_dirs:
        if not snapshot_epochs(run_dir):
            raise DataFileError(f"{run_dir}: no supernets kept (run it with --set snapshot_every=1)")
        _check_scoring(run_dir, scoring)
        for epoch in snapshot_epochs(run_dir):
            if not _epoch_file(run_dir, epoch).exists():
                pending[(run_dir, epoch)] = [a.to_string() for a in candidates(run_dir, epoch, scoring)]
    chunk = max(1, -(-sum(map(len, pending.values())) // (4 * max(1, workers))))
    tasks = [Task(run_dir, epoch, tuple(texts[i : i + chunk]), scoring.batches, data_path, device)
             for (run_dir, epoch), texts in pending.items() for i in range(0, len(texts), chunk)]
    results: dict[tuple[Path, int], list[tuple[int, np.ndarray, float]]] = {key: [] for key in pending}
    expected = {key: -(-len(texts) // chunk) for key, texts in pending.items()}
    order = {task: index for index, task in enumerate(tasks)}

    def finished(argument: tuple[Task], result: tuple[np.ndarray, float]) -> None:
        task = argument[0]
        key = (task.run_dir, task.epoch)
        results[key].append((order[task], *result))
        if len(results[key]) == expected[key]:
            parts = sorted(results[key], key=lambda part: part[0])
            scores = np.concatenate([p[1] for p in parts])
            per_arch = sum(p[2] for p in parts) / len(scores)
            _write_epoch(task.run_dir, task.epoch, pending[key], scores, per_arch)
            if progress is not None:
                progress(task.run_dir, task.epoch, len(scores), per_arch)

    run_tasks(score_task, [(task,) for task in tasks], workers, finished, initializer=worker_on_one_thread,
              preload=(__name__, *TORCH_MODULES))
    for run_dir in run_dirs:
        write_run_tables(run_dir)
    return sum(map(len, pending.values())), time.perf_counter() - start


def _epoch_file(run_dir: Path, epoch: int) -> Path:
    return Path(run_dir) / SCORES_DIR / f"epoch-{epoch:03d}.csv"


def _check_scoring(run_dir: Path, scoring: Scoring) -> None:
    """Write ``scoring.json`` for a new scoring; refuse another scoring of an already scored run."""
    file = Path(run_dir) / SCORES_DIR / SCORING_FILE
    wanted = {"batches": scoring.batches, "architectures": scoring.architectures, "seed": scoring.seed,
              "order": BATCH_ORDER}
    if file.exists():
        try:
            stored = json.loads(file.read_text())
        except ValueError as error:
            raise DataFileError(f"{file}: not a scoring file ({error})") from None
        if "order" not in stored:
            raise InvalidSettingError(f"{run_dir} was scored on the validation split in stored order, one class per "
                                      f"batch (before the fixed class-mixed order): those scores are not one-shot "
                                      f"accuracies; delete {file.parent} and score again")
        if stored != wanted:
            raise InvalidSettingError(f"{run_dir} was scored with {stored}, not {wanted}; its scores are kept: "
                                      f"score with the same choices or delete {file.parent}")
        return
    atomic_write_bytes(file, json.dumps(wanted).encode())


def _write_epoch(run_dir: Path, epoch: int, texts: Sequence[str], scores: np.ndarray, per_arch: float) -> None:
    frame = pd.DataFrame({"arch_id": list(texts), "score": scores})
    atomic_write_bytes(_epoch_file(run_dir, epoch).with_suffix(".json"),
                       json.dumps({"seconds_per_architecture": per_arch}).encode())
    atomic_write_bytes(_epoch_file(run_dir, epoch), frame.to_csv(index=False).encode())


def read_run_scores(run_dir: str | Path) -> tuple[list[int], pd.DataFrame]:
    """The scored epochs and their scores, long (``arch_id`` text, ``checkpoint`` epoch, ``score``)."""
    run_dir = Path(run_dir)
    epochs = [e for e in snapshot_epochs(run_dir) if _epoch_file(run_dir, e).exists()]
    if not epochs:
        raise DataFileError(f"{run_dir}: no scored epochs ('nasarena oneshot correlate' writes them)")
    frames = [_read_epoch_scores(_epoch_file(run_dir, e)).assign(checkpoint=str(e)) for e in epochs]
    return epochs, pd.concat(frames)[["arch_id", "checkpoint", "score"]]


def _read_epoch_scores(file: Path) -> pd.DataFrame:
    """One ``scores/epoch-NNN.csv``; a damaged one is a :class:`DataFileError` naming it (scores are
    only recomputed for epochs without a file, so it must be deleted to score that epoch again)."""
    remedy = "delete it and run 'nasarena oneshot correlate' again to score that epoch again"
    frame = _read_table(file, "scores file", remedy)
    missing = [c for c in ("arch_id", "score") if c not in frame.columns]
    if missing:
        raise DataFileError(f"{file}: not a scores file (no column {', '.join(missing)}); it is kept: {remedy}")
    if _not_numbers(frame["score"]):
        raise DataFileError(f"{file}: column score holds text, not numbers; it is kept: {remedy}")
    return frame


def _read_table(file: Path, kind: str, remedy: str) -> pd.DataFrame:
    """``file`` read as CSV; unreadable (empty, cut short, not text) is a :class:`DataFileError`."""
    try:
        return pd.read_csv(file)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as error:
        raise DataFileError(f"{file}: not a readable {kind} ({error_reason(error)}); it is kept: {remedy}") from None


def _not_numbers(column: pd.Series) -> bool:
    """Whether ``column`` holds an entry that is neither a number nor empty."""
    return bool((pd.to_numeric(column, errors="coerce").isna() & column.notna()).any())


def write_run_tables(run_dir: str | Path, benchmark=None) -> pd.DataFrame:
    """Write ``scores.csv`` and ``correlation.csv`` of a run from its scored epochs; return the metrics."""
    from ..analysis.supernet import SupernetScores, evaluate_checkpoints
    from ..benchmarks.oneshot import oneshot_accuracies
    from ..benchmarks.registry import benchmark as load_benchmark

    run_dir = Path(run_dir)
    settings, seed = run_settings(run_dir)
    epochs, long = read_run_scores(run_dir)
    atomic_write_bytes(run_dir / SCORES_FILE, long.to_csv(index=False).encode())
    if benchmark is None:
        options = {"path": settings.benchmark_path} if settings.benchmark_path else {}
        benchmark = load_benchmark(settings.space, nb101=settings.benchmark, **options)
    true = oneshot_accuracies(settings.space, benchmark, loose_ends=False)
    scores = np.full((len(epochs), len(true)), np.nan)
    for i, epoch in enumerate(epochs):
        part = long[long["checkpoint"] == str(epoch)]
        scores[i, [position(text) for text in part["arch_id"]]] = part["score"].to_numpy()
    samplers = {str(e): choice_sampler(settings.space, read_weights(w)) for e in epochs
                if (w := run_dir / "weights" / f"epoch-{e:03d}.npz").exists()}
    supernet = SupernetScores(tuple(map(str, epochs)), scores, samplers)
    metrics = evaluate_checkpoints(true, supernet, KS, encodings=choice_encodings(settings.space) if samplers else None)
    timing = [(str(e), "seconds_per_architecture", "all",
               json.loads(_epoch_file(run_dir, e).with_suffix(".json").read_text())["seconds_per_architecture"])
              for e in epochs]
    metrics = pd.concat([metrics, pd.DataFrame(timing, columns=metrics.columns)], ignore_index=True)
    metrics = metrics.assign(optimizer=settings.optimizer, seed=seed, space=settings.space)
    atomic_write_bytes(run_dir / CORRELATION_FILE, metrics.to_csv(index=False).encode())
    return metrics


def choice_sampler(space: str, weights: dict):
    """The distribution over architectures implied by alpha, beta, gamma: per choice a softmax,
    a parent set's logit the sum of its members' (alpha for a block, gamma for the output).
    The probability of an architecture without loose ends is its own (not summed over the
    loose-ended variants of its network) and is renormalised over the set."""
    from ..analysis.supernet import ChoiceSoftmaxSampler

    logits = []
    for choice in choices(space):
        if choice.name == "output_parents":
            logits.append([sum(weights["gamma"][p] for p in option) for option in choice.options])
        elif choice.name.endswith("_op"):
            logits.append(weights["beta"][int(choice.name.split("_")[1]) - 1])
        else:
            alpha = weights["alpha"][int(choice.name.split("_")[1]) - 1]
            logits.append([sum(alpha[p] for p in option) for option in choice.options])
    return ChoiceSoftmaxSampler(logits)


@lru_cache(maxsize=None)
def choice_encodings(space: str) -> np.ndarray:
    """The option index per choice of every architecture of the set without loose ends (rows in order)."""
    return np.array([to_categorical(space, arch) for arch in architectures(space, loose_ends=False)])


def spearman_table(run_dirs: Sequence[Path]) -> pd.DataFrame:
    """Per optimizer, seed and epoch: Spearman, Kendall, architectures scored and seconds per architecture."""
    files = [Path(run_dir) / CORRELATION_FILE for run_dir in run_dirs]
    frames = [_read_correlation(file) for file in files if file.exists()]
    if not frames:
        return pd.DataFrame(columns=["optimizer", "seed", "epoch", "spearman", "kendall", "scored",
                                     "seconds_per_architecture"])
    metrics = pd.concat(frames)
    wide = metrics.pivot_table(index=["optimizer", "seed", "checkpoint"], columns="metric", values="value")
    wide = wide.reset_index().rename(columns={"checkpoint": "epoch"})
    wide["epoch"] = wide["epoch"].astype(int)
    return wide[["optimizer", "seed", "epoch", "spearman", "kendall", "scored", "seconds_per_architecture"]] \
        .sort_values(["optimizer", "seed", "epoch"]).reset_index(drop=True)


def _read_correlation(file: Path) -> pd.DataFrame:
    """The rows over all architectures (parameter ``all``) of one run's ``correlation.csv``,
    checked: a damaged file is a :class:`DataFileError` naming it and what it lacks, where the
    table's pivot would fail with a bare ``KeyError``."""
    table = _read_table(file, "correlation table", REWRITE)
    missing = [c for c in TABLE_COLUMNS if c not in table.columns]
    if missing:
        raise DataFileError(f"{file}: not a correlation table (no column {', '.join(missing)}); it is kept: {REWRITE}")
    overall = table[table["parameter"].astype(str) == "all"]
    absent = [m for m in TABLE_METRICS if m not in set(overall["metric"].astype(str))]
    if absent:
        raise DataFileError(f"{file}: no {', '.join(absent)} over all architectures (rows with parameter all); "
                            f"it is kept: {REWRITE}")
    for column in ("checkpoint", "seed", "value"):
        if _not_numbers(overall[column]) or (column != "value" and overall[column].isna().any()):
            raise DataFileError(f"{file}: column {column} holds something other than numbers; it is kept: {REWRITE}")
    return overall.assign(value=pd.to_numeric(overall["value"]))
