"""``nasarena supernet evaluate``: how well a supernet identifies the best architectures."""

from __future__ import annotations

import json
import math
from pathlib import Path

import typer
from rich.markup import escape

from ..errors import DataFileError, InvalidSettingError

app = typer.Typer(help="Evaluate weight-sharing supernets on a tabular benchmark.", no_args_is_help=True)


@app.command()
def evaluate(
    scores: Path = typer.Option(None, help="CSV/Parquet of arch_id (an id or the architecture's text, e.g. an "
                                            "NB201 cell string) + one score column per checkpoint, named by its "
                                            "epoch (default: the embedded GDAS supernet on NB201 CIFAR-10)."),
    weights: Path = typer.Option(None, help=escape("JSON {checkpoint: [[logit per op] per edge]} of architecture "
                                                   "weights.")),
    benchmark: str = typer.Option("nb201-cifar10", help="Tabular benchmark giving the true accuracies."),
    out: Path = typer.Option(Path("supernet-report"), help="Directory for metrics.csv, figures and report.html."),
    ks: str = typer.Option("10,50,100,500", help="Thresholds k of the top-architecture ID rate."),
    cluster_threshold: float = typer.Option(3.0, help="Dendrogram cut (distance = ops that differ)."),
) -> None:
    """ID rate a1(k) per checkpoint vs the random baseline, correlations, sampling mass, clusters."""
    import numpy as np

    from ..analysis.supernet import evaluate_checkpoints, read_scores
    from ..benchmarks import benchmark as load_benchmark
    from ..plots.supernet_report import embedded_gdas_scores, write_supernet_report
    from .progress import spinner

    thresholds = _thresholds(ks)
    if not math.isfinite(cluster_threshold) or cluster_threshold <= 0:
        raise InvalidSettingError(f"--cluster-threshold must be a number of differing ops > 0, got {cluster_threshold}")
    with spinner(f"loading {benchmark}"):
        bench = load_benchmark(benchmark)
    if not hasattr(bench, "mean_over_trials"):
        raise InvalidSettingError(f"--benchmark {benchmark}: a supernet is evaluated against a tabular benchmark "
                                  "(true accuracies of every architecture), not a surrogate")
    if getattr(bench.space, "name", "") != "nb201":
        raise InvalidSettingError(f"--benchmark {benchmark}: supernet evaluation clusters architectures by the op on "
                                  "each edge, which needs a NAS-Bench-201 benchmark (nb201-cifar10, nb201-cifar100, "
                                  "nb201-imagenet16-120)")
    true = bench.mean_over_trials(bench.regret_metric)
    if max(thresholds) > len(true):
        raise InvalidSettingError(f"--ks {ks}: k must be at most the {len(true):,} architectures of {bench.name}")
    try:
        supernet = embedded_gdas_scores() if scores is None else \
            read_scores(scores, len(true), row_of=lambda text: int(bench.rows([text])[0]))
    except OSError as error:
        raise DataFileError(f"--scores {scores}: cannot read it ({error.strerror or error})") from None
    except ValueError as error:  # read_scores names the file and what is wrong in it
        raise DataFileError(str(error)) from None
    if weights is not None:
        supernet = _with_weights(supernet, weights)
    encodings = np.array([bench.space.encode(c, "op_indices") for c in bench.space.enumerate()]) \
        if supernet.arch_weights else None
    with spinner("evaluating checkpoints and writing the report"):
        metrics = evaluate_checkpoints(true, supernet, thresholds, encodings=encodings)
        report = write_supernet_report(true, supernet, metrics, bench, out, thresholds, cluster_threshold)
    last = supernet.checkpoints[-1]
    final = metrics[metrics["checkpoint"] == last]
    typer.echo(f"checkpoint {last}:  k   a1(k)    random k/N")
    for k in thresholds:
        a1 = final[(final.metric == "a1") & (final.parameter == k)]["value"].iloc[0]
        typer.echo(f"{k:>18d}   {a1:.4f}   {k / len(true):.5f}")
    spearman = metrics[(metrics.metric == "spearman") & (metrics.parameter == "all")]
    typer.echo("Spearman per checkpoint: " + ", ".join(f"{c}: {v:+.3f}" for c, v in zip(spearman.checkpoint,
                                                                                      spearman.value)))
    typer.echo(f"report: {report}")


def _thresholds(text: str) -> list[int]:
    try:
        values = [int(k) for k in text.split(",")]
    except ValueError:
        raise InvalidSettingError(f"--ks {text!r}: use comma-separated integers, e.g. 10,50,100") from None
    if not values or min(values) < 1:
        raise InvalidSettingError(f"--ks {text!r}: every k must be at least 1")
    return values


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
