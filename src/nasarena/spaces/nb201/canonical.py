"""De-duplication of equivalent NB201 cells: the benchmark's 6,466 unique architectures.

The NB201 paper reports 6,466 unique cells among the 15,625. That number comes from one
specific rule, reproduced by :func:`benchmark_form`: write the expression the output node
computes, with

1. ``skip_connect`` as the identity: the source node's expression is substituted;
2. ``none`` as zero, written ``#``; any op applied to a node whose whole expression is ``#``
   is ``#`` as well (only node 1 can be that: nodes 2 and 3 have several inputs);
3. a node's expression is its input terms, sorted as text and joined with ``+``
   (commutativity of the sum);

and call two cells equivalent when the expressions are the same text. Consequences:
a node that does not reach the output (e.g. node 2 when edge 3 <- 2 is ``none``) does not
appear, so the ops feeding it do not matter; and the text does not say which ops share
weights, so ``conv(x)`` computed once and fed to two nodes reads the same as two separate
``conv(x)`` edges. What the rule does *not*
recognise: zero terms stay in their sums (``x + 0`` differs from ``x``), a sum of zeros is not
zero, and a sum substituted through a skip edge is spliced in as text, so associativity holds
only where that text happens to sort into place. These gaps are what make the count 6,466.
The benchmark's own data points to this rule too: where its parameter counts mix records of
two cells, the two are always in the same class (see :mod:`.network`).

:func:`algebraic_form` applies the algebra fully instead (flattened multisets, zeros removed,
all-zero nodes are zero) and merges further, into 4,930 classes; a weight-aware alternative
(labelled DAGs without ``none`` edges and dead nodes, up to swapping nodes 1 and 2) keeps
8,765. Only the benchmark's rule gives the paper's count, so it defines the classes here.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .order import op_indices_by_index
from .vocabulary import EDGES, OPS

#: Number of classes of :func:`benchmark_form` (the NB201 paper's unique architectures).
NUM_UNIQUE = 6466
_ZERO = "#"


def benchmark_form(ops: tuple[str, ...]) -> str:
    """The benchmark's canonical expression of a cell (ops in edge order); see the module."""
    nodes = {0: "x"}
    for node in (1, 2, 3):
        terms = []
        for (to, source), op in zip(EDGES, ops):
            if to != node:
                continue
            value = nodes[source]
            if op == "none" or value == _ZERO:
                terms.append(_ZERO)
            elif op == "skip_connect":
                terms.append(value)
            else:
                terms.append(f"({value})@{op}")
        nodes[node] = "+".join(sorted(terms))
    return nodes[3]


def algebraic_form(ops: tuple[str, ...]) -> str:
    """The output as a flattened multiset of terms with zeros removed; ``()`` is zero."""
    nodes: dict[int, tuple] = {0: ("x",)}
    for node in (1, 2, 3):
        terms: list = []
        for (to, source), op in zip(EDGES, ops):
            if to != node or op == "none" or not nodes[source]:
                continue
            terms.extend(nodes[source] if op == "skip_connect" else [(op, nodes[source])])
        nodes[node] = tuple(sorted(terms, key=repr))
    return repr(nodes[3])


@lru_cache(maxsize=None)
def _representatives() -> np.ndarray:
    first: dict[str, int] = {}
    table = np.empty(len(op_indices_by_index()), dtype=np.int64)
    for index, row in enumerate(op_indices_by_index().tolist()):
        table[index] = first.setdefault(benchmark_form(tuple(OPS[i] for i in row)), index)
    table.setflags(write=False)
    return table


def unique_cells() -> np.ndarray:
    """For each official index, the smallest official index of its class (int64[15,625]).

    ``np.unique(unique_cells())`` lists the 6,466 representatives; a cell is its class's
    representative exactly when ``unique_cells()[i] == i``.
    """
    return _representatives()


def canonical_id(cell) -> int:
    """Official index of the representative of ``cell``'s class (its smallest index)."""
    return int(_representatives()[cell.index])
