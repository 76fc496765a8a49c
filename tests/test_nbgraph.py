"""NAS-Bench-Graph: the space and the nine benchmarks, on the embedded data and against the package.

The embedded tables are the whole truth at run time; the tests marked with the package
(``nas_bench_graph``, skipped without it: ``pip install nas-bench-graph==1.4.0``) hold them, the
keys and the equivalence of architectures to the package's own code on every architecture.
"""

import hashlib
import itertools
import shutil

import numpy as np
import pytest

import nasarena
from nasarena.benchmarks.latency import device_setting
from nasarena.benchmarks.nbgraph import DATASETS, DEVICE, FIDELITY, PASSES_PER_EPOCH, PROTEINS, load
from nasarena.benchmarks.objectives import best_under, objective_matrix, parse_objectives
from nasarena.errors import ArchitectureTypeError, InvalidArchitectureError, InvalidSettingError
from nasarena.io.packaged import DataIntegrityError, data_dir, load_arrays, read_manifest
from nasarena.optimizers.base import make
from nasarena.runner import Budget, RunSettings, run
from nasarena.spaces.nbgraph import (
    NBGRAPH_FILE,
    OPERATIONS,
    PROTEINS_OPERATIONS,
    SPACE_FILE,
    GraphArch,
    NBGraphProteinsSpace,
    NBGraphSpace,
    network_form,
    space_arrays,
)
from nasarena.spaces.nbgraph.keys import NO_NETWORK, drawing_index
from nasarena.spaces.registry import space
from nasarena.testing import check_benchmark, check_space

README_ARCH = GraphArch((0, 1, 2, 1), ("gcn", "gin", "fc", "cheb"))  # the package README's example


def drawings(operations=OPERATIONS):
    """Every (links, ops) of a space: node 1 reads the input, nodes 2-4 any earlier node."""
    for inputs in itertools.product(range(2), range(3), range(4)):
        for ops in itertools.product(operations, repeat=4):
            yield (0, *inputs), ops


@pytest.fixture(scope="module")
def benchmarks():
    return {dataset: nasarena.benchmark(f"nbgraph-{dataset}") for dataset in DATASETS}


@pytest.fixture(scope="module")
def package():
    return pytest.importorskip("nas_bench_graph")


# -- the embedded data -----------------------------------------------------------------------------

