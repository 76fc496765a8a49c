"""``nasarena supernet evaluate``: how well a supernet identifies the best architectures."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from ..errors import DataFileError, InvalidSettingError

if TYPE_CHECKING:
    import numpy as np

app = typer.Typer(help="Evaluate weight-sharing supernets on a tabular benchmark.", no_args_is_help=True)
#: The file by which a folder of this command is known (also one written before nasarena marked its folders).
CLUSTERS_FILE = "clusters.csv"


@app.command()
def evaluate(
    scores: Path = typer.Option(None, help="CSV/Parquet of arch_id (an id or the architecture's text, e.g. an "
                                            "NB201 cell string or a one-shot architecture) + one score column per "
                                            "checkpoint, named by its epoch, or long (arch_id, checkpoint, score) "
                                            "as 'nasarena oneshot correlate' writes (default: the embedded GDAS "
                                            "supernet on NB201 CIFAR-10)."),
    weights: Path = typer.Option(None, help=escape("JSON {checkpoint: [[logit per op] per edge]} of architecture "
                                                   "weights; for a NAS-Bench-1Shot1 space a run's weights/ "
                                                   "folder.")),
    benchmark: str = typer.Option("nb201-cifar10", help="Tabular benchmark giving the true accuracies (NB201, "
                                                        "or nb1shot1-1/2/3 over nb101-noisy)."),
    out: Path = typer.Option(Path("supernet-report"), help="Directory for metrics.csv, figures and report.html: "
                                                           "new, empty, or one this command wrote."),
    ks: str = typer.Option("10,50,100,500", help="Thresholds k of the top-architecture ID rate."),
    cluster_threshold: float = typer.Option(3.0, help="Dendrogram cut (distance = ops that differ)."),
) -> None:
    """ID rate a1(k) per checkpoint vs the random baseline, correlations, sampling mass, clusters."""
    import pandas as pd

    from ..analysis.supernet import evaluate_checkpoints, read_scores
    from ..benchmarks import benchmark as load_benchmark
    from ..plots.staging import owned_output
    from ..plots.supernet_report import format_correlation, last_checkpoint_table, write_supernet_report
    from .progress import spinner

    thresholds = _thresholds(ks)
    if not math.isfinite(cluster_threshold) or cluster_threshold <= 0:
        raise InvalidSettingError(f"--cluster-threshold must be a number of differing ops > 0, got {cluster_threshold}")
    with spinner(f"loading {benchmark}"):
        bench = load_benchmark(benchmark)
    if not hasattr(bench, "mean_over_trials") and not hasattr(bench, "nb101"):  # a one-shot space is over NB101
        raise InvalidSettingError(f"--benchmark {benchmark}: a supernet is evaluated against a tabular benchmark "
                                  "(true accuracies of every architecture), not a surrogate")
    truth = supernet_truth(bench, benchmark)
    if truth.embedded is None and scores is None:
        raise InvalidSettingError(f"--benchmark {benchmark}: give --scores (e.g. the scores.csv that 'nasarena oneshot "
                                  "correlate' writes into a run); the embedded supernet is an NB201 one")
    true, all_encodings = truth.true, truth.encodings
    if max(thresholds) > len(true):
        raise InvalidSettingError(f"--ks {ks}: k must be at most the {len(true):,} architectures of {bench.name}")
    try:
        supernet = truth.embedded() if scores is None else \
            read_scores(scores, len(true), row_of=truth.row_of, complete=truth.complete)
    except OSError as error:
        raise DataFileError(f"--scores {scores}: cannot read it ({error.strerror or error})") from None
    except ValueError as error:  # read_scores names the file and what is wrong in it
        raise DataFileError(str(error)) from None
    if weights is not None:
        supernet = truth.with_weights(supernet, weights)
    encodings = all_encodings if supernet.arch_weights else None
    with owned_output(out, "supernet evaluate", recognised=(CLUSTERS_FILE,)), \
            spinner("evaluating checkpoints and writing the report"):
        metrics = evaluate_checkpoints(true, supernet, thresholds, encodings=encodings)
        report = write_supernet_report(true, supernet, metrics, bench, out, thresholds, cluster_threshold,
                                       encodings=all_encodings)
    last = supernet.checkpoints[-1]
    final = metrics[metrics["checkpoint"] == last]
    scored = int(final[final.metric == "scored"]["value"].iloc[0])
    among = ", a1 among them" if scored < len(true) else ""
    typer.echo(f"checkpoint {last} ({scored:,} of {len(true):,} architectures scored{among}):")
    header, rows = last_checkpoint_table(final, thresholds, len(true))
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for line in [header, *rows]:
        typer.echo("  " + "  ".join(f"{str(cell):>{w}}" for cell, w in zip(line, widths)).rstrip())
    for metric in ("spearman", "kendall"):
        values = metrics[(metrics.metric == metric) & (metrics.parameter == "all")]
        typer.echo(f"{metric.capitalize()} per checkpoint: " + ", ".join(
            f"{c}: {format_correlation(v)}" for c, v in zip(values.checkpoint, values.value)))
    groups = pd.read_csv(Path(out) / CLUSTERS_FILE)
    judged = groups.dropna(subset=["mean_supernet"])
    typer.echo(f"clusters: {len(groups):,} of {int(groups['size'].sum()):,} architectures (cut at "
               f"{cluster_threshold:g} differing choices), {len(judged):,} with supernet scores"
               + (f"; Spearman of the cluster means {_cluster_spearman(judged)}" if len(judged) >= 2 else "")
               + f" ({Path(out) / CLUSTERS_FILE})")
    typer.echo(f"report: {report}")


def _cluster_spearman(judged) -> str:
    """Spearman of the clusters' mean true accuracy against their mean supernet score, as text."""
    from ..analysis.supernet import correlations
    from ..plots.supernet_report import format_correlation

    return format_correlation(correlations(judged["mean_true"], judged["mean_supernet"])[0])


