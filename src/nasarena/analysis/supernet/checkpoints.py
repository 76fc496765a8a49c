"""Supernet scores over training checkpoints, and every metric per checkpoint as a tidy table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .identification import correlations, id_rate, random_baseline
from .sampling import (
    ArchitectureSampler,
    IndependentSoftmaxSampler,
    cumulative_sampling_probability,
    sampling_probabilities,
)


@dataclass(frozen=True)
class SupernetScores:
    """One-shot scores (C checkpoints x N architectures, architecture index order; NaN where a
    checkpoint did not score an architecture, e.g. ENAS's 100 controller samples) and, for
    methods with architecture weights, per checkpoint an (edges x ops) logit matrix or an
    :class:`~.sampling.ArchitectureSampler` built from them."""

    checkpoints: tuple[str, ...]
    scores: np.ndarray
    arch_weights: dict[str, np.ndarray | ArchitectureSampler] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.scores.shape[0] != len(self.checkpoints):
            raise ValueError(f"{len(self.checkpoints)} checkpoints but scores of shape {self.scores.shape}")
        unknown = set(self.arch_weights) - set(self.checkpoints)
        if unknown:
            raise ValueError(f"architecture weights for unknown checkpoint(s): {', '.join(sorted(unknown))}")


def evaluate_checkpoints(true_scores, supernet: SupernetScores, ks=(10, 50, 100, 500), top_fractions=(0.05,),
                         encodings=None) -> pd.DataFrame:
    """Rows (checkpoint, metric, parameter, value): a1 and its baseline at each k, Spearman and
    Kendall over all architectures and within the true top fractions, and a2 at each k where
    architecture weights exist (needs ``encodings``). A checkpoint that scored only some
    architectures (NaN elsewhere) is judged on those: a1, its baseline k/n and the correlations
    are over the n scored ones (k > n skipped), and a row ``scored`` gives n; a2 stays a
    probability over the whole space."""
    true_scores = np.asarray(true_scores, dtype=float)
    n = len(true_scores)
    rows = []
    for checkpoint, scores in zip(supernet.checkpoints, supernet.scores):
        scored = ~np.isnan(scores)
        truth, scores = true_scores[scored], scores[scored]
        m = int(scored.sum())
        rows.append((checkpoint, "scored", "all", m))
        within = [k for k in ks if k <= m]
        for k, value, baseline in zip(within, id_rate(truth, scores, within), random_baseline(within, m)):
            rows += [(checkpoint, "a1", k, value), (checkpoint, "a1_baseline", k, baseline)]
        for fraction in (None, *top_fractions):
            spearman, kendall = correlations(truth, scores, fraction)
            label = "all" if fraction is None else f"top{fraction:g}"
            rows += [(checkpoint, "spearman", label, spearman), (checkpoint, "kendall", label, kendall)]
        if checkpoint in supernet.arch_weights:
            if encodings is None:
                raise ValueError("cumulative sampling probability needs the architectures' encodings")
            weights = supernet.arch_weights[checkpoint]
            sampler = weights if isinstance(weights, ArchitectureSampler) else IndependentSoftmaxSampler(weights)
            probabilities = sampling_probabilities(sampler, encodings)
            for k, value in zip(ks, cumulative_sampling_probability(true_scores, probabilities, ks)):
                rows += [(checkpoint, "a2", k, value), (checkpoint, "a2_baseline", k, k / n)]
    return pd.DataFrame(rows, columns=["checkpoint", "metric", "parameter", "value"])


def read_scores(path: Path, num_architectures: int, row_of: Callable[[str], int] | None = None,
                complete: bool = True) -> SupernetScores:
    """Scores from a user file (CSV or Parquet): wide (``arch_id`` plus one column per
    checkpoint) or long (``arch_id``, ``checkpoint``, ``score``). Every architecture id
    0..N-1 must appear exactly once per checkpoint; with ``row_of``, an ``arch_id`` may also be
    an architecture's text form (e.g. an NB201 cell string), which ``row_of`` turns into its id.
    Checkpoints keep the file's order; names that are epochs (numbers) place them on the figures'
    epoch axis, other names (``early``, ``final``) are shown in order. With ``complete=False`` a
    checkpoint may score only some architectures (a sample, as ENAS's): the others are NaN, and
    only an architecture that no checkpoint scores is an error."""
    path = Path(path)
    frame = pd.read_parquet(path) if path.suffix in (".parquet", ".pq") else pd.read_csv(path)
    if "arch_id" not in frame.columns:
        raise ValueError(f"{path}: no 'arch_id' column (columns: {', '.join(map(str, frame.columns))})")
    blank = frame["arch_id"].isna().to_numpy()
    if blank.any():  # named by row: "nan" is neither a repeated id nor an architecture's text
        raise ValueError(f"{path}: {int(blank.sum()):,} row(s) without an arch_id (empty or NaN): data row(s) "
                         f"{_some(np.flatnonzero(blank) + 1)} (1 = the first after the header); give each row the "
                         "id or the text of its architecture, or leave the row out")
    if {"checkpoint", "score"} <= set(frame.columns):
        duplicated = frame.duplicated(["arch_id", "checkpoint"])
        if duplicated.any():
            row = frame[duplicated].iloc[0]
            raise ValueError(f"{path}: arch_id {row['arch_id']} appears twice at checkpoint {row['checkpoint']}")
        order = list(dict.fromkeys(frame["checkpoint"]))  # the file's order, not pivot's sorted one
        frame = frame.pivot(index="arch_id", columns="checkpoint", values="score")[order].reset_index()
    elif frame["arch_id"].duplicated().any():
        raise ValueError(f"{path}: arch_id {frame['arch_id'][frame['arch_id'].duplicated()].iloc[0]} appears twice")
    checkpoints = [str(c) for c in frame.columns if c != "arch_id"]
    frame.columns = ["arch_id", *checkpoints]
    ids = pd.to_numeric(frame["arch_id"], errors="coerce")
    if row_of is not None and ids.isna().any():
        ids = ids.astype(object)
        for position in np.flatnonzero(ids.isna().to_numpy()):
            text = str(frame["arch_id"].iloc[position])
            try:
                ids.iloc[position] = int(row_of(text))
            except (ValueError, TypeError, LookupError) as error:
                raise ValueError(f"{path}: arch_id {text!r} is neither an id nor an architecture: {error}") from None
        ids = pd.to_numeric(ids)
        if ids.duplicated().any():
            raise ValueError(f"{path}: architecture {int(ids[ids.duplicated()].iloc[0])} appears twice (as an id and "
                             "as text, or as two texts of the same architecture)")
    _check_ids(path, frame["arch_id"], ids, num_architectures)
    frame = frame.assign(arch_id=ids.astype(int)).sort_values("arch_id")
    scores = _checked_scores(path, frame, checkpoints, complete)
    if not complete:
        full = np.full((len(checkpoints), num_architectures), np.nan)
        full[:, frame["arch_id"].to_numpy()] = scores.to_numpy(dtype=float).T
        return SupernetScores(tuple(checkpoints), full)
    _check_complete(path, frame["arch_id"], num_architectures)
    return SupernetScores(tuple(checkpoints), scores.to_numpy(dtype=float).T)


#: Offending ids named in an error; the rest are counted.
NAMED_IDS = 5


def _some(values) -> str:
    """The first few of ``values`` and how many more there are: ``"3, 7, 9 and 12 more"``."""
    values = list(values)
    named = ", ".join(str(v) for v in values[:NAMED_IDS])
    return named + (f" and {len(values) - NAMED_IDS:,} more" if len(values) > NAMED_IDS else "")


def _check_ids(path: Path, given: pd.Series, ids: pd.Series, n: int) -> None:
    """Refuse ``arch_id`` values that are no architecture id, naming them and the valid range
    0..n-1; ``ids`` are ``given`` as numbers."""
    valid = f"the valid range 0..{n - 1} (the {n:,} architectures of the benchmark)"
    unread = ids.isna().to_numpy()
    if unread.any():
        raise ValueError(f"{path}: arch_id {_some(repr(v) for v in given.to_numpy()[unread])}: not an architecture "
                         f"id (use whole numbers in {valid})")
    numbers = ids.to_numpy(dtype=float)
    outside = (numbers < 0) | (numbers >= n) | (numbers != np.floor(numbers))
    if outside.any():
        bad = sorted(set(numbers[outside].tolist()))
        raise ValueError(f"{path}: {len(bad):,} arch_id value(s) outside {valid}: {_some(f'{v:g}' for v in bad)}")


def _check_complete(path: Path, ids: pd.Series, n: int) -> None:
    """Refuse a file that does not score every architecture 0..n-1, counting the missing ids
    against the rows the file has (checked after the rows' own scores, so that a row with a
    non-finite score is named as such, never counted as an architecture missing)."""
    missing = sorted(set(range(n)) - set(ids.tolist()))
    if missing:
        raise ValueError(f"{path}: {len(missing):,} architecture id(s) missing, e.g. {missing[:NAMED_IDS]} (the file "
                         f"scores {n - len(missing):,} of the {n:,} architectures of the benchmark)")


def _checked_scores(path: Path, frame: pd.DataFrame, checkpoints: list[str], complete: bool) -> pd.DataFrame:
    """The checkpoints' scores as numbers, after refusing (by checkpoint and arch_id) text and a
    non-finite score: infinite (it has no place in a ranking and breaks the correlations) and,
    when ``complete``, NaN or empty too, all of a checkpoint's named and counted by kind in one
    message; a sample (not ``complete``) may leave scores empty, but not every score of
    an architecture it lists."""
    raw = frame[checkpoints]
    scores = raw.apply(pd.to_numeric, errors="coerce")
    ids = frame["arch_id"].to_numpy()
    for column in checkpoints:
        values, given = scores[column].to_numpy(dtype=float), raw[column].notna().to_numpy()
        text = np.isnan(values) & given
        if text.any():
            raise ValueError(f"{path}: checkpoint {column}, arch_id {_some(ids[text])}: not a number")
        kinds = {"empty or NaN": np.isnan(values) & complete, "inf": values == np.inf, "-inf": values == -np.inf}
        non_finite = np.logical_or.reduce(list(kinds.values()))
        if non_finite.any():
            headline = "no score" if np.isnan(values[non_finite]).all() else "not a finite score"
            counted = ", ".join(f"{int(bad.sum()):,} {kind} ({_some(ids[bad])})" for kind, bad in kinds.items()
                                if bad.any())
            raise ValueError(f"{path}: checkpoint {column}, arch_id {_some(ids[non_finite])}: {headline} "
                             f"({int(non_finite.sum()):,} architecture(s): {counted}); a ranking needs a finite "
                             "score of every architecture")
    unscored = scores.isna().all(axis=1).to_numpy()
    if unscored.all():
        raise ValueError(f"{path}: no scores")
    if unscored.any():
        raise ValueError(f"{path}: arch_id {_some(ids[unscored])}: no score at any checkpoint (empty or NaN); "
                         "leave out the architectures a checkpoint did not score")
    return scores
