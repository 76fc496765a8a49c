"""The NAS-Bench-201 cell space (Dong & Yang 2020)."""

from .canonical import NUM_UNIQUE, canonical_id, unique_cells
from .cell import EDGES, NUM_CELLS, OPS, Cell201
from .encodings import ENCODINGS, CellGraph, encode, encode_all, graph, one_hot, op_indices, path_encoding
from .network import flops, trainable_parameters
from .space import NB201Space, cell_at, index_of, mutate, neighbours, sample

__all__ = ["EDGES", "ENCODINGS", "NUM_CELLS", "NUM_UNIQUE", "OPS", "Cell201", "CellGraph", "NB201Space",
           "canonical_id", "cell_at", "encode", "encode_all", "flops", "graph", "index_of", "mutate",
           "neighbours", "one_hot", "op_indices", "path_encoding", "sample", "trainable_parameters",
           "unique_cells"]
