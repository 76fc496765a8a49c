"""The NAS-Bench-Graph space (Qin et al., NeurIPS 2022): GNNs of 4 computing nodes, one input each."""

from .arch import GraphArch
from .canonical import network_form, paths
from .configspace import CONFIG_ENCODINGS
from .encodings import ENCODINGS, Encoder
from .keys import NBGRAPH_FILE, SPACE_FILE, decode, embedded_arrays, key_table, space_arrays
from .space import NBGraphProteinsSpace, NBGraphSpace
from .vocabulary import LINK_PATTERNS, NUM_NODES, OPERATIONS, PROTEINS_OPERATIONS, SKIP

__all__ = ["CONFIG_ENCODINGS", "ENCODINGS", "LINK_PATTERNS", "NBGRAPH_FILE", "NUM_NODES", "OPERATIONS",
           "PROTEINS_OPERATIONS", "SKIP", "SPACE_FILE", "Encoder", "GraphArch", "NBGraphProteinsSpace", "NBGraphSpace",
           "decode", "embedded_arrays", "key_table", "network_form", "paths", "space_arrays"]
