"""``nasarena report``: figures and a self-contained HTML report of a results directory."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer

from ..errors import DataFileError, InvalidSettingError, OutputError


def parse_pairs(items: list[str]) -> list[tuple[str, str]]:
    """``["re:rs"]`` -> ``[("re", "rs")]``."""
    pairs = []
    for item in items:
        a, separator, b = (part.strip() for part in item.partition(":"))
        if not separator or not a or not b:
            raise InvalidSettingError(f"bad --pairs item {item!r}; use A:B with two configurations, e.g. re:rs "
                                      "(several comma-separated)")
        pairs.append((a, b))
    return pairs


def parse_levels(text: str) -> list[float]:
    """``"25,50,75"`` -> ``[25.0, 50.0, 75.0]``, each above 0 and at most 100."""
    from .vocabulary import split

    try:
        levels = [float(item) for item in split(text)]
    except ValueError:
        raise InvalidSettingError(f"--levels {text!r}: use comma-separated percentages, e.g. 25,50,75") from None
    if not levels or any(not 0 < value <= 100 for value in levels):
        raise InvalidSettingError(f"--levels {text}: levels are percentages above 0 and at most 100")
    return levels


def report_command(
    results_dir: Path = typer.Argument(..., help="Results directory of `nasarena run` (with runs/ and settings.json)."),
    out: Path = typer.Option(Path("report"), help="Folder for report.html and figures/ (PNG and PDF): new, empty, or "
                                                  "a report of the same results directory (redrawn)."),
    pairs: str = typer.Option(None, help="EAF difference pairs A:B of configurations, comma-separated, e.g. "
                                         "re:rs,bananas:rs (default: the best against the next three)."),
    old_pair: list[str] = typer.Option([], "--pair", hidden=True, help="Old name of --pairs."),
    levels: str = typer.Option("50", help="Attainment surface levels in %, comma-separated, each above 0 and at most "
                                          "100, e.g. 25,50,75."),
    old_level: list[str] = typer.Option([], "--level", hidden=True, help="Old name of --levels."),
    subsample: int = typer.Option(0, help="Runs in the subsampled ECDF (0: 20, or half the runs when fewer)."),
) -> None:
    """Write every figure (PNG and PDF) and one self-contained report.html for an experiment.

    Prints the final-regret table (the same one as `nasarena run`). The results folder is only
    read, so a finished, read-only one can be reported. --out holds the report of one results
    folder: it is written only when it is new, empty or a report of the same results folder, which
    is redrawn (with any --pairs, --levels, --subsample; the figures of the earlier drawing that this
    one does not draw are removed). A report of other results is refused, and so is a second
    report with other options while the first is being drawn.
    """
    from ..analysis.trajectories import RUN_KEYS
    from ..io.outputs import writer_lock
    from ..plots.report import EARLIER_OUTPUT, REPORT_FILE, with_incumbent, write_report
    from ..plots.staging import owned_output
    from ..runner.experiment import load_results
    from .progress import spinner
    from .summary import print_final_regret
    from .vocabulary import plural, split

    if not results_dir.is_dir():
        raise DataFileError(f"results directory {results_dir} does not exist (give the --out folder of `nasarena run`)")
    level = parse_levels(plural(levels, old_level, "--level", "--levels", "levels", "25,75"))
    if subsample < 0:
        raise InvalidSettingError(f"--subsample must be 0 (automatic) or a number of runs >= 2, got {subsample}")
    pairs = parse_pairs(split(plural(pairs, old_pair, "--pair", "--pairs", "pairs", "re:rs,bananas:rs") or "")) or None
    inputs = {"results": str(results_dir.resolve())}  # what the folder is a report of
    drawing = {**inputs, "pairs": pairs, "levels": level, "subsample": subsample}
    with owned_output(out, "report", inputs, recognised=EARLIER_OUTPUT), writer_lock(out / REPORT_FILE, drawing):
        try:
            with spinner(f"reading {results_dir} and drawing the report"):
                report = write_report(results_dir, out, pairs=pairs, levels=level, k_subsample=subsample or None,
                                      command=shlex.join(["nasarena", *sys.argv[1:]]))
        except ImportError as error:
            raise InvalidSettingError(f"the report needs matplotlib: {error}") from None
        except PermissionError as error:
            raise OutputError(f"cannot write the report to {out}: {error.strerror} ({error.filename or out})") from None
        except OSError as error:
            if error.errno is not None:  # a disk's word (full, read-only), not a reader's complaint about a file
                raise OutputError(f"cannot write the report to {out}: {error.strerror or error}") from None
            raise
        except ValueError as error:  # nothing finished, or a pair naming an unknown configuration
            if isinstance(error, DataFileError):
                raise
            raise InvalidSettingError(str(error)) from None
    typer.echo(f"report: {report}")
    results = load_results(results_dir)
    scored = with_incumbent(results)
    if scored.all():
        print_final_regret(results)
        return
    if scored.any():
        print_final_regret(results[scored])
    lacking = results.loc[~scored, RUN_KEYS].drop_duplicates()
    typer.echo(f"{len(lacking)} run(s) without an incumbent (no evaluation met the constraint) are left out of "
               "the final regret: see the report")
