"""``nasarena supernet evaluate``: how well a supernet identifies the best architectures."""

from __future__ import annotations

import json
from pathlib import Path

import typer

app = typer.Typer(help="Evaluate weight-sharing supernets on a tabular benchmark.", no_args_is_help=True)


@app.command()
def evaluate(
    scores: Path = typer.Option(None, help="CSV/Parquet of arch_id + score per checkpoint (default: the embedded "
                                            "GDAS supernet on NB201 CIFAR-10)."),
    weights: Path = typer.Option(None, help="JSON {checkpoint: [[logit per op] per edge]} of architecture weights."),
    benchmark: str = typer.Option("nb201-cifar10", help="Tabular benchmark giving the true accuracies."),
    out: Path = typer.Option(Path("supernet-report"), help="Directory for metrics.csv, figures and report.html."),
    ks: str = typer.Option("10,50,100,500", help="Thresholds k of the top-architecture ID rate."),
    cluster_threshold: float = typer.Option(3.0, help="Dendrogram cut (distance = ops that differ)."),
) -> None:
    """ID rate a1(k) per checkpoint vs the random baseline, correlations, sampling mass, clusters."""
    import numpy as np

    from ..analysis.supernet import SupernetScores, evaluate_checkpoints, read_scores
    from ..benchmarks import benchmark as load_benchmark
    from ..supernet_report import embedded_gdas_scores, write_supernet_report

    bench = load_benchmark(benchmark)
    true = bench.mean_over_trials(bench.regret_metric)
    try:
        supernet = embedded_gdas_scores() if scores is None else read_scores(scores, len(true))
        if weights is not None:
            raw = json.loads(weights.read_text())
            supernet = SupernetScores(supernet.checkpoints, supernet.scores,
                                      {str(c): np.asarray(w, dtype=float) for c, w in raw.items()})
        thresholds = [int(k) for k in ks.split(",")]
    except (OSError, ValueError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    encodings = np.array([bench.space.encode(c, "op_indices") for c in bench.space.enumerate()]) \
        if supernet.arch_weights else None
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
