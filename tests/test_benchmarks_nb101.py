"""The embedded NB101 benchmarks answer with the real numbers of the shared files."""

import numpy as np
import pytest

import nasarena
from conftest import SHARED_DATA
from nasarena.benchmarks import available
from nasarena.benchmarks.protocol import InvalidArchitectureError
from nasarena.spaces.nb101 import unique_cells


@pytest.fixture(scope="module")
def real_test_accuracy():
    path = SHARED_DATA / "nb101" / "nb101-test-accuracy-trial0-108.npy"
    if not path.exists():
        pytest.skip("real data not available")
    return np.load(path)


def test_lite_answers_with_the_real_test_accuracy_draw(lite, real_test_accuracy):
    table = unique_cells()
    for row in (0, 1, 17, 20_000, 36_202, 211_000, 423_623):
        result = lite.query(table.cell(row))
        assert result.test_accuracy == pytest.approx(real_test_accuracy[row], abs=0)
        assert result.valid_accuracy == result.test_accuracy  # single-draw benchmark, said in describe()
        assert result.fidelity == 108
    assert lite.optimum() == pytest.approx(real_test_accuracy.max(), abs=0)


def test_lite_training_time_is_real_on_the_slices_and_flagged_elsewhere(lite, nb101_slices):
    table = unique_cells()
    for start, columns in nb101_slices:
        for offset in (0, 5, len(columns["key"]) - 1):
            result = lite.query(table.hashes[start + offset])
            assert result.cost_seconds == pytest.approx(columns["final_training_time"][offset], rel=1e-6)
            assert result.trainable_parameters == columns["trainable_parameters"][offset]
            assert "cost_seconds" not in result.modelled
    modelled = lite.query(300_000)
    assert modelled.modelled == frozenset({"cost_seconds"}) and 200 < modelled.cost_seconds < 10_000


def test_lite_describe_is_plain_about_what_is_modelled(lite):
    text = lite.describe().to_text()
    assert "single-draw" in text and "393,623 cells" in text and "R^2" in text


def test_slice_has_the_real_validation_accuracy_at_every_budget(nb101_slices):
    bench = nasarena.benchmark("nb101-slice")
    assert len(bench) == 30_001 and bench.fidelities == (4, 12, 36, 108)
    table = unique_cells()
    for start, columns in nb101_slices:
        for offset in (0, 3, 999):
            cell = table.cell(start + offset)
            for epochs in (4, 12, 36, 108):
                result = bench.query(cell, fidelity=epochs)
                assert result.valid_accuracy == pytest.approx(columns[f"{epochs}_final_validation_accuracy"][offset], abs=1e-7)
                assert ("cost_seconds" in result.modelled) == (epochs != 108)
    with pytest.raises(InvalidArchitectureError, match="not among the 30,001 cells"):
        bench.query(table.cell(30_000))
    with pytest.raises(ValueError, match="no fidelity of 200 epochs"):
        bench.query(table.cell(0), fidelity=200)


def test_batch_queries_equal_single_queries(lite):
    rows = np.random.default_rng(0).integers(0, len(lite), size=1000)
    batch = lite.query_batch(rows)
    single = [lite.query(int(r)) for r in rows]
    assert np.array_equal(batch.test_accuracy, np.array([s.test_accuracy for s in single], dtype=np.float32))
    assert np.array_equal(batch.cost_seconds, np.array([s.cost_seconds for s in single], dtype=np.float32))


def test_registry_lists_and_rejects_unknown_names():
    names = {entry.name for entry in available()}
    assert {"nb101-lite", "nb101-slice", "nb101"} <= names
    with pytest.raises(KeyError, match="unknown benchmark 'nb999'"):
        nasarena.benchmark("nb999")


def test_cli_lists_and_describes_benchmarks():
    from typer.testing import CliRunner

    from nasarena.cli.main import app

    listing = CliRunner().invoke(app, ["benchmarks"])
    assert listing.exit_code == 0 and "nb101-lite" in listing.output and "nb201-imagenet16-120" in listing.output
    described = CliRunner().invoke(app, ["benchmarks", "nb101-lite"])
    assert described.exit_code == 0 and "single-draw" in described.output
    unknown = CliRunner().invoke(app, ["benchmarks", "nb999"])
    assert unknown.exit_code == 2 and "unknown benchmark" in unknown.output
