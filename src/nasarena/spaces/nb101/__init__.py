"""The NAS-Bench-101 cell space (Ying et al. 2019), with the exact semantics of the original code."""

from .cell import CONV1X1, CONV3X3, INPUT, MAX_EDGES, MAX_VERTICES, MAXPOOL3X3, OPS, OUTPUT, Cell
from .lookup import BatchHashes, hash_cells
from .table import NUM_UNIQUE_CELLS, UniqueCells, unique_cells

__all__ = [
    "CONV1X1", "CONV3X3", "INPUT", "MAXPOOL3X3", "MAX_EDGES", "MAX_VERTICES", "NUM_UNIQUE_CELLS", "OPS",
    "OUTPUT", "BatchHashes", "Cell", "UniqueCells", "hash_cells", "unique_cells",
]