def test_data_is_checksummed_with_its_provenance_and_a_corrupt_copy_refused(tmp_path):
    for name in (SPACE_FILE, NBGRAPH_FILE):
        entry = read_manifest()[name]
        assert hashlib.sha256((data_dir() / name).read_bytes()).hexdigest() == entry.sha256
        assert "nas-bench-graph 1.4.0" in entry.provenance and "Apache-2.0" in entry.provenance
        shutil.copy(data_dir() / name, tmp_path / name)
    shutil.copy(data_dir() / "manifest.json", tmp_path / "manifest.json")
    content = bytearray((tmp_path / NBGRAPH_FILE).read_bytes())
    content[len(content) // 2] ^= 0xFF
    (tmp_path / NBGRAPH_FILE).write_bytes(bytes(content))
    with pytest.raises(DataIntegrityError, match=f"{NBGRAPH_FILE} is corrupted"):
        load_arrays(NBGRAPH_FILE, tmp_path)


def test_the_network_rule_is_the_embedded_key_of_every_drawing():
    """:mod:`canonical`'s rule and the package's keys (as embedded) split all 157,464 drawings
    into the same classes: one form per key, one key per form, no form for all-skip drawings."""
    rows = space_arrays()["rows"]
    row_of_form, form_of_row = {}, {}
    for links, ops in drawings():
        form, row = network_form(links, ops), int(rows[drawing_index(links, ops)])
        assert (form is None) == (row == NO_NETWORK), (links, ops)
        assert row_of_form.setdefault(form, row) == row and form_of_row.setdefault(row, form) == form, (links, ops)
    assert len(form_of_row) == len(space_arrays()["keys"]) + 1  # and the all-skip class


def test_eight_datasets_measure_accuracies_of_three_seeds(benchmarks):
    """Why the card says accuracy: every validation value is a count of nodes over 3 runs of a
    split of 500 or 1,000 nodes (a multiple of 1/3000); ogbn-proteins' are ROC-AUC."""
    for dataset, benchmark in benchmarks.items():
        valid = benchmark.mean_over_trials("valid_accuracy") * 3000
        assert (np.abs(valid - np.rint(valid)) < 1e-6).all() or dataset == PROTEINS, dataset
        assert ("ROC-AUC" in benchmark.describe().real) == (dataset == PROTEINS)


# -- the space -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["nbgraph", "nbgraph-proteins"])
def test_spaces_conform_and_count_the_papers_networks(name):
    subject = space(name)
    check_space(subject)
    assert subject.size == len(subject.enumerate()) == (2_021 if name == "nbgraph-proteins" else 26_206)
    assert [subject.row(a) for a in subject.enumerate()[:50]] == list(range(50))


def test_drawings_of_one_network_are_one_architecture_everywhere():
    subject, other = NBGraphSpace(), GraphArch((0, 1, 1, 2), ("gcn", "gin", "cheb", "fc"))  # nodes 3 and 4 swapped
    assert subject.identity(README_ARCH) == subject.identity(other) == subject.identity(subject.representative(other))
    # the README's own second drawing feeds fc from cheb, not gin: another network, with its own key in the package
    assert subject.identity(GraphArch((0, 1, 1, 2), ("gcn", "cheb", "gin", "fc"))) != subject.identity(README_ARCH)
    for kind in subject.encodings:
        assert np.array_equal(subject.encode(README_ARCH, kind), subject.encode(other, kind)), kind
    assert subject.from_text(subject.identity(other)) == subject.representative(README_ARCH)
    assert subject.from_text(subject.to_text(other)) == other
    assert subject.from_mapping(README_ARCH.to_dict()) == README_ARCH
    # a skip read by nothing but one node is that node's input (rule 2); skips alone from the input are dropped (3)
    assert subject.identity(GraphArch((0, 1, 0, 0), ("gcn", "skip", "gat", "gat"))) == \
        subject.identity(GraphArch((0, 0, 0, 0), ("gat", "gat", "gcn", "skip")))
    assert subject.identity(GraphArch((0, 0, 0, 0), ("skip", "gat", "gat", "gat"))) == \
        subject.identity(GraphArch((0, 1, 1, 1), ("skip", "gat", "gat", "gat")))


def test_path_encoding_counts_output_terms_of_each_operation_sequence():
    subject = NBGraphSpace()
    path = subject.encode(README_ARCH, "path")  # two leaves: gcn-gin-fc and gcn-cheb
    assert path.sum() == 2 and len(path) == 8 + 8**2 + 8**3 + 8**4
    twice = subject.encode(GraphArch((0, 1, 1, 0), ("gcn", "skip", "skip", "gat")), "path")
    assert sorted(twice[twice > 0].tolist()) == [1, 2]  # gcn reaches the output twice, gat once
    assert len(NBGraphProteinsSpace().encode(GraphArch((0, 1, 2, 3), ("gcn", "sage", "arma", "fc")), "path")) == 340


def test_neighbours_and_mutations_change_the_network_within_the_space():
    subject, rng = NBGraphProteinsSpace(), np.random.default_rng(3)
    for arch in (subject.sample(rng) for _ in range(20)):
        identities = [subject.identity(n) for n in subject.neighbours(arch)]
        assert len(identities) == len(set(identities)) > 0 and subject.identity(arch) not in identities
        assert all(subject.contains(n) for n in subject.neighbours(arch))
        assert subject.identity(subject.mutate(arch, rng)) in identities


def test_sampling_draws_every_choice_and_never_all_skips():
    subject = NBGraphSpace()
    draws = [subject.sample(np.random.default_rng(seed)) for seed in range(400)]
    assert all(subject.contains(a) for a in draws)
    assert {op for a in draws for op in a.ops} == set(OPERATIONS) and {a.links[3] for a in draws} == {0, 1, 2, 3}


def test_configurations_round_trip_and_cover_the_choices():
    for subject in (NBGraphSpace(), NBGraphProteinsSpace()):
        config_space = subject.config_space()
        assert len(config_space) == 7 and list(config_space["op_1"].choices) == list(subject.operations)
        for config in config_space.sample_configuration(20):
            arch = subject.from_config(dict(config))
            assert subject.from_config(subject.to_config(arch)) == arch
    assert NBGraphSpace().categorical_dims() == (2, 3, 4, 9, 9, 9, 9)


# -- against the package's own code ----------------------------------------------------------------

def test_keys_and_equivalence_are_the_packages_on_every_architecture(package):
    """Every one of the 157,464 drawings (and of the proteins space's 15,000) has the package's
    key as identity; the 24 all-skip drawings, which the package keys 88888, are outside."""
    for subject in (NBGraphSpace(), NBGraphProteinsSpace()):
        for links, ops in drawings(subject.operations):
            key = package.Arch(list(links), list(ops)).valid_hash()
            arch = GraphArch(links, ops)
            if all(op == "skip" for op in ops):
                assert key == 88888 and subject.identity(arch) is None
            else:
                assert subject.identity(arch) == str(key), (links, ops)
    assert list(PROTEINS_OPERATIONS) == package.gnn_list_proteins and list(OPERATIONS) == package.gnn_list


def test_every_value_is_the_packages(package, benchmarks):
    for dataset, benchmark in benchmarks.items():
        bench = package.light_read(dataset)
        keys = [int(benchmark.space.identity(a)) for a in benchmark.space.enumerate()]
        assert sorted(bench) == keys, dataset
        result = benchmark.query_batch(np.arange(len(keys)))
        assert np.array_equal(result.valid_accuracy, [bench[k]["valid_perf"] for k in keys]), dataset
        assert np.array_equal(result.test_accuracy, [bench[k]["perf"] for k in keys]), dataset
        assert np.array_equal(benchmark.latency_column(DEVICE), np.array([bench[k]["latency"] for k in keys]) * 1000)
        assert np.array_equal(benchmark.data.trainable_parameters, np.rint([bench[k]["para"] * 1e6 for k in keys]))
    readme = package.Arch(list(README_ARCH.links), list(README_ARCH.ops)).valid_hash()
    assert benchmarks["cora"].query(README_ARCH).test_accuracy == package.light_read("cora")[readme]["perf"]


# -- the benchmarks --------------------------------------------------------------------------------

def test_registry_lists_the_nine_datasets():
    names = {entry.name for entry in nasarena.benchmarks.available()}
    assert {f"nbgraph-{dataset}" for dataset in DATASETS} <= names and len(DATASETS) == 9


@pytest.mark.parametrize("dataset", DATASETS)
def test_benchmarks_conform(benchmarks, dataset):
    check_benchmark(benchmarks[dataset])


def test_results_say_what_is_measured_and_what_is_modelled(benchmarks):
    cora, physics = benchmarks["cora"], benchmarks["physics"]
    result = cora.query(README_ARCH)
    assert result.fidelity == FIDELITY and result.modelled == frozenset({"cost_seconds"})
    assert result.cost_seconds == pytest.approx(FIDELITY * PASSES_PER_EPOCH * cora.latency(README_ARCH, DEVICE) / 1000)
    assert result.trainable_parameters == cora.query(README_ARCH.to_text()).trainable_parameters
    described = physics.describe()
    assert "nominal" in described.modelled and "are not whole numbers in the package and are rounded" in described.real
    assert "rounded" not in cora.describe().real and "5-operation space" in benchmarks["proteins"].describe().count_note


def test_latency_and_params_are_objectives_of_multi_objective_search(benchmarks):
    cora = benchmarks["cora"]
    matrix = objective_matrix(cora, parse_objectives(f"error,latency:{DEVICE},params"))
    assert matrix.shape == (26_206, 3) and np.isfinite(matrix).all()
    fastest = best_under(cora, DEVICE, float(np.min(matrix[:, 1])))
    assert fastest.feasible == 1 and fastest.latency_ms == pytest.approx(float(np.min(matrix[:, 1])))
    assert device_setting(DEVICE).source == "NAS-Bench-Graph"  # the reports group device settings by it
    frame = run(cora, make("mo-rs", cora.space, seed=0), Budget(evaluations=15), seed=0,
                settings=RunSettings(objectives=("error", f"latency:{DEVICE}")))
    assert len(frame) == 15 and frame["front_size"].iloc[-1] >= 1


def test_single_fidelity_refuses_multi_fidelity_optimizers_and_runs_the_others(benchmarks):
    proteins = benchmarks["proteins"]
    with pytest.raises(ValueError, match="several fidelities"):
        make("hb", proteins.space, seed=0, fidelities=proteins.fidelities)
    for name in ("rs", "re", "ls", "de", "reinforce", "tpe", "smac"):
        frame = run(proteins, make(name, proteins.space, seed=0), Budget(evaluations=30), seed=0)
        assert len(frame) == 30 and frame["valid_accuracy"].between(0, 1).all(), name


# -- bad input -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("links", "ops", "message"), [
    ((0, 1, 2), ("gcn",) * 4, "4 computing nodes; give 4 input nodes"),
    ((0, 1, 3, 1), ("gcn",) * 4, "node 3: input 3 is not an earlier node"),
    ((0, 1, 2, 1.5), ("gcn",) * 4, "node 4: its input must be a whole number"),
    ((0, 1, 2, 1), ("gcn", "gin", "gcnn", "fc"), "node 3: unknown operation 'gcnn'"),
])
def test_malformed_architectures_say_which_node(links, ops, message):
    with pytest.raises(InvalidArchitectureError, match=message):
        GraphArch(links, ops)