#: The space capability (:mod:`nasarena.spaces.protocol`) naming a space's :class:`SupernetTruth` maker.
CAPABILITY = "supernet_truth"


@dataclass(frozen=True)
class SupernetTruth:
    """What a supernet's scores are judged against on a benchmark of one space, made by the
    function its space declares as ``supernet_truth`` (:func:`table_truth`, :func:`oneshot_truth`):
    the command never asks which space it is."""

    #: The true accuracy of every architecture, by row.
    true: np.ndarray
    #: The row of an architecture given as text (``arch_id`` of a scores file).
    row_of: Callable[[str], int]
    #: The choices of every architecture, by row (clusters; a2(k) from architecture weights).
    encodings: np.ndarray
    #: Whether a scores file must score every architecture (a one-shot run scores a sample).
    complete: bool
    #: The embedded supernet's scores used without ``--scores`` (None: the space has none).
    embedded: Callable[[], object] | None
    #: The scores with the architecture weights of ``--weights`` added.
    with_weights: Callable[[object, Path], object]


def supernet_truth(bench, benchmark: str) -> SupernetTruth:
    """The truth of ``bench``'s space, from the capability the space declares; a benchmark of a
    space without it is refused, naming the spaces that have it."""
    from ..spaces.protocol import resolve
    from ..spaces.registry import spaces_with

    make = getattr(bench.space, CAPABILITY, None)
    if make is None:
        raise InvalidSettingError(f"--benchmark {benchmark}: supernet evaluation clusters architectures by their "
                                  f"choices, which needs a tabular benchmark of the spaces {', '.join(spaces_with(CAPABILITY))}"
                                  " (a NAS-Bench-201 benchmark: nb201-cifar10, nb201-cifar100, nb201-imagenet16-120; "
                                  "or a NAS-Bench-1Shot1 space: nb1shot1-1, -2, -3)")
    return resolve(make)(bench)


def table_truth(bench) -> SupernetTruth:
    """A whole table (NAS-Bench-201): the regret metric's mean over trials, rows of the table, every
    architecture scored, the embedded GDAS supernet by default, weights as JSON logits per edge."""
    import numpy as np

    from ..plots.supernet_report import embedded_gdas_scores

    encodings = np.array([bench.space.encode(cell, "op_indices") for cell in bench.space.enumerate()])
    return SupernetTruth(bench.mean_over_trials(bench.regret_metric), lambda text: int(bench.rows([text])[0]),
                         encodings, True, embedded_gdas_scores, _with_weights)


def oneshot_truth(bench) -> SupernetTruth:
    """A NAS-Bench-1Shot1 space: the authors' set without loose ends, rows as
    :func:`~nasarena.spaces.oneshot.positions.position` numbers them, a sample may be scored,
    weights from a run's ``weights/`` folder."""
    from ..benchmarks.oneshot import oneshot_accuracies
    from ..spaces.oneshot.positions import position
    from ..studies.oneshot_correlation import choice_encodings

    space = bench.space.name
    return SupernetTruth(oneshot_accuracies(space, bench, loose_ends=False), position, choice_encodings(space), False,
                         None, lambda supernet, path: _with_oneshot_weights(supernet, path, space))


def _thresholds(text: str) -> list[int]:
    try:
        values = [int(k) for k in text.split(",")]
    except ValueError:
        raise InvalidSettingError(f"--ks {text!r}: use comma-separated integers, e.g. 10,50,100") from None
    if not values or min(values) < 1:
        raise InvalidSettingError(f"--ks {text!r}: every k must be at least 1")
    return values


def _with_oneshot_weights(supernet, path: Path, space: str):
    """The scores with the samplers of a one-shot run's ``weights/epoch-NNN.npz`` (a folder of them,
    matched to checkpoints by epoch)."""
    from dataclasses import replace

    from ..oneshot.run import read_weights
    from ..studies.oneshot_correlation import choice_sampler

    if not path.is_dir():
        raise DataFileError(f"--weights {path}: for a NAS-Bench-1Shot1 space, give a run's weights folder "
                            "(weights/epoch-NNN.npz)")
    samplers = {}
    for checkpoint in supernet.checkpoints:
        file = path / f"epoch-{int(float(checkpoint)):03d}.npz" if checkpoint.replace(".", "").isdigit() else None
        if file is not None and file.exists():
            try:
                samplers[checkpoint] = choice_sampler(space, read_weights(file))
            except (OSError, ValueError, KeyError, IndexError) as error:
                raise DataFileError(f"--weights {file}: not architecture weights of {space} ({error})") from None
    if not samplers:
        raise DataFileError(f"--weights {path}: no epoch-NNN.npz for the checkpoints {', '.join(supernet.checkpoints)}")
    return replace(supernet, arch_weights=samplers)


def _with_weights(supernet, path: Path):
    """The scores with the architecture weights of a JSON file {checkpoint: [[logit per op] per edge]}."""
    import numpy as np

    from ..analysis.supernet import SupernetScores

    try:
        raw = json.loads(path.read_text())
        if not isinstance(raw, dict):
            raise ValueError("expected a JSON object {checkpoint: [[logit per op] per edge]}")
        return SupernetScores(supernet.checkpoints, supernet.scores,
                              {str(c): np.asarray(w, dtype=float) for c, w in raw.items()})
    except (OSError, ValueError, TypeError) as error:
        raise DataFileError(f"--weights {path}: {error}") from None
