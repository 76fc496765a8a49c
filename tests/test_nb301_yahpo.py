"""The nb301 benchmark: YAHPO Gym's ONNX model of NB301's training data on the DARTS space.

Its inputs are checked against YAHPO's own files (the encoding json and configuration space shipped
as package data), its rank agreement against the 214 real DARTS architectures of ../shared/data."""

from __future__ import annotations

import hashlib
import json
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import nasarena
from nasarena.benchmarks.nb301_encoding import COLUMNS, PREFIX
from nasarena.benchmarks.nb301_yahpo import (
    CONFIG_SPACE_FILE,
    ENCODING_FILE,
    MODEL_FILE,
    OPTIMUM_FILE,
    NB301Benchmark,
    stored_optimum,
)
from nasarena.errors import ArchitectureTypeError, InvalidArchitectureError, InvalidSettingError
from nasarena.io.packaged import DataIntegrityError, data_dir, read_manifest, read_verified
from nasarena.spaces.darts import DartsArch, config_space, to_config
from nasarena.testing import check_benchmark, check_optimizer

pytest.importorskip("onnxruntime")

DARTS214 = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "darts" / "darts214-random-cifar10.csv"
#: YAHPO Gym's ``cat_names`` of the nb301 scenario (yahpo_gym/benchmarks/nb301.py), written out:
#: the model's column order.
YAHPO_CAT_NAMES = ([f"edge_normal_{k}" for k in range(14)] + [f"edge_reduce_{k}" for k in range(14)]
                   + ["inputs_node_normal_3", "inputs_node_normal_4", "inputs_node_normal_5",
                      "inputs_node_reduce_3", "inputs_node_reduce_4", "inputs_node_reduce_5"])
#: DARTS-V2 (Liu et al. 2019), written as its genotype is.
DARTS_V2 = DartsArch(
    normal=[("sep_conv_3x3", 0), ("sep_conv_3x3", 1), ("sep_conv_3x3", 0), ("sep_conv_3x3", 1),
            ("sep_conv_3x3", 1), ("skip_connect", 0), ("skip_connect", 0), ("dil_conv_3x3", 2)],
    reduce=[("max_pool_3x3", 0), ("max_pool_3x3", 1), ("skip_connect", 2), ("max_pool_3x3", 1),
            ("max_pool_3x3", 0), ("skip_connect", 2), ("skip_connect", 2), ("max_pool_3x3", 1)])
#: Its active parameters, worked out by hand from the slot layout (node 2: slots 0-1, node 3: 2-4,
#: node 4: 5-8, node 5: 9-13; slot = first slot of the node + input); every other edge is #na#.
DARTS_V2_LEVELS = {
    "edge_normal_0": "sep_conv_3x3", "edge_normal_1": "sep_conv_3x3",
    "inputs_node_normal_3": "0_1", "edge_normal_2": "sep_conv_3x3", "edge_normal_3": "sep_conv_3x3",
    "inputs_node_normal_4": "0_1", "edge_normal_5": "skip_connect", "edge_normal_6": "sep_conv_3x3",
    "inputs_node_normal_5": "0_2", "edge_normal_9": "skip_connect", "edge_normal_11": "dil_conv_3x3",
    "edge_reduce_0": "max_pool_3x3", "edge_reduce_1": "max_pool_3x3",
    "inputs_node_reduce_3": "1_2", "edge_reduce_3": "max_pool_3x3", "edge_reduce_4": "skip_connect",
    "inputs_node_reduce_4": "0_2", "edge_reduce_5": "max_pool_3x3", "edge_reduce_7": "skip_connect",
    "inputs_node_reduce_5": "1_2", "edge_reduce_10": "max_pool_3x3", "edge_reduce_11": "skip_connect",
}
#: Measured by bench/bench_nb301_yahpo.py: Kendall tau 0.278 and Spearman 0.404 against the final-
#: epoch test accuracy. The floors keep a margin for float differences between machines, and sit
#: above what the same architectures give with the edge columns in the encoding file's
#: alphabetical order (tau 0.201), so a wrong column order fails.
KENDALL_FLOOR, SPEARMAN_FLOOR = 0.25, 0.36


@pytest.fixture(scope="module")
def bench() -> NB301Benchmark:
    return nasarena.benchmark("nb301")


@pytest.fixture(scope="module")
def codes() -> dict:
    return json.loads(read_verified(ENCODING_FILE))


@pytest.fixture(scope="module")
def sample(bench) -> list[DartsArch]:
    rng = np.random.default_rng(301)
    return [bench.space.sample(rng) for _ in range(3000)]


def test_the_benchmark_conforms_and_multi_fidelity_optimizers_run_on_it(bench):
    check_benchmark(bench)
    for name in ("hb", "bohb"):
        check_optimizer(name, bench)


