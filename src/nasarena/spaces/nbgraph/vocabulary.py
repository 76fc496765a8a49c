"""NAS-Bench-Graph's vocabulary: its operations and the link patterns its keys are written with.

Facts of the benchmark (Qin et al., NeurIPS 2022 Datasets and Benchmarks), as the
``nas-bench-graph`` package (1.4.0, ``architecture.py``) defines them; the conversion script and
the tests check every one against the package:

- :data:`OPERATIONS`: the 9 operations in the package's order, which is also the digit of an
  operation in a key (so it must not be re-ordered);
- :data:`PROTEINS_OPERATIONS`: the 5 of them the proteins dataset was measured with;
- :data:`LINK_PATTERNS`: the 9 input patterns a key can name (its first digit); every other
  pattern is an isomorphic drawing of one of these.
"""

from __future__ import annotations

#: The GNN operations, in the package's (key digit) order: GAT (2 heads), GCN, GIN, ChebNet,
#: GraphSAGE, ARMA, k-GNN (the package's ``graph``), a fully connected layer (no message
#: passing) and the identity.
OPERATIONS: tuple[str, ...] = ("gat", "gcn", "gin", "cheb", "sage", "arma", "graph", "fc", "skip")
#: The operations of the proteins dataset's space.
PROTEINS_OPERATIONS: tuple[str, ...] = ("gcn", "sage", "arma", "fc", "skip")
#: The identity: a node that forwards its input unchanged.
SKIP = "skip"
#: Computing nodes of an architecture (node 0 is the input).
NUM_NODES = 4
#: The input of each computing node of the package's representatives, by a key's first digit.
LINK_PATTERNS: tuple[tuple[int, ...], ...] = (
    (0, 0, 0, 0), (0, 0, 0, 1), (0, 0, 1, 1), (0, 0, 1, 2), (0, 0, 1, 3),
    (0, 1, 1, 1), (0, 1, 1, 2), (0, 1, 2, 2), (0, 1, 2, 3),
)
#: The base a key's digits are written in (the package's: one more than the operations).
KEY_BASE = len(OPERATIONS) + 1
