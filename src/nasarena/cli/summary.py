"""The tables printed by ``nasarena run`` and ``nasarena report`` (one format for both): final regret, and the
share of evaluations answered by modelled values."""

from __future__ import annotations

import pandas as pd
import typer

from ..analysis.regret_basis import UNITS, regret_basis


def print_final_regret(results: pd.DataFrame) -> None:
    """Per benchmark and configuration: runs, mean and median final regret, mean evaluations.

    The configuration column is the report's label (the optimizer name, plus its settings
    hash where one optimizer ran with several settings), so ``run`` and ``report`` name the
    same thing the same way.
    """
    from ..analysis.trajectories import final_results
    from ..plots.summary_tables import final_regret_table

    if results.empty:
        typer.echo("no finished runs")
        return
    final = final_results(results)
    table = final_regret_table(final)
    evaluations = final.groupby(["benchmark", "label"])["evaluations"].mean()
    seconds = final.groupby(["benchmark", "label"])["sim_time"].mean()
    typer.echo(f"final regret of each run's incumbent ({UNITS}); mean evals: evaluations per run, averaged over runs; "
               "mean time: simulated seconds at the last evaluation, averaged likewise (below the budget where an "
               "evaluation cap stopped the runs first)")
    width = max(16, *(len(name) for name in table["label"]))  # labels with a settings hash are 17+ characters
    typer.echo(f"{'benchmark':22s} {'configuration':{width}s} {'runs':>5s} {'mean regret':>12s} {'median regret':>14s} "
               f"{'mean evals':>10s} {'mean time':>10s}")
    for row in table.itertuples():
        key = (row.benchmark, row.label)
        typer.echo(f"{row.benchmark:22s} {row.label:{width}s} {row.runs:5d} {row.mean:12.5f} {row.median:14.5f} "
                   f"{evaluations[key]:10.1f} {seconds[key]:10.3g}")
    for bench in sorted(table["benchmark"].unique()):
        typer.echo(f"{bench}: regret on {regret_basis(bench)}")
    print_modelled_shares(results)


def print_modelled_shares(results: pd.DataFrame) -> None:
    """Per fidelity, the share of each configuration's evaluations answered by modelled accuracies,
    for the configurations that had any (and those whose runs did not record it): a regret on
    modelled values is the model's, and nothing else in the table says how many there were."""
    from ..analysis.modelled import MEANING, modelled_shares, share_text, with_modelled_values

    shares = with_modelled_values(modelled_shares(results))
    if shares.empty:
        return
    typer.echo(f"evaluations answered by modelled values, per fidelity: {MEANING}")
    width = max(16, *(len(name) for name in shares["label"]))
    typer.echo(f"{'benchmark':22s} {'configuration':{width}s} {'fidelity':>8s} {'runs':>5s} {'evaluations':>11s} "
               f"{'valid modelled':>14s} {'test modelled':>13s}")
    for row in shares.itertuples():
        typer.echo(f"{row.benchmark:22s} {row.label:{width}s} {int(row.fidelity):8d} {row.runs:5d} "
                   f"{row.evaluations:11d} {share_text(row.valid_modelled, row.known):>14s} "
                   f"{share_text(row.test_modelled, row.known):>13s}")
