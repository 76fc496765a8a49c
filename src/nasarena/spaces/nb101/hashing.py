"""The official NAS-Bench-101 module hash (``graph_util.hash_module`` of the original code).

This is the reference, per-cell implementation of the algorithm; it is the specification
that the fast paths (the precomputed lookup in :mod:`.table` and the vectorised enumeration
in :mod:`.enumeration`) are tested against.

The hash is a Weisfeiler-Lehman style refinement with md5: every vertex starts with the md5
of the text ``"(out_degree, in_degree, label)"``; for ``V`` rounds each vertex is replaced
by ``md5(sorted in-neighbour hashes | sorted out-neighbour hashes | own hash)``; the cell's
fingerprint is the md5 of the text of the sorted list of vertex hashes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

#: Integer labels used by the hash: input and output are fixed, interior ops index OPS.
INPUT_LABEL = -1
OUTPUT_LABEL = -2


def _md5_hex(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def initial_vertex_text(out_degree: int, in_degree: int, label: int) -> str:
    """The text whose md5 is a vertex's round-0 hash, e.g. ``"(1, 0, -1)"``."""
    return str((int(out_degree), int(in_degree), int(label)))


def fingerprint(matrix: Sequence[Sequence[int]], labels: Sequence[int]) -> str:
    """Module hash of a (pruned) cell given as a 0/1 upper-triangular matrix and integer labels.

    ``labels`` uses -1 for the input, -2 for the output and 0/1/2 for
    conv3x3/conv1x1/maxpool3x3. The matrix must already be pruned; :class:`Cell` does that.
    """
    num_vertices = len(matrix)
    rows = [[int(x) for x in row] for row in matrix]
    out_neighbours = [[w for w in range(num_vertices) if rows[v][w]] for v in range(num_vertices)]
    in_neighbours = [[u for u in range(num_vertices) if rows[u][v]] for v in range(num_vertices)]
    hashes = [
        _md5_hex(initial_vertex_text(len(out_neighbours[v]), len(in_neighbours[v]), labels[v]))
        for v in range(num_vertices)
    ]
    for _ in range(num_vertices):
        hashes = [
            _md5_hex(
                "".join(sorted(hashes[u] for u in in_neighbours[v]))
                + "|"
                + "".join(sorted(hashes[w] for w in out_neighbours[v]))
                + "|"
                + hashes[v]
            )
            for v in range(num_vertices)
        ]
    return _md5_hex(str(sorted(hashes)))
