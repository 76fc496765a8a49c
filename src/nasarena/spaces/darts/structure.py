"""The DARTS cell's vocabulary: ops, nodes, edge slots and parent pairs, and the space's size.

A cell (Liu et al. 2019) has two input nodes, 0 (the output of the cell before the previous
one, ``c_{k-2}``) and 1 (the previous cell's, ``c_{k-1}``), and four intermediate nodes 2-5.
Intermediate node ``n`` sums two ops, each applied to a different earlier node; the cell's
output concatenates nodes 2-5. A network has a *normal* and a *reduction* cell, each chosen
independently.

The orders here are NB301's (its ``configspace.json``), on which the ConfigSpace
representation, the categorical vector and every encoding rest:

- ``OPS``: the 7 searchable ops in the DARTS order (``none`` is not searchable).
- ``EDGE_SLOTS``: the 14 possible edges of a cell as ``(node, input)``, node by node and,
  within a node, by input: slot ``k`` is NB301's ``edge_<cell>_<k>``. Node 2 has slots 0-1,
  node 3 slots 2-4, node 4 slots 5-8, node 5 slots 9-13.
- ``PARENT_PAIRS[node]``: the unordered pairs of distinct inputs of a node, in the order of
  NB301's choices ``"0_1", "0_2", ..., "3_4"`` (lexicographic).
"""

from __future__ import annotations

import itertools
import math

#: The searchable ops in the DARTS order; an op's position is its op index.
OPS: tuple[str, ...] = ("max_pool_3x3", "avg_pool_3x3", "skip_connect", "sep_conv_3x3", "sep_conv_5x5",
                        "dil_conv_3x3", "dil_conv_5x5")
#: The two cells of a network, in genotype (and ConfigSpace) order.
CELL_TYPES: tuple[str, ...] = ("normal", "reduce")
#: The cell's input nodes (c_{k-2}, c_{k-1}) and intermediate nodes.
INPUT_NODES: tuple[int, ...] = (0, 1)
INTERMEDIATE_NODES: tuple[int, ...] = (2, 3, 4, 5)
#: Inputs of each intermediate node (every intermediate node has exactly two).
EDGES_PER_NODE = 2
#: The genotype's edges per cell: two per intermediate node.
EDGES_PER_CELL = EDGES_PER_NODE * len(INTERMEDIATE_NODES)
#: Every possible edge of a cell as (node, input), in NB301's edge-index order.
EDGE_SLOTS: tuple[tuple[int, int], ...] = tuple((node, source) for node in INTERMEDIATE_NODES
                                                for source in range(node))
SLOT_INDEX: dict[tuple[int, int], int] = {slot: k for k, slot in enumerate(EDGE_SLOTS)}
#: For each intermediate node, its unordered input pairs in NB301's choice order.
PARENT_PAIRS: dict[int, tuple[tuple[int, int], ...]] = {
    node: tuple(itertools.combinations(range(node), EDGES_PER_NODE)) for node in INTERMEDIATE_NODES}


def pair_name(pair: tuple[int, int]) -> str:
    """NB301's name of an input pair, e.g. ``"0_2"``."""
    return "_".join(str(source) for source in pair)


def cell_size() -> int:
    """Number of distinct cells: per node, an unordered input pair and an op per input.

    Pairs are unordered because a node *sums* its two inputs: ``[(a, 0), (b, 1)]`` and
    ``[(b, 1), (a, 0)]`` are one cell, and NB301's ConfigSpace has one configuration for it
    (a pair choice ``"0_1"`` plus one op parameter per used edge). Counting ordered pairs
    would count each cell 2^4 times.
    """
    return math.prod(len(PARENT_PAIRS[node]) * len(OPS) ** EDGES_PER_NODE for node in INTERMEDIATE_NODES)


#: Number of architectures (a normal and a reduction cell): (180 * 7^8)^2, about 1.08e18.
SIZE: int = cell_size() ** len(CELL_TYPES)
