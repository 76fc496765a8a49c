"""GIN surrogate vs XGBoost on NAS-Bench-101: fit time, prediction throughput, held-out Kendall tau.

Run: .venv/bin/python bench/bench_gin.py [--train 20000] [--epochs 128] [--threads 1]
Baseline: XGBoost with the Table 6 defaults on the adjacency + one-hot encoding, fitted in the
same run on the same split. Data: ``nb101-lite`` (one real accuracy draw per cell); as in the
NAS-Bench-301 paper's Sec. 2, diverged cells (accuracy < 50%) are left out. Both models stop
early on the same validation cells. The GIN's Table 6 budget is 128 epochs; ``--epochs``
shortens it on a small machine (the report says which was used).
"""

import argparse
import time

import numpy as np

import nasarena
from nasarena.spaces.nb101 import unique_cells
from nasarena.spaces.nb101.encodings import EDGE_PAIRS, NUM_OP_SLOTS, adjacency_one_hot, graph_batch
from nasarena.spaces.nb101.space import NB101Space
from nasarena.surrogates.gin import GINModel
from nasarena.surrogates.metrics import fit_metrics
from nasarena.surrogates.models import XGBoostModel


def adjacency_one_hot_from_graphs(graphs: np.ndarray) -> np.ndarray:
    """The 36-float adjacency_one_hot encoding read off graph encodings (checked against the library)."""
    n, f = NB101Space.graph_size
    adjacency = graphs[:, : n * n].reshape(-1, n, n)
    features = graphs[:, n * n :].reshape(-1, n, f)
    edges = np.stack([adjacency[:, x, y] for x, y in EDGE_PAIRS], axis=1)
    ops = features[:, 1 : 1 + NUM_OP_SLOTS, 1 : f - 1].reshape(len(graphs), -1)
    return np.concatenate([edges, ops], axis=1)


def timed(function, *args):
    start = time.perf_counter()
    value = function(*args)
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=20_000)
    parser.add_argument("--val", type=int, default=2_000)
    parser.add_argument("--test", type=int, default=20_000)
    parser.add_argument("--predict", type=int, default=100_000, help="graphs for the throughput measurement")
    parser.add_argument("--epochs", type=int, default=128)
    parser.add_argument("--patience", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads for the GIN")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    accuracy = nasarena.benchmark("nb101-lite").mean_over_trials("valid_accuracy")
    usable = np.flatnonzero(accuracy >= 0.5)
    rng = np.random.default_rng(args.seed)
    rows = rng.permutation(usable)
    train, val = rows[: args.train], rows[args.train : args.train + args.val]
    test = rows[args.train + args.val : args.train + args.val + args.test]
    every = np.concatenate([train, val, test])
    table = unique_cells()  # loaded before the timing
    graphs, encode_seconds = timed(graph_batch, every)
    one_hot = adjacency_one_hot_from_graphs(graphs)
    for i in rng.choice(len(every), 200, replace=False).tolist():
        assert np.array_equal(one_hot[i], adjacency_one_hot(table.cell(int(every[i]))))
    parts = np.split(np.arange(len(every)), [len(train), len(train) + len(val)])
    print(f"nb101-lite: {len(usable):,} cells with accuracy >= 50%; train {len(train):,}, validation {len(val):,}, "
          f"test {len(test):,}; graph_batch encoded {len(every):,} cells in {encode_seconds:.2f} s; "
          f"torch threads {torch.get_num_threads()}")

    models = {
        "gin": (GINModel.for_space(NB101Space(), seed=args.seed, epochs=args.epochs, patience=args.patience), graphs),
        "xgb": (XGBoostModel(seed=args.seed), one_hot),
    }
    predict_rows = rng.choice(len(table), args.predict, replace=False)
    predict_inputs = {"gin": graph_batch(predict_rows), "xgb": None}
    predict_inputs["xgb"] = adjacency_one_hot_from_graphs(predict_inputs["gin"])
    print(f"{'model':5} {'fit s':>8} {'graphs/s':>10} {'tau':>6} {'sparse tau':>10} {'R2':>6} {'MAE':>7}  notes")
    for name, (model, x) in models.items():
        _, fit_seconds = timed(model.fit, x[parts[0]], accuracy[train], x[parts[1]], accuracy[val])
        model.predict(predict_inputs[name][:1000])  # warm-up
        _, predict_seconds = timed(model.predict, predict_inputs[name])
        metrics = fit_metrics(accuracy[test], model.predict(x[parts[2]]))
        notes = (f"epochs {model.epochs_trained} (best {model.best_epoch}) of {args.epochs}"
                 if name == "gin" else f"rounds {model.model.best_iteration + 1}")
        print(f"{name:5} {fit_seconds:8.1f} {args.predict / predict_seconds:10,.0f} {metrics.kendall_tau:6.3f} "
              f"{metrics.sparse_kendall_tau:10.3f} {metrics.r2:6.3f} {metrics.mae:7.4f}  {notes}")


if __name__ == "__main__":
    main()
