"""Issue 38, point 6: every run records which accuracies of each evaluation were modelled, and
the run summary and the report say what share of each configuration's evaluations (per fidelity)
were; the nb101-noisy card says its 0.9432 bound is imposed; the NB-1Shot1 page quotes the paper."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import nasarena
from nasarena.analysis.modelled import modelled_shares, share_text, with_modelled_values
from nasarena.cli.main import app
from nasarena.optimizers.base import make
from nasarena.runner.experiment import REQUIRED_COLUMNS, RUNS_DIR, grid, load_results, run_experiment
from nasarena.runner.protocol import MODELLED_COLUMNS, Budget, RunSettings, run, settings_hash

ROOT = Path(__file__).resolve().parents[1]
PAPER = Path("/work/shared/papers/nas-bench-1shot1.txt")


class Recording:
    """A benchmark that keeps every Result it answers, in order (one worker, no caching: one per row)."""

    def __init__(self, benchmark):
        self.benchmark, self.results = benchmark, []

    def __getattr__(self, name):
        return getattr(self.benchmark, name)

    def query(self, *args, **options):
        result = self.benchmark.query(*args, **options)
        self.results.append(result)
        return result


@pytest.fixture(scope="module")
def noisy():
    return nasarena.benchmark("nb101-noisy")


@pytest.fixture(scope="module")
def oneshot_hb():
    """(trajectory, results) of a small Hyperband run on nb1shot1-1 (over nb101-noisy)."""
    bench = Recording(nasarena.benchmark("nb1shot1-1"))
    optimizer = make("hb", bench.space, seed=0, fidelities=bench.fidelities)
    frame = run(bench, optimizer, Budget(seconds=1e5), seed=0, benchmark_name="nb1shot1-1")
    return frame, bench.results


def _flags(results) -> np.ndarray:
    return np.array([("valid_accuracy" in r.modelled, "test_accuracy" in r.modelled) for r in results])


def test_a_run_on_nb101_noisy_records_each_results_modelled_accuracies(noisy):
    bench = Recording(noisy)
    frame = run(bench, make("hb", bench.space, seed=1, fidelities=bench.fidelities), Budget(seconds=2e5), seed=1)
    assert len(frame) == len(bench.results) > 100
    assert np.array_equal(frame["fidelity"], [r.fidelity for r in bench.results])
    recorded = frame[list(MODELLED_COLUMNS)].to_numpy()
    assert frame["valid_modelled"].dtype == bool and frame["test_modelled"].dtype == bool
    assert np.array_equal(recorded, _flags(bench.results))
    assert recorded[:, 0].any() and not recorded[:, 0].all()  # real slice trials beside modelled ones
    at_108 = frame["fidelity"] == 108
    assert recorded[at_108, 1].any() and not recorded[at_108, 1].all()  # trial 0's test is real


def test_the_shares_per_fidelity_of_a_small_hb_run_on_nb1shot1_are_a_recount_of_its_results(oneshot_hb):
    frame, results = oneshot_hb
    shares = modelled_shares(frame).set_index("fidelity")
    assert list(shares.index) == sorted({r.fidelity for r in results}) and len(shares) > 1
    for fidelity, row in shares.iterrows():
        at = [r for r in results if r.fidelity == fidelity]
        tested = [r for r in at if not np.isnan(r.test_accuracy)]
        assert row["known"] and row["runs"] == 1 and row["evaluations"] == len(at)
        assert row["valid_modelled"] == pytest.approx(np.mean(["valid_accuracy" in r.modelled for r in at]))
        if tested:
            assert row["test_modelled"] == pytest.approx(np.mean(["test_accuracy" in r.modelled for r in tested]))
        else:  # no test accuracy below 108 epochs: no share, not a share of zero
            assert np.isnan(row["test_modelled"]) and share_text(row["test_modelled"], True) == "-"
    assert shares.loc[4, "valid_modelled"] > 0.5  # most low-budget evaluations are the model's


def test_nasarena_run_prints_the_shares_it_recounts(tmp_path):
    out = tmp_path / "hb"
    done = CliRunner().invoke(app, ["run", "--benchmarks", "nb1shot1-1", "--optimizers", "hb", "--seeds", "0",
                                    "--budget", "1e5", "--jobs", "1", "--out", str(out)])
    assert done.exit_code == 0, done.output
    shares = modelled_shares(load_results(out))
    lines = done.output.splitlines()
    header = next(i for i, line in enumerate(lines) if "valid modelled" in line)
    assert "evaluations answered by modelled values" in lines[header - 1]
    printed = [line.split() for line in lines[header + 1:header + 1 + len(shares)]]
    assert [(int(p[2]), p[5], p[6]) for p in printed] == [
        (row.fidelity, share_text(row.valid_modelled, True), share_text(row.test_modelled, True))
        for row in shares.itertuples()]


def test_a_benchmark_without_modelled_accuracies_is_not_mentioned():
    bench = nasarena.benchmark("nb201-cifar10")
    frame = run(bench, make("rs", bench.space, seed=0), Budget(evaluations=30), seed=0)
    assert not frame[list(MODELLED_COLUMNS)].to_numpy().any()
    shares = modelled_shares(frame)
    assert (shares["valid_modelled"] == 0).all() and with_modelled_values(shares).empty


def test_a_folder_written_without_the_columns_loads_and_says_unknown(tmp_path):
    """Run files of earlier versions have no flags: still run files, not resumed, shares unknown."""
    from nasarena.cli.summary import print_final_regret
    from nasarena.plots.report import write_report

    out = tmp_path / "old"
    specs = grid(["nb101-noisy"], ["rs", "re"], range(2), Budget(seconds=2e4))
    run_experiment(specs, out, jobs=1)
    old = [path for path in (out / RUNS_DIR).glob("*.parquet") if "__rs__" in path.name]
    for path in old:  # as written before issue 38
        pd.read_parquet(path).drop(columns=list(MODELLED_COLUMNS)).to_parquet(path)
    assert not set(MODELLED_COLUMNS) & REQUIRED_COLUMNS
    assert run_experiment(specs, out, jobs=1) == []  # finished runs, neither recomputed nor set aside
    results = load_results(out)
    shares = modelled_shares(results)
    assert not shares.loc[shares["label"] == "rs", "known"].any()
    assert shares.loc[shares["label"] == "rs", ["valid_modelled", "test_modelled"]].isna().all().all()
    assert shares.loc[shares["label"] == "re", "known"].all() and (shares["label"] == "re").any()
    lines = []
    import typer
    original = typer.echo
    try:
        typer.echo = lambda text="", **kwargs: lines.append(str(text))
        print_final_regret(results)
    finally:
        typer.echo = original
    rs_rows = [line.split() for line in lines if line.split()[:2] == ["nb101-noisy", "rs"] and "unknown" in line]
    assert rs_rows and all(row[-2:] == ["unknown", "unknown"] for row in rs_rows)
    pytest.importorskip("matplotlib")
    page = write_report(out, tmp_path / "report").read_text()
    table = page[page.index("Evaluations answered by modelled values"):]
    table = table[:table.index("</table>")]
    cell = r"<td[^>]*>[^<]*</td>"
    assert re.search(rf"<tr><td>nb101-noisy</td><td>rs</td>(?:{cell}){{3}}<td[^>]*>unknown</td><td[^>]*>unknown</td>",
                     table)
    assert "runs written before nasarena recorded which values were modelled" in table


def test_settings_hashes_and_required_columns_are_unchanged(noisy):
    frame = run(noisy, make("rs", noisy.space, seed=0), Budget(seconds=1e7), seed=0)
    assert set(frame["settings_hash"]) == {settings_hash("rs", {}, RunSettings(), Budget(seconds=1e7))} \
        == {"3a68933438"}
    assert set(MODELLED_COLUMNS) <= set(frame.columns)
    assert REQUIRED_COLUMNS == frozenset({
        "benchmark", "optimizer", "settings_hash", "seed", "evaluation", "sim_time", "arch_id", "fidelity",
        "valid_accuracy", "test_accuracy", "incumbent_id", "incumbent_valid_accuracy", "incumbent_test_regret"})


def test_the_noisy_card_and_optimum_say_the_paper_best_mean_is_imposed(noisy):
    modelled = noisy.describe().modelled
    assert f"optimum {noisy.optimum():.4f}" in modelled
    assert "imposed, not a validation" in modelled and "conditioned" in modelled
    doc = " ".join(type(noisy).optimum.__doc__.split())
    assert "0.9432" in doc and "imposed" in doc and "no validation" in doc


def test_the_nb1shot1_page_quotes_the_paper_and_uses_the_share_of_evaluations():
    page = " ".join((ROOT / "docs/reproduce/nas-bench-1shot1.md").read_text().split())
    assert "treats RE as the strongest" not in page and "7-10 %" not in page
    quote = re.search(r'"(Interestingly, [^"]+)" \(Appendix F\.2\)', page)
    assert quote is not None and "state-of-the-art discrete NAS optimizer" in quote.group(1)
    assert "share of its evaluations" in page or "share of evaluations" in page
    if PAPER.exists():  # the extraction spells some v as V ("EVolution")
        paper = " ".join(PAPER.read_text().split()).lower()
        assert quote.group(1).lower() in paper