def test_the_encoding_of_a_large_seeded_sample_is_yahpos(bench, codes, sample):
    x = bench._encoding.encode(sample)
    assert x.dtype == np.int32 and x.shape == (len(sample), 34)
    assert list(COLUMNS) == YAHPO_CAT_NAMES
    expected = np.array([[codes[PREFIX + name][to_config(arch).get(name, "#na#")] for name in YAHPO_CAT_NAMES]
                         for arch in sample])
    assert np.array_equal(x, expected)
    for c, name in enumerate(YAHPO_CAT_NAMES):  # every input is one of its column's levels
        assert set(np.unique(x[:, c])) <= set(codes[PREFIX + name].values())
    inactive = x[:, :28] == np.array([codes[PREFIX + n]["#na#"] for n in YAHPO_CAT_NAMES[:28]])
    assert (inactive[:, :14].sum(axis=1) == 6).all() and (inactive[:, 14:].sum(axis=1) == 6).all()  # 8 edges on


def test_a_hand_checked_architecture_encodes_as_yahpos_ordering_gives(bench, codes):
    expected = [codes[PREFIX + name][DARTS_V2_LEVELS.get(name, "#na#")] for name in YAHPO_CAT_NAMES]
    assert bench._encoding.encode([DARTS_V2])[0].tolist() == expected
    swapped = DartsArch(normal=[DARTS_V2.normal[i ^ 1] for i in range(8)], reduce=DARTS_V2.reduce)
    assert bench._encoding.encode([swapped])[0].tolist() == expected  # a node's written pair order is no input


def test_nasarenas_darts_conditions_are_yahpos():
    """The model's configuration space activates the same edges as nasarena's DARTS ConfigSpace."""
    theirs = json.loads(read_verified(CONFIG_SPACE_FILE))["conditions"]
    ours = config_space().conditions
    assert {(c["child"], c["parent"], tuple(c["values"])) for c in theirs} == \
        {(PREFIX + c.child.name, PREFIX + c.parent.name, tuple(c.values)) for c in ours}


def test_it_is_deterministic_and_a_batch_gives_the_bits_of_single_queries(bench, sample):
    archs = sample[:40]
    batch = bench.query_batch(archs, 33)
    singles = [bench.query(a, 33, np.random.default_rng(seed)) for seed, a in enumerate(archs)]
    assert np.array_equal(batch.valid_accuracy, [r.valid_accuracy for r in singles])
    assert np.array_equal(batch.cost_seconds, [r.cost_seconds for r in singles])
    again = pickle.loads(pickle.dumps(bench)).query_batch(archs, 33)
    assert np.array_equal(again.valid_accuracy, batch.valid_accuracy)
    text = bench.space.to_text(archs[0])
    assert bench.query(text) == bench.query(archs[0]) == bench.query(archs[0], 98, np.random.default_rng(1))
    assert np.isnan(batch.test_accuracy).all() and (batch.rows == -1).all()
    assert singles[0].modelled == frozenset({"valid_accuracy", "cost_seconds"})


def test_learning_curves_are_the_queries_at_every_epoch(bench, sample):
    valid, seconds = bench.learning_curves(sample[:3])
    assert valid.shape == seconds.shape == (3, 98)
    for e in (1, 4, 11, 33, 98):
        batch = bench.query_batch(sample[:3], e)
        assert np.array_equal(valid[:, e - 1], batch.valid_accuracy)
        assert np.array_equal(seconds[:, e - 1], batch.cost_seconds)
    mean = bench.learning_curves(sample[:200])[0].mean(axis=0)
    assert mean[0] + 0.2 < mean[-1] and (np.diff(mean[:80]) > 0).all()  # learning: rising, flattening late


@pytest.mark.parametrize("fidelity", [0, 99, -1, 2.5, True, "98", np.float32(12)])
def test_a_bad_fidelity_is_refused_with_the_range(bench, fidelity):
    arch = DARTS_V2
    with pytest.raises(InvalidSettingError, match="epochs .*1 to 98"):
        bench.query(arch, fidelity)
    with pytest.raises(InvalidSettingError, match="epochs .*1 to 98"):
        bench.query_batch([arch], fidelity)


def test_a_bad_architecture_or_setting_is_refused_clearly(bench):
    with pytest.raises(ArchitectureTypeError, match="expected a DARTS architecture"):
        bench.query(object())
    with pytest.raises(ArchitectureTypeError, match="expected a DARTS architecture"):
        bench.query_batch([DARTS_V2, 3])
    with pytest.raises(InvalidArchitectureError, match="cannot read architecture"):
        bench.query("Genotype(normal=[('conv_9x9', 0)])")
    with pytest.raises(ArchitectureTypeError, match="sequence of architectures"):
        bench.query_batch(bench.space.to_text(DARTS_V2))
    with pytest.raises(InvalidSettingError, match="threads"):
        nasarena.benchmark("nb301", threads=0)
    with pytest.raises(InvalidSettingError, match="test_accuracy or valid_accuracy"):
        bench.optimum("cost_seconds")
    assert nasarena.benchmark("nb301", threads="2").threads == 2


