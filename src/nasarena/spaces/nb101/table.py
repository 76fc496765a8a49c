"""The table of all unique NB101 cells: one row each, in the official (sorted-hash) order.

Hashing a cell by look-up, and the package data behind both, live in :mod:`.lookup`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from ...io.packaged import load_arrays
from .cell import Cell
from .enumeration import NUM_OPS, masks_to_matrices
from .lookup import CELLS_FILE, cell_hashes, labelled_table
from .vocabulary import INPUT, OPS, OUTPUT

NUM_UNIQUE_CELLS = 423_624


@dataclass(frozen=True)
class UniqueCells:
    """All unique NB101 cells, one row each, sorted by hash string (the official dataset order).

    ``hashes[i]`` is the module hash of row ``i``; the row's canonical cell (the first
    labelled graph with that hash in the enumeration order of the original code) has
    ``num_vertices[i]`` vertices, ``num_edges[i]`` edges, edge bitmask ``bitmasks[i]``
    (bit ``x + y(y-1)/2`` is edge x->y) and interior labels ``labellings[i]``.
    """

    hashes: np.ndarray
    num_vertices: np.ndarray
    num_edges: np.ndarray
    bitmasks: np.ndarray
    labellings: np.ndarray  # (N, 5) int8, interior labels, -1 padding beyond num_vertices-2

    def __len__(self) -> int:
        return len(self.hashes)

    @cached_property
    def index(self) -> dict[str, int]:
        """Hash -> row index."""
        return {h: i for i, h in enumerate(self.hashes.tolist())}

    def index_of(self, module_hash: str) -> int:
        row = int(np.searchsorted(self.hashes, module_hash))
        if row >= len(self.hashes) or self.hashes[row] != module_hash:
            raise KeyError(f"{module_hash!r} is not the hash of a cell in the NB101 space")
        return row

    def matrix(self, row: int) -> np.ndarray:
        return masks_to_matrices(np.array([self.bitmasks[row]]), int(self.num_vertices[row]))[0].astype(np.int8)

    def ops(self, row: int) -> list[str]:
        interior = self.labellings[row, : int(self.num_vertices[row]) - 2]
        return [INPUT, *(OPS[int(label)] for label in interior), OUTPUT]

    def __getitem__(self, row: int):
        return self.cell(row)

    def cell(self, row: int):
        """The canonical :class:`~.cell.Cell` of a row."""
        return Cell(self.matrix(row), self.ops(row))


@lru_cache(maxsize=None)
def unique_cells() -> UniqueCells:
    """The 423,624 unique cells of NAS-Bench-101, loaded from package data (verified)."""
    arrays = load_arrays(CELLS_FILE)
    table = labelled_table()
    graphs = arrays["canonical_graph"].astype(np.int64)
    codes = arrays["canonical_labelling"].astype(np.int64)
    vertices = table.graph_vertices[graphs]
    bitmasks = table.graph_bitmasks[graphs]
    interior = vertices.astype(np.int64) - 2
    labels = np.full((len(codes), 5), -1, dtype=np.int64)
    for i in range(5):  # interior vertex i + 1 is base-3 digit i of the code, most significant first
        present = i < interior
        exponent = np.maximum(interior - 1 - i, 0)
        labels[:, i] = np.where(present, (codes // NUM_OPS**exponent) % NUM_OPS, -1)
    num_edges = ((bitmasks[:, None].astype(np.int64) >> np.arange(21)) & 1).sum(axis=1)
    return UniqueCells(
        hashes=cell_hashes(),
        num_vertices=vertices.astype(np.uint8),
        num_edges=num_edges.astype(np.uint8),
        bitmasks=bitmasks,
        labellings=labels.astype(np.int8),
    )
