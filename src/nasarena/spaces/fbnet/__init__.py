"""The FBNet block space (Wu et al. 2019) as NB301 benchmarks it (Siems et al., Appendix D)."""

from .arch import FBNetArch
from .blocks import BLOCKS, NUM_LAYERS, SIZE
from .configspace import CONFIG_ENCODINGS, config_space, config_vector, from_config, to_config
from .encodings import ENCODINGS, GRAPH_LABELS, GRAPH_SIZE, encode, graph, one_hot
from .space import FBNetSpace, mutate, neighbours, sample

__all__ = ["BLOCKS", "CONFIG_ENCODINGS", "ENCODINGS", "GRAPH_LABELS", "GRAPH_SIZE", "NUM_LAYERS", "SIZE",
           "FBNetArch", "FBNetSpace", "config_space", "config_vector", "encode", "from_config", "graph",
           "mutate", "neighbours", "one_hot", "sample", "to_config"]
