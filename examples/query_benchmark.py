"""Query a tabular benchmark: by row, by an architecture's text form, and as a cell.

Run: python examples/query_benchmark.py   (about a second; no network, the data is embedded)
"""

import numpy as np

import nasarena
from nasarena.spaces.nb101 import Cell

# NAS-Bench-201 on CIFAR-10: 15,625 cells, queried by row or by the official cell string.
nb201 = nasarena.benchmark("nb201-cifar10")
text = "|nor_conv_3x3~0|+|nor_conv_3x3~0|nor_conv_3x3~1|+|skip_connect~0|nor_conv_3x3~1|nor_conv_3x3~2|"
result = nb201.query(text, fidelity=200)
print(f"{text}\n  validation {result.valid_accuracy:.4f}, test {result.test_accuracy:.4f}, "
      f"{result.cost_seconds:,.0f} s of training, {result.trainable_parameters:,} parameters")
print(f"  regret against the best cell: {nb201.optimum() - nb201.final_test_accuracy(text):.4f} "
      f"(a fraction of accuracy: 0.01 = 1 percentage point)")
print(f"  as plain values: {result.to_dict()}")

# NAS-Bench-101 (all 423,624 cells): a cell is an upper-triangular adjacency matrix and its ops.
nb101 = nasarena.benchmark("nb101-lite")
cell = Cell(np.array([[0, 1, 1, 0, 0, 0, 0],
                      [0, 0, 0, 1, 0, 0, 0],
                      [0, 0, 0, 0, 1, 0, 0],
                      [0, 0, 0, 0, 0, 1, 0],
                      [0, 0, 0, 0, 0, 1, 0],
                      [0, 0, 0, 0, 0, 0, 1],
                      [0, 0, 0, 0, 0, 0, 0]]),
            ["input", "conv3x3-bn-relu", "conv1x1-bn-relu", "maxpool3x3", "conv3x3-bn-relu", "conv3x3-bn-relu",
             "output"])
result = nb101.query(cell, rng=np.random.default_rng(0))
print(f"NB101 cell {cell.hash}: test accuracy {result.test_accuracy:.4f}, "
      f"{result.trainable_parameters:,} parameters, modelled values: {sorted(result.modelled) or 'none'}")
