"""The DARTS cell space (Liu et al. 2019) as NB301 benchmarks it (Siems et al.)."""

from .categorical import CATEGORICAL_DIMS, from_categorical, to_categorical
from .configspace import CONFIG_ENCODINGS, config_space, config_vector, from_config, to_config
from .encodings import ENCODINGS, GRAPH_LABELS, GRAPH_SIZE, adjacency_one_hot, encode, graph, one_hot
from .genotype import DartsArch
from .operations import mutate, neighbours, sample
from .space import DartsSpace
from .structure import CELL_TYPES, EDGE_SLOTS, OPS, PARENT_PAIRS, SIZE, cell_size
from .text import from_text, to_text

__all__ = ["CATEGORICAL_DIMS", "CELL_TYPES", "CONFIG_ENCODINGS", "EDGE_SLOTS", "ENCODINGS", "GRAPH_LABELS",
           "GRAPH_SIZE", "OPS", "PARENT_PAIRS", "SIZE", "DartsArch", "DartsSpace", "adjacency_one_hot", "cell_size",
           "config_space", "config_vector", "encode", "from_categorical", "from_config", "from_text", "graph",
           "mutate", "neighbours", "one_hot", "sample", "to_categorical", "to_config", "to_text"]