def test_package_data_matches_its_manifest_and_ships_with_its_licence(tmp_path):
    manifest = read_manifest()
    for name in (MODEL_FILE, ENCODING_FILE, CONFIG_SPACE_FILE, OPTIMUM_FILE):
        content = (data_dir() / name).read_bytes()
        assert hashlib.sha256(content).hexdigest() == manifest[name].sha256 and len(content) == manifest[name].size
    for name in (MODEL_FILE, ENCODING_FILE, CONFIG_SPACE_FILE):
        assert "10.6084/m9.figshare.13286105" in manifest[name].provenance
        assert "Apache-2.0" in manifest[name].provenance and "yahpo_data" in manifest[name].provenance
    folder = data_dir() / "nb301-yahpo"
    assert "Apache License" in (folder / "LICENSE-2.0.txt").read_text()
    assert "13286105" in (folder / "README.txt").read_text()
    (tmp_path / "nb301-yahpo").mkdir()
    (tmp_path / "manifest.json").write_bytes((data_dir() / "manifest.json").read_bytes())
    model = bytearray((data_dir() / MODEL_FILE).read_bytes())
    model[-1] ^= 1
    (tmp_path / MODEL_FILE).write_bytes(bytes(model))
    with pytest.raises(DataIntegrityError, match="corrupted"):
        read_verified(MODEL_FILE, tmp_path)
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert '"data/nb301-yahpo/*"' in pyproject and "nb301 = [\"onnxruntime" in pyproject


def test_the_stored_optimum_is_its_genotypes_prediction_and_beats_a_sample(bench, sample):
    stored = stored_optimum()
    assert bench.final_test_accuracy(stored["genotype"]) == stored["valid_accuracy"] == bench.optimum()
    assert bench.query_batch(sample).valid_accuracy.max() < bench.optimum()


def test_the_card_says_what_it_is(bench):
    card = bench.describe().to_text()
    for words in ("fitted on NB301's real training data by YAHPO Gym's authors", "not NB301's own XGB/GIN",
                  "No noise is modelled", "No test accuracy", "13286105", "lower bound"):
        assert words in card
    assert bench.describe().fidelities == tuple(range(1, 99))


def test_rank_agreement_with_the_214_real_darts_architectures(bench):
    if not DARTS214.exists():
        pytest.skip(f"real data not found at {DARTS214}")
    table = pd.read_csv(DARTS214)
    predicted = bench.query_batch(list(table["genotype"])).valid_accuracy
    real = table["final_epoch_test_acc"]
    assert stats.kendalltau(predicted, real).statistic > KENDALL_FLOOR
    assert stats.spearmanr(predicted, real).statistic > SPEARMAN_FLOOR


def test_the_command_line_runs_rs_re_and_hyperband_on_it(tmp_path):
    from typer.testing import CliRunner

    from nasarena.cli.main import app

    out = tmp_path / "results"
    done = CliRunner().invoke(app, ["run", "--benchmarks", "nb301", "--optimizers", "rs,re,hb", "--seeds", "0-1",
                                    "--budget", "60000", "--jobs", "1", "--out", str(out)])
    assert done.exit_code == 0, done.output
    runs = pd.concat(pd.read_parquet(f) for f in sorted((out / "runs").glob("*.parquet")))
    assert set(runs["optimizer"]) == {"rs", "re", "hb"} and set(runs["seed"]) == {0, 1}
    assert runs["valid_modelled"].all() and runs["incumbent_test_regret"].notna().all()
    assert set(runs.loc[runs["optimizer"] == "hb", "fidelity"]) >= {1, 4, 11}
    assert "nb301: regret on modelled validation accuracy" in done.output


def test_without_onnxruntime_the_cli_names_the_extra():
    child = ("import sys\n"
             "class Block:\n"
             "    def find_spec(self, name, path=None, target=None):\n"
             "        if name.split('.')[0] == 'onnxruntime':\n"
             "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
             "sys.meta_path.insert(0, Block())\n"
             "from nasarena.cli.main import app\n"
             "app(['benchmarks', 'nb301'], prog_name='nasarena')\n")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "onnxruntime" in done.stderr and "nasarena[nb301]" in done.stderr


def test_the_validation_study_refuses_a_missing_darts_file_and_agrees_with_the_real_ranking(tmp_path):
    from nasarena.errors import DataFileError
    from nasarena.studies import nb301_validation

    benchmark = NB301Benchmark()
    with pytest.raises(DataFileError, match="214 DARTS architectures are not at .*missing.csv"):
        nb301_validation.rank_agreement(benchmark, 0, tmp_path / "missing.csv")
    if not DARTS214.is_file():
        pytest.skip("the shared DARTS data is not beside this checkout")
    values = nb301_validation.rank_agreement(benchmark, 0, DARTS214)
    # positive, and the numeric column order YAHPO trained with ranks better than the alphabetical one
    assert 0.15 < values["final_epoch_test_acc/kendall"] < 0.45
    assert values["control_kendall"] < values["final_epoch_test_acc/kendall"]
    assert values["bootstrap_low"] < values["final_epoch_test_acc/kendall"] < values["bootstrap_high"]
