"""Benchmarks that worker processes need travel as data (issue 30, point 1): a BenchmarkSpec, a
registered name and its loader's options, which every process loads itself. A user-fitted
surrogate runs on worker processes with the results it gives in one process; a name registered
in one process only is refused before work on other processes starts."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from nasarena.benchmarks.registry import REGISTRY, BenchmarkSpec, Entry, register, result_options
from nasarena.errors import InvalidSettingError
from nasarena.runner import Budget
from nasarena.runner.experiment import grid, load_results, run_experiment

pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def artefact(tmp_path_factory, nb201):
    """A random forest fitted by a user on 200 real NB201 CIFAR-10 runs (2 members of 10 trees)."""
    from typer.testing import CliRunner

    from nasarena.cli.main import app

    folder = tmp_path_factory.mktemp("fitted")
    rows = np.random.default_rng(1).choice(nb201.space.size, 200, replace=False)
    cells = nb201.space.enumerate()
    pd.DataFrame({"arch": [cells[r].to_string() for r in rows],
                  "valid_accuracy": nb201.mean_over_trials("valid_accuracy")[rows]}).to_csv(folder / "runs.csv",
                                                                                         index=False)
    path = folder / "mine.nsa"
    result = CliRunner().invoke(app, ["surrogate", "fit", str(folder / "runs.csv"), "--space", "nb201", "--name",
                                      "nb201-rf-v1.0", "--out", str(path), "--model", "rf", "--members", "2",
                                      "--set", "n_estimators=10", "--no-runtime"])
    assert result.exit_code == 0, result.output
    return path


def test_a_spec_is_a_name_and_sorted_options_that_load_anywhere(artefact):
    spec = BenchmarkSpec.of("surrogate", seed=3, path=str(artefact))
    assert spec.options == (("path", str(artefact)), ("seed", 3))
    assert spec == BenchmarkSpec("surrogate", (("seed", 3), ("path", str(artefact)))) and hash(spec) == hash(
        BenchmarkSpec("surrogate", (("seed", 3), ("path", str(artefact)))))
    assert pickle.loads(pickle.dumps(spec)) == spec and spec.portable
    bench = spec.load()
    assert bench.name == "nb201-rf-v1.0" and bench.space.name == "nb201"
    assert spec.result_options == {"seed": 3}  # where the data is (path) is not what it answers
    assert BenchmarkSpec("nb1shot1-2").result_options == result_options({}, "nb1shot1-2") != {}
    with pytest.raises(InvalidSettingError, match="benchmark name"):
        BenchmarkSpec("")


def test_a_user_fitted_surrogate_runs_on_workers_as_in_one_process(artefact, tmp_path):
    """The validation's runs (plots.surrogate_validation): the artefact as the spec that the
    workers load, and the table."""
    from nasarena.benchmarks.surrogate import open_surrogate
    from nasarena.plots.surrogate_validation import Compared

    compared = Compared.of(str(artefact), open_surrogate(str(artefact)), "nb201-cifar10")
    assert compared.surrogate == BenchmarkSpec.of("surrogate", path=str(artefact.resolve()))
    specs = compared.specs(["rs", "re"], (0, 1), Budget(seconds=1e4))
    frames = []
    for jobs in (2, 1):
        assert len(run_experiment(specs, tmp_path / f"jobs{jobs}", jobs=jobs)) == 8
        frame = load_results(tmp_path / f"jobs{jobs}")
        frames.append(frame.sort_values(["benchmark", "optimizer", "seed", "evaluation"]).reset_index(drop=True))
    on_workers, here = frames
    assert set(on_workers.benchmark) == {"surrogate", "nb201-cifar10"} and len(on_workers) > 8
    assert on_workers[on_workers.benchmark == "surrogate"].incumbent_test_regret.between(0, 1).all()
    pd.testing.assert_frame_equal(on_workers, here)


def test_a_name_registered_here_only_is_refused_for_workers(artefact, tmp_path):
    from nasarena.benchmarks.surrogate import load_surrogate

    register(Entry("test-registered-here", "the fixture's surrogate", lambda **o: load_surrogate(artefact, **o)))
    try:
        assert not BenchmarkSpec("test-registered-here").portable
        specs = grid(["test-registered-here"], ["rs"], [0, 1], Budget(evaluations=5))
        with pytest.raises(InvalidSettingError, match="registered in this process only.*'surrogate' with path=FILE"):
            run_experiment(specs, tmp_path / "workers", jobs=2)
        assert not (tmp_path / "workers").exists()  # refused before anything is written
        assert len(run_experiment(specs, tmp_path / "here", jobs=1)) == 2  # in this process it is known
    finally:
        REGISTRY.remove("test-registered-here")
