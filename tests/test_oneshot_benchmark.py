"""The nb1shot1-1/2/3 benchmarks: NB-1Shot1 spaces answered by NB101 tables, with the space's own regret."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from nasarena.benchmarks import benchmark
from nasarena.benchmarks.oneshot import OneShotBenchmark, oneshot_accuracies
from nasarena.cli.main import app
from nasarena.errors import InvalidArchitectureError, InvalidSettingError, UnknownNameError
from nasarena.spaces.oneshot import OneShotArch, search_space

C3, C1, MP = "conv3x3-bn-relu", "conv1x1-bn-relu", "maxpool3x3"
NAMES = ("nb1shot1-1", "nb1shot1-2", "nb1shot1-3")


@pytest.fixture(scope="module")
def lite():
    return benchmark("nb101-lite")


@pytest.fixture(scope="module")
def space3(lite):
    return OneShotBenchmark("nb1shot1-3", lite)


def test_query_is_the_nb101_query_of_the_cell(space3, lite):
    arch = OneShotArch("nb1shot1-3", ((0,), (1,), (0,), (2, 3), (0, 4)), (C3, C1, MP, C3, C1), (4, 5))
    result = space3.query(arch)
    expected = lite.query(arch.to_cell())
    fields = ("valid_accuracy", "test_accuracy", "cost_seconds", "trainable_parameters", "fidelity")
    assert [getattr(result, f) for f in fields] == [getattr(expected, f) for f in fields]
    assert space3.query(arch.to_string()).test_accuracy == result.test_accuracy
    assert space3.final_test_accuracy(arch) == lite.final_test_accuracy(arch.to_cell()) == result.test_accuracy
    batch = space3.query_batch([arch, arch.to_string()])
    assert batch.rows.tolist() == [arch.to_cell().row] * 2
    assert batch.test_accuracy.tolist() == [result.test_accuracy] * 2
    assert space3.space.name == "nb1shot1-3" and space3.fidelities == lite.fidelities


@pytest.mark.parametrize("name", NAMES)
def test_regret_is_against_the_best_cell_of_the_space(name, lite):
    bench = OneShotBenchmark(name, lite)
    with_loose_ends = oneshot_accuracies(name, bench, loose_ends=True)
    without = oneshot_accuracies(search_space(name), lite, loose_ends=False)
    assert len(with_loose_ends) == bench.space.size and len(without) == bench.space.count(loose_ends=False)
    assert np.isfinite(with_loose_ends).all() and np.isfinite(without).all()
    # every cell the space reaches is reached with loose ends: the optimum is their best
    assert bench.optimum() == pytest.approx(float(with_loose_ends.max()))
    assert bench.optimum() >= float(without.max())
    assert bench.optimum() <= lite.optimum()  # (space 3 holds nb101-lite's best cell, spaces 1 and 2 do not)
    assert (bench.optimum() == lite.optimum()) == (name == "nb1shot1-3")
    assert set(np.unique(without).tolist()) <= set(np.unique(with_loose_ends).tolist())
    arch = bench.space.sample(np.random.default_rng(0))
    assert bench.optimum() - bench.final_test_accuracy(arch) >= 0


def test_accuracies_follow_the_enumeration_order(lite):
    archs = search_space("nb1shot1-1").enumerate(loose_ends=False)
    accuracies = oneshot_accuracies("nb1shot1-1", lite, loose_ends=False)
    for i in (0, 1, 500, len(archs) - 1):
        assert accuracies[i] == pytest.approx(lite.final_test_accuracy(archs[i].to_cell()))


def test_registered_benchmarks_load_over_other_nb101_tables():
    bench = benchmark("nb1shot1-1")
    assert isinstance(bench, OneShotBenchmark) and bench.nb101.name == "nb101-noisy"  # the 3-trial table (issue 29)
    assert "search space 1" in bench.describe().provenance
    sliced = benchmark("nb1shot1-2", nb101="nb101-slice")
    assert sliced.fidelities == (4, 12, 36, 108)
    held = sliced.reachable_rows()
    assert 0 < len(held) < search_space("nb1shot1-2").count(loose_ends=False, complete=True)
    inside = next(a for a in search_space("nb1shot1-2").enumerate() if sliced.nb101.positions[held[0]] == a.to_cell().row)
    assert sliced.query(inside, 12).fidelity == 12
    outside = next(a for a in search_space("nb1shot1-2").enumerate()
                   if a.to_cell().row not in set(sliced.nb101.positions[held].tolist()))
    with pytest.raises(InvalidArchitectureError, match="not among the 30,001 cells of nb101-slice"):
        sliced.query(outside)


def test_bad_input_is_a_clear_error(space3):
    with pytest.raises(UnknownNameError, match="nb1shot1-3"):
        benchmark("nb1shot1-4")
    with pytest.raises(UnknownNameError, match="one-shot space 'nb1shot1-9'"):
        OneShotBenchmark("nb1shot1-9", space3.nb101)
    with pytest.raises(InvalidSettingError, match="need a tabular NB101 benchmark"):
        benchmark("nb1shot1-1", nb101="nb201-cifar10")
    other = search_space("nb1shot1-1").sample(np.random.default_rng(0))
    with pytest.raises(InvalidArchitectureError, match="belongs to nb1shot1-1, not to nb1shot1-3"):
        space3.query(other)
    with pytest.raises(InvalidArchitectureError, match="is a OneShotArch"):
        space3.query(other.to_cell())
    with pytest.raises(InvalidArchitectureError, match="starts with '<space>:'"):
        space3.query("conv3x3-bn-relu<0")
    with pytest.raises(InvalidArchitectureError, match="block 4 of nb1shot1-3 takes exactly 2"):
        space3.query("nb1shot1-3:conv3x3-bn-relu<0|conv3x3-bn-relu<1|conv3x3-bn-relu<0|conv3x3-bn-relu<1"
                     "|conv3x3-bn-relu<0+4|out<4+5")


def test_the_runner_runs_rs_and_re_on_space_3(tmp_path):
    result = CliRunner().invoke(app, ["run", "--benchmark", "nb1shot1-3", "--optimizers", "re,rs", "--budget", "3e4",
                                      "--seeds", "0-1", "--jobs", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    frames = pd.concat(pd.read_parquet(p) for p in sorted((tmp_path / "runs").glob("*.parquet")))
    assert sorted(frames.groupby(["optimizer", "seed"]).groups) == [("re", 0), ("re", 1), ("rs", 0), ("rs", 1)]
    assert (frames["benchmark"] == "nb1shot1-3").all()
    assert (frames["incumbent_test_regret"] >= 0).all() and frames["evaluation"].max() >= 5
    assert all(len(h) == 32 for h in set(frames["arch_id"]))  # identities are NB101 module hashes
    again = CliRunner().invoke(app, ["run", "--benchmark", "nb1shot1-3", "--optimizers", "re,rs", "--budget", "3e4",
                                     "--seeds", "0-1", "--jobs", "1", "--out", str(tmp_path)])
    assert again.exit_code == 0 and "4 already in" in again.output


def test_an_imported_official_store_answers_with_its_trials_and_budgets(tmp_path):
    """``path=`` selects the imported 3-trial NB101 data; a cell it lacks is NaN, the optimum its best."""
    from nasarena.benchmarks.nb101_store import convert
    from nasarena.io.nb101_records import EvaluationData, ModelMetrics, NB101Record, serialize_record
    from nasarena.io.tfrecord import write_records

    space = search_space("nb1shot1-1")
    good, bad = space.enumerate(loose_ends=False)[0], space.enumerate(loose_ends=False)[1]

    def records():
        for accuracy, arch in ((0.93, good), (0.91, bad)):
            cell = arch.to_cell()
            for budget in (4, 12, 36, 108):
                for trial in range(3):
                    final = accuracy - 0.001 * trial - 0.01 * (108 - budget) / 108
                    evaluations = (EvaluationData(0, 0, 0.1, 0.1, 0.1), EvaluationData(budget / 2, 1.0, 0.5, 0.5, 0.5),
                                   EvaluationData(budget, 10.0 * budget, 1.0, final, final - 0.002))
                    yield serialize_record(NB101Record(cell.hash, budget, cell.matrix, cell.ops,
                                                       ModelMetrics(evaluations, 1234, 1.0)))

    write_records(tmp_path / "full.tfrecord", records())
    convert(tmp_path / "full.tfrecord", tmp_path / "store")
    bench = benchmark("nb1shot1-1", path=str(tmp_path / "store"))
    assert bench.nb101.name == "nb101" and bench.fidelities == (4, 12, 36, 108)
    assert bench.query(good, 108, trial=2).valid_accuracy == pytest.approx(0.928)
    assert bench.query(good, 4, trial=0).cost_seconds == pytest.approx(40.0)
    assert bench.optimum() == pytest.approx(0.93 - 0.001 - 0.002)  # mean over the trials of the best cell
    assert bench.optimum() - bench.final_test_accuracy(bad) == pytest.approx(0.02)
    assert np.isnan(bench.final_test_accuracy(space.enumerate(loose_ends=False)[2]))
