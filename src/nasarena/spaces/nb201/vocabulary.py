"""The NAS-Bench-201 cell's vocabulary: its ops and its edges.

Both orders are the benchmark's own, and everything else depends on them: ``OPS`` is the op
order of the benchmark's enumeration (and so of its index order, see :mod:`.order`) and the
column order of the one-hot encoding; ``EDGES`` is the order in which the cell string lists
the edges.
"""

#: Ops in the benchmark's search-space order; an op's position is its op index.
OPS: tuple[str, ...] = ("none", "skip_connect", "nor_conv_1x1", "nor_conv_3x3", "avg_pool_3x3")
#: Edges as (to, from) node pairs, in cell-string order: node 1's input, node 2's, node 3's.
EDGES: tuple[tuple[int, int], ...] = ((1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2))
#: Every op on every edge: 5 ** 6 cells.
NUM_CELLS = len(OPS) ** len(EDGES)
