"""The NAS-Bench-201 cell space (Dong & Yang 2020)."""

from .cell import EDGES, NUM_CELLS, OPS, Cell201
from .network import flops, trainable_parameters
from .space import NB201Space, cell_at, index_of

__all__ = ["EDGES", "NUM_CELLS", "OPS", "Cell201", "NB201Space", "cell_at", "flops", "index_of",
           "trainable_parameters"]
