"""The NB201 search space as one object (the ``SearchSpace`` protocol of the design).

The benchmark's index order of the 15,625 cells is not a simple product order, so it ships as
package data (``nb201-cells.npz``); everything else is computed.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from ...io.packaged import load_arrays
from .cell import EDGES, NUM_CELLS, OPS, Cell201

CELLS_FILE = "nb201-cells.npz"
ENCODINGS = ("one_hot", "op_indices", "path")
# ops that carry a path onwards (a "none" edge breaks it)
_PATH_OPS = tuple(op for op in OPS if op != "none")


@lru_cache(maxsize=None)
def index_table() -> tuple[np.ndarray, dict[tuple[int, ...], int]]:
    """(op indices of every cell in the benchmark's index order, op indices -> index)."""
    ops = load_arrays(CELLS_FILE)["op_indices"]
    return ops, {tuple(row): i for i, row in enumerate(ops.tolist())}


def index_of(cell: Cell201) -> int:
    return index_table()[1][cell.op_indices]


def cell_at(index: int) -> Cell201:
    if not 0 <= index < NUM_CELLS:
        raise ValueError(f"NB201 index must be in 0..{NUM_CELLS - 1}, got {index}")
    return Cell201.from_indices(index_table()[0][index])


def _path_index() -> dict[tuple[str, ...], int]:
    """Every op sequence of an input->output path (lengths 1-3, no ``none``): 84 paths."""
    index = {}
    for length in (1, 2, 3):
        for path in itertools.product(_PATH_OPS, repeat=length):
            index[path] = len(index)
    return index


PATH_INDEX = _path_index()
# input -> output routes as edge positions in EDGES: 0->3, 0->1->3, 0->2->3, 0->1->2->3
_ROUTES = ((3,), (0, 4), (1, 5), (0, 2, 5))


class NB201Space:
    """Sampling, mutation, neighbourhoods and encodings of NB201 cells."""

    name = "nb201"
    size = NUM_CELLS

    def sample(self, rng: np.random.Generator) -> Cell201:
        return Cell201.from_indices(rng.integers(0, len(OPS), size=len(EDGES)))

    def mutate(self, cell: Cell201, rng: np.random.Generator, rate: float = 1.0) -> Cell201:
        """One edge, chosen uniformly, gets a different op, chosen uniformly (``rate`` is unused:
        NB201 mutation is always a single change)."""
        edge = int(rng.integers(len(EDGES)))
        others = [op for op in OPS if op != cell.ops[edge]]
        ops = list(cell.ops)
        ops[edge] = others[int(rng.integers(len(others)))]
        return Cell201(tuple(ops))

    def neighbours(self, cell: Cell201) -> list[Cell201]:
        """The 24 cells that differ in exactly one edge."""
        result = []
        for edge in range(len(EDGES)):
            for op in OPS:
                if op != cell.ops[edge]:
                    result.append(Cell201(cell.ops[:edge] + (op,) + cell.ops[edge + 1 :]))
        return result

    def categorical_dims(self) -> tuple[int, ...]:
        return (len(OPS),) * len(EDGES)

    def from_categorical(self, values) -> Cell201:
        return Cell201.from_indices(values)

    def encode(self, cell: Cell201, kind: str = "one_hot") -> np.ndarray:
        if kind == "one_hot":
            vector = np.zeros((len(EDGES), len(OPS)), dtype=np.float32)
            vector[np.arange(len(EDGES)), cell.op_indices] = 1.0
            return vector.ravel()
        if kind == "op_indices":
            return np.array(cell.op_indices, dtype=np.int64)
        if kind == "path":
            return path_encoding(cell)
        raise ValueError(f"unknown encoding {kind!r}; available: {', '.join(ENCODINGS)}")

    def identity(self, cell: Cell201) -> str:
        return cell.to_string()

    def enumerate(self) -> list[Cell201]:
        """All cells in the benchmark's index order."""
        return [Cell201.from_indices(row) for row in index_table()[0]]


def path_encoding(cell: Cell201) -> np.ndarray:
    """BANANAS path encoding: one bit per op sequence of an input->output path (84 bits)."""
    encoding = np.zeros(len(PATH_INDEX), dtype=np.int8)
    for route in _ROUTES:
        ops = tuple(cell.ops[e] for e in route)
        if "none" not in ops:
            encoding[PATH_INDEX[ops]] = 1
    return encoding