def test_bad_text_keys_and_configurations_are_refused_clearly(benchmarks):
    subject = NBGraphSpace()
    with pytest.raises(InvalidArchitectureError, match="node 2's entry 'gin' is not 'op\\(input\\)'"):
        subject.from_text("gcn(0),gin,fc(2),cheb(1)")
    with pytest.raises(InvalidArchitectureError, match="'88888' is not the key of a network of the nbgraph space"):
        subject.from_text("88888")
    with pytest.raises(KeyError, match="missing parameter\\(s\\) op_4"):
        subject.from_config({"input_2": 0, "input_3": 0, "input_4": 0, "op_1": "gcn", "op_2": "gcn", "op_3": "gcn"})
    with pytest.raises(InvalidArchitectureError, match="input_4: index 4 is outside 0..3"):
        subject.from_categorical([0, 0, 4, 0, 0, 0, 0])
    proteins, cora = benchmarks["proteins"], benchmarks["cora"]
    with pytest.raises(InvalidArchitectureError, match="node 1's operation 'gat' is not one of the nbgraph-proteins"):
        proteins.query(GraphArch((0, 1, 2, 3), ("gat", "gcn", "gcn", "gcn")))
    with pytest.raises(InvalidArchitectureError, match=r"skip\(0\),skip\(1\),skip\(2\),skip\(3\): every"):
        cora.query("skip(0),skip(1),skip(2),skip(3)")
    with pytest.raises(ArchitectureTypeError, match="expected a NAS-Bench-Graph GraphArch"):
        cora.query(2.5)
    with pytest.raises(InvalidSettingError, match=r"unknown device 'gpu'.*available: nbgraph"):
        cora.latency(README_ARCH, "gpu")
    with pytest.raises(InvalidSettingError, match="unknown NAS-Bench-Graph dataset 'reddit'; expected one of cora"):
        load("reddit")
    with pytest.raises(InvalidSettingError, match="no fidelity of 100 epochs; available: \\[200\\]"):
        cora.query(README_ARCH, 100)
