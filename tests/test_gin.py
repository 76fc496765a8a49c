"""GIN surrogate and the graph encoding: real NB201 data, invariances, determinism, pickling."""

import pickle
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

import nasarena
from nasarena.spaces.nb101 import INPUT, OPS, OUTPUT, Cell, unique_cells
from nasarena.spaces.nb101.encodings import graph, graph_batch
from nasarena.spaces.nb101.operations import sample_unique
from nasarena.spaces.nb101.space import NB101Space
from nasarena.spaces.nb201 import Cell201, NB201Space
from nasarena.spaces.nb201.encodings import encode, encode_all

torch = pytest.importorskip("torch")

from nasarena.surrogates.gin import GINModel  # noqa: E402
from nasarena.surrogates.models import Ensemble, make_model  # noqa: E402

TRAIN, TEST = 1000, 3000


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """Tiny batches run fastest on one thread, and a shared machine makes a second one wait."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# --- graph encoding --------------------------------------------------------------------------


def _split(vector, size):
    n, f = size
    return vector[: n * n].reshape(n, n), vector[n * n :].reshape(n, f)


def test_graph_encodings_follow_the_shared_layout():
    nb201, nb101 = NB201Space(), NB101Space()
    assert nb201.graph_size == (8, 7) and nb101.graph_size == (7, 5)
    cell = Cell201.from_string("|nor_conv_3x3~0|+|none~0|skip_connect~1|+|avg_pool_3x3~0|none~1|nor_conv_1x1~2|")
    vector = nb201.encode(cell, "graph")
    assert vector.dtype == np.float32 and vector.shape == (8 * 8 + 8 * 7,)
    adjacency, features = _split(vector, nb201.graph_size)
    assert np.array_equal(adjacency, encode(cell, "adjacency")) and np.array_equal(features, encode(cell, "node_features"))
    assert np.array_equal(encode_all("graph")[cell.index], vector)

    # a 4-vertex NB101 cell: vertices 3-5 are padding, the output is vertex 6
    small = Cell([[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]], [INPUT, OPS[0], OPS[2], OUTPUT])
    adjacency, features = _split(nb101.encode(small, "graph"), nb101.graph_size)
    expected = np.zeros((7, 7))
    expected[0, 1] = expected[0, 2] = expected[1, 6] = expected[2, 6] = 1
    assert np.array_equal(adjacency, expected)
    assert features[3:6].sum() == 0 and features.sum(axis=1)[[0, 1, 2, 6]].tolist() == [1, 1, 1, 1]
    assert features[0, 0] == features[6, 4] == 1 and features[1:3, 1:4].sum(axis=0).tolist() == [1, 0, 1]


def _relabelled(cell: Cell, rng: np.random.Generator) -> Cell:
    """The same DAG under a random other topological order of its interior vertices."""
    matrix = np.array(cell.matrix)
    n = len(matrix)
    order, placed = [0], {0}
    while len(order) < n - 1:
        ready = [v for v in range(1, n - 1) if v not in placed and all(u in placed for u in np.flatnonzero(matrix[:, v]))]
        vertex = ready[int(rng.integers(len(ready)))]
        order.append(vertex)
        placed.add(vertex)
    order.append(n - 1)
    return Cell(matrix[np.ix_(order, order)], [cell.ops[v] for v in order])


def test_nb101_graph_encoding_is_isomorphism_invariant(rng):
    changed = 0
    for _ in range(60):
        cell = sample_unique(rng)
        other = _relabelled(cell, rng)
        assert other.hash == cell.hash
        changed += other.matrix != cell.matrix or other.ops != cell.ops
        assert np.array_equal(graph(other), graph(cell))
    assert changed > 20  # the relabelling really produced different matrices
    # an unpruned cell with a dangling vertex encodes as its pruned cell
    dangling = Cell([[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]], [INPUT, OPS[0], OPS[1], OUTPUT])
    pruned = Cell([[0, 1, 0], [0, 0, 1], [0, 0, 0]], [INPUT, OPS[0], OUTPUT])
    assert dangling.hash == pruned.hash and np.array_equal(graph(dangling), graph(pruned))


def test_graph_batch_matches_graph_cell_by_cell():
    table = unique_cells()
    rows = np.random.default_rng(7).choice(len(table), 400, replace=False)
    smallest = np.argsort(table.num_vertices, kind="stable")[:20]  # 2- and 3-vertex cells
    rows = np.concatenate([rows, smallest])
    batch = graph_batch(rows)
    assert batch.dtype == np.float32 and batch.shape == (len(rows), 84)
    for row, vector in zip(rows.tolist(), batch):
        assert np.array_equal(vector, graph(table.cell(row)))
    with pytest.raises(ValueError, match="rows must be in 0..423623"):
        graph_batch([len(table)])


# --- the model -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nb201():
    bench = nasarena.benchmark("nb201-cifar10")
    accuracy = bench.mean_over_trials("valid_accuracy")
    order = np.random.default_rng(0).permutation(len(accuracy))
    return bench, encode_all("graph"), accuracy, order[:TRAIN], order[TRAIN : TRAIN + TEST]


@pytest.fixture(scope="module")
def fitted(nb201):
    bench, x, y, train, _ = nb201
    return GINModel.for_space(bench.space, seed=0, epochs=15).fit(x[train], y[train])


def test_gin_ranks_held_out_nb201_cells_better_than_simple_baselines(nb201, fitted):
    bench, x, y, train, test = nb201
    tau = stats.kendalltau(y[test], fitted.predict(x[test])).statistic
    one_hot = np.c_[encode_all("one_hot"), np.ones(len(y))]
    weights = np.linalg.lstsq(one_hot[train], y[train], rcond=None)[0]
    linear = stats.kendalltau(y[test], one_hot[test] @ weights).statistic  # measured ~0.55
    parameters = stats.kendalltau(y[test], bench.data.trainable_parameters[test]).statistic  # measured ~0.54
    assert tau > 0.6 and tau > max(linear, parameters) + 0.05, (tau, linear, parameters)  # measured 0.66


def _permuted(x, size, permutation):
    n, f = size
    adjacency = x[:, : n * n].reshape(-1, n, n)[:, permutation][:, :, permutation]
    features = x[:, n * n :].reshape(-1, n, f)[:, permutation]
    return np.concatenate([adjacency.reshape(len(x), -1), features.reshape(len(x), -1)], axis=1)


def test_predictions_do_not_depend_on_the_node_order(nb201, fitted):
    _, x, _, _, test = nb201
    cells = x[test[:300]]
    permutation = np.random.default_rng(3).permutation(8)
    assert not np.array_equal(_permuted(cells, (8, 7), permutation), cells)
    assert np.allclose(fitted.predict(_permuted(cells, (8, 7), permutation)), fitted.predict(cells), atol=1e-5)


def test_nb101_padding_nodes_are_ignored_wherever_they_sit():
    accuracy = nasarena.benchmark("nb101-lite").mean_over_trials("valid_accuracy")
    rows = np.random.default_rng(1).choice(np.flatnonzero(accuracy >= 0.5), 700, replace=False)
    x = graph_batch(rows)
    model = GINModel.for_space(NB101Space(), seed=0, epochs=8).fit(x[:300], accuracy[rows[:300]])
    held_out = x[300:]
    padded = (held_out[:, 49:].reshape(-1, 7, 5).sum(axis=2) == 0).any(axis=1)
    assert padded.mean() > 0.1  # smaller cells, their empty vertices before the output
    reversed_order = _permuted(held_out, (7, 5), np.arange(7)[::-1])  # padding now after the output
    predicted = model.predict(held_out)
    assert np.allclose(model.predict(reversed_order), predicted, atol=1e-5) and predicted.std() > 1e-3


def _small_fit(nb201, seed=0, **settings):
    bench, x, y, train, _ = nb201
    return GINModel.for_space(bench.space, seed=seed, epochs=8, **settings).fit(x[train[:300]], y[train[:300]])


OPTIONS = (("mse+hinge", True), ("mse", True), ("hinge", True), ("mse", False))


@pytest.fixture(scope="module")
def option_predictions(nb201):
    _, x, _, _, test = nb201
    return {(loss, log): _small_fit(nb201, loss=loss, log_transform=log).predict(x[test]) for loss, log in OPTIONS}


def test_loss_and_log_transform_options_run_and_change_the_fit(nb201, option_predictions):
    _, _, y, _, test = nb201
    for key, values in option_predictions.items():
        assert np.isfinite(values).all() and ((values >= 0) & (values <= 1)).all(), key
        assert stats.kendalltau(y[test], values).statistic > 0.1, key  # 8 short epochs: measured 0.18-0.61
    for i, a in enumerate(OPTIONS):
        for b in OPTIONS[i + 1 :]:
            assert not np.allclose(option_predictions[a], option_predictions[b]), (a, b)


def test_same_seed_same_predictions_and_the_callers_torch_stream_is_untouched(nb201, option_predictions):
    _, x, _, _, test = nb201
    first = option_predictions[("mse+hinge", True)]
    torch.manual_seed(5)
    expected_draw = torch.rand(3)
    torch.manual_seed(5)
    assert np.array_equal(_small_fit(nb201, seed=0).predict(x[test]), first)
    assert torch.equal(torch.rand(3), expected_draw)
    assert not np.allclose(_small_fit(nb201, seed=1).predict(x[test]), first)


def test_fitted_model_and_ensemble_pickle_and_predict_the_same(nb201, fitted):
    _, x, y, train, test = nb201
    restored = pickle.loads(pickle.dumps(fitted))
    assert restored._network is None  # rebuilt from numpy weights on first use
    assert np.array_equal(restored.predict(x[test]), fitted.predict(x[test]))
    assert np.array_equal(pickle.loads(pickle.dumps(restored)).predict(x[:50]), fitted.predict(x[:50]))
    ensemble = Ensemble("gin", members=2, seed=0, num_nodes=8, num_features=7, epochs=6).fit(x[train[:300]], y[train[:300]])
    mean, std = pickle.loads(pickle.dumps(ensemble)).predict(x[test])
    assert np.array_equal(mean, ensemble.predict(x[test])[0]) and np.median(mean) > 0.5 and np.median(std) > 0


def test_early_stopping_keeps_the_best_validation_epoch(nb201):
    bench, x, y, train, test = nb201
    model = GINModel.for_space(bench.space, seed=0, epochs=25, patience=2)
    model.fit(x[train[:500]], y[train[:500]], x[test[:300]], y[test[:300]])
    history = model.validation_history  # measured: stops after epoch 8, best epoch 6
    assert model.epochs_trained < 25 and len(history) == model.epochs_trained
    assert model.epochs_trained - model.best_epoch == 2 and history[model.best_epoch - 1] == min(history)
    assert model.objective(x[test[:300]], y[test[:300]]) == pytest.approx(min(history), rel=1e-6)
    assert min(history) < history[-1]  # so the kept weights are not the last epoch's


def test_bad_input_gets_specific_errors(nb201, fitted):
    _, x, y, train, _ = nb201
    with pytest.raises(ValueError, match=r"shape \(architectures, 120\)"):
        fitted.predict(x[:5, :100])
    with pytest.raises(ValueError, match="accuracies in \\[0, 1\\]"):
        GINModel(num_nodes=8, num_features=7).fit(x[:10], y[:10] * 100)
    with pytest.raises(ValueError, match="num_nodes must be a positive integer"):
        GINModel(num_features=7)
    with pytest.raises(ValueError, match="unknown GIN setting"):
        GINModel(num_nodes=8, num_features=7, hidden=3)
    with pytest.raises(ValueError, match="loss must be"):
        GINModel(num_nodes=8, num_features=7, loss="mse+l1")
    with pytest.raises(ValueError, match="both x_val and y_val"):
        GINModel(num_nodes=8, num_features=7).fit(x[:10], y[:10], x[:10])
    with pytest.raises(ValueError, match="padding node"):
        bad = x[:2].copy()
        bad[0, 64:] = 0
        bad[0, 64 : 64 + 7] = 1  # node 0 keeps features, every other node becomes padding but keeps its edges
        fitted.predict(bad)
    with pytest.raises(RuntimeError, match="not fitted"):
        GINModel(num_nodes=8, num_features=7).predict(x[:2])


def test_registered_and_importing_the_models_needs_no_torch():
    assert isinstance(make_model("gin", num_nodes=7, num_features=5), GINModel)
    code = "import sys, nasarena.surrogates.models as m; assert 'gin' in m.MODELS and 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
