"""The final rows of a block's expensive runs, saved in the repository so that no run is made twice.

Why: the anytime paper's Table I needs 240 runs of 1e7 simulated seconds, and SMAC's in the
cached setups take half an hour of CPU each: tens of CPU hours, more than one sitting of a
2-core machine, while a results folder does not outlive the machine it was written on. The table
reads only each run's last evaluation (its final incumbent regret), so such a block keeps those
rows in ``docs/reproduce/data/<name>-runs.csv``: one row per run, kilobytes in all, with the
nasarena version and commit that saved it. Regenerating the block makes only the runs without a
saved row (resumably, in its results folder, where a run in progress also keeps a checkpoint:
:mod:`nasarena.runner.checkpoint`) and saves each one as it finishes; a run already in the
results folder is saved without being made again.

The contract of a saved-runs file: a CSV with one row per run, ``run`` (the run file's name:
benchmark, optimizer, settings hash and seed, so other settings are other runs), the columns of
:data:`COLUMNS` from the run's last evaluation (floats with 17 significant digits: read back
bit for bit) and ``version``, ``commit`` and ``machine`` (CPU model and cores: since SMAC's
exp and log are the C library's, :mod:`nasarena.optimizers.portable_math`, the machine no longer
moves a row, and the column lets anyone check that; rows saved before it existed say
:data:`UNRECORDED`). Rows are only added, never replaced. A code change
that keeps the settings but moves results is what the block's cheap check catches; to make the
saved runs again on today's code, delete the file.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ...analysis.trajectories import RUN_KEYS, final_results
from ...errors import DataFileError, OutputError
from ...io.claims import held
from ...io.files import atomic_write_bytes
from ...runner.experiment import RunSpec, load_results, pending, run_experiment
from ...version import __version__
from .common import SAVED_DATA, seed_by_seed
from .provenance import commit, machine

#: What a saved row holds of the run's last evaluation: what Table I and its tests read.
COLUMNS = (*RUN_KEYS, "setup", "evaluation", "sim_time", "incumbent_test_regret", "incumbent_valid_accuracy")
SAVED_BY = ("version", "commit", "machine")
#: The machine of the rows saved before the column existed (the first 80 runs of Table I).
UNRECORDED = "not recorded"
_TEXT = {"run": str, "benchmark": str, "optimizer": str, "settings_hash": str, "setup": str, "version": str,
         "commit": str, "machine": str}


def saved_path(name: str, directory: Path | None = None) -> Path:
    """The saved-runs file of ``name`` (e.g. ``anytime-table-i``)."""
    return Path(directory or SAVED_DATA) / f"{name}-runs.csv"


def read_saved(path: Path) -> pd.DataFrame:
    """The saved rows of ``path`` (none when the file does not exist yet); a damaged file (a row
    with an empty field, as a cut-off last line leaves, or a run saved twice) is a
    :class:`DataFileError` naming it and the line."""
    path = Path(path)
    columns = ["run", *COLUMNS, *SAVED_BY]
    if not path.is_file():
        return pd.DataFrame({column: pd.Series(dtype=_TEXT.get(column, float)) for column in columns})
    try:
        frame = pd.read_csv(path, dtype=_TEXT, float_precision="round_trip")
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise DataFileError(f"{path} is not a readable saved-runs file ({error}); restore it from git") from None
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise DataFileError(f"{path} is not a saved-runs file: it lacks the columns {', '.join(missing)}")
    incomplete = frame[columns].isna().any(axis=1)
    if incomplete.any():  # a cut or edited line: pandas would read its missing fields as empty
        line = int(incomplete.to_numpy().argmax()) + 2  # 1-based, after the header
        raise DataFileError(f"{path}: line {line} (run {frame['run'].iloc[line - 2]}) lacks values of "
                            f"{', '.join(column for column in columns if pd.isna(frame[column].iloc[line - 2]))}; "
                            "restore the file from git")
    if frame["run"].duplicated().any():
        raise DataFileError(f"{path} saves run {frame.loc[frame['run'].duplicated(), 'run'].iloc[0]} twice")
    return frame[columns]


def unsaved(specs: Sequence[RunSpec], path: Path) -> list[RunSpec]:
    """The runs of ``specs`` without a saved row in ``path``, in their order."""
    saved = set(read_saved(path)["run"])
    return [spec for spec in specs if spec.file_name not in saved]


def save_finished(specs: Sequence[RunSpec], results: Path, path: Path) -> int:
    """Save the rows of the runs of ``specs`` that are finished in ``results`` but not yet in
    ``path``; returns how many were added."""
    missing = unsaved(specs, path)
    open_runs = {spec.file_name for spec in pending(missing, results)}
    finished = [spec for spec in missing if spec.file_name not in open_runs]
    if not finished:
        return 0
    rows = final_results(load_results(results, finished))
    names = {(spec.benchmark, spec.optimizer, spec.settings_hash, spec.seed): spec.file_name for spec in finished}
    rows.insert(0, "run", [names[key] for key in rows[RUN_KEYS].itertuples(index=False, name=None)])
    return _add(path, rows)


def final_rows(specs: Sequence[RunSpec], results: Path, jobs: int, path: Path) -> pd.DataFrame:
    """The final rows of ``specs``: the saved ones as saved, the others made (or resumed) in
    ``results`` and saved as each finishes. One row per run, with the columns of :data:`COLUMNS`."""
    save_finished(specs, results, path)
    missing = seed_by_seed(unsaved(specs, path))
    if missing:
        run_experiment(missing, results, jobs=jobs, on_finished=lambda spec: save_finished([spec], results, path))
    rows = read_saved(path)
    wanted = {spec.file_name for spec in specs}
    return rows[rows["run"].isin(wanted)].reset_index(drop=True)


def commits(rows: pd.DataFrame) -> list[str]:
    """The commits that saved ``rows``, oldest row first, each once."""
    return list(dict.fromkeys(rows["commit"]))


def machines(rows: pd.DataFrame) -> str:
    """The machines that made ``rows``, with their run counts, most runs first: ``"AMD EPYC 7B13,
    2 cores (40 runs); not recorded (68 runs)"``."""
    counts = rows["machine"].value_counts(sort=False).sort_values(ascending=False, kind="stable")
    return "; ".join(f"{name} ({count} run{'s' if count > 1 else ''})" for name, count in counts.items())


def _add(path: Path, rows: pd.DataFrame) -> int:
    """Merge ``rows`` into ``path`` under a claim (two processes never drop each other's rows),
    written to a temporary sibling and swapped in."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"cannot create {path.parent}: {error.strerror or error}") from None
    with held(path.parent, path.name):
        before = read_saved(path)
        new = rows[~rows["run"].isin(set(before["run"]))].assign(version=__version__, commit=commit(),
                                                                  machine=machine())
        if new.empty:
            return 0
        merged = pd.concat([before, new[before.columns]], ignore_index=True) if len(before) else new[before.columns]
        merged = merged.sort_values("run", ignore_index=True)
        text = io.StringIO()
        merged.to_csv(text, index=False, float_format="%.17g")
        atomic_write_bytes(path, text.getvalue().encode())
        return len(new)
