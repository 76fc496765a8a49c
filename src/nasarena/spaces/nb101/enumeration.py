"""Exhaustive enumeration of the NAS-Bench-101 space, vectorised.

Every valid, pruned NB101 cell is a "full DAG": 2..7 vertices, at most 9 edges, every vertex
but the last has an out-edge and every vertex but the first an in-edge. The enumeration walks
all of them in the order of the original ``generate_graphs.py`` (vertices, then edge bitmask,
then interior labelling in lexicographic order) and gives each labelled graph its official
module hash; the unique cells are the distinct hashes, and the canonical representative of a
hash is the first labelled graph met in that order.

Why this is fast (the straightforward per-graph loop takes ~300 s):

1. Isomorphic labelled graphs have the same hash, and the input/output vertices are fixed by
   any isomorphism, so an exact canonical form only needs the (V-2)! interior permutations.
   It is computed once per *structure* (a few thousand) and combined with the labellings by
   table look-up, which collapses the 1.29 million labelled graphs to their isomorphism
   classes before any md5 is computed.
2. The md5 refinement then runs on one representative per class, all at once: messages of a
   round are assembled as numpy byte arrays (grouped by in/out degree so rows have equal
   length) and only the md5 calls themselves are a Python loop, split over worker processes.
3. Classes whose hashes coincide (a Weisfeiler-Lehman failure, which the official hash also
   merges) are merged by the final ``np.unique`` on the hashes, exactly as the original
   de-duplication by hash.

The output is identical to the reference implementation; the tests check this.
"""

from __future__ import annotations

import binascii
import hashlib
import itertools
import os
from dataclasses import dataclass

import numpy as np

from ...execution import run_tasks
from .hashing import INPUT_LABEL, OUTPUT_LABEL, initial_vertex_text

try:  # CPython's built-in md5 has ~2x less per-call overhead than OpenSSL's on short texts
    from _md5 import md5 as _md5
except ImportError:  # pragma: no cover - interpreters built without it
    from hashlib import md5 as _md5

MIN_VERTICES = 2
MAX_VERTICES = 7
MAX_EDGES = 9
NUM_OPS = 3

_PARALLEL_THRESHOLD = 200_000  # fewer md5 calls than this are not worth a process pool


def edge_pairs(num_vertices: int) -> list[tuple[int, int]]:
    """Upper-triangle edges ``(x, y)`` in bit order: bit ``i`` is ``(x, y)``, ``i = x + y(y-1)/2``."""
    return [(x, y) for y in range(num_vertices) for x in range(y)]


def masks_to_matrices(masks: np.ndarray, num_vertices: int) -> np.ndarray:
    """Adjacency matrices (G, V, V) of bool from edge bitmasks (G,)."""
    pairs = edge_pairs(num_vertices)
    bits = (np.asarray(masks, dtype=np.int64)[:, None] >> np.arange(len(pairs))) & 1
    matrices = np.zeros((len(bits), num_vertices, num_vertices), dtype=bool)
    for i, (x, y) in enumerate(pairs):
        matrices[:, x, y] = bits[:, i]
    return matrices


def full_dag_bitmasks(num_vertices: int, max_edges: int = MAX_EDGES) -> np.ndarray:
    """Ascending edge bitmasks of all full DAGs with ``num_vertices`` vertices, <= max_edges edges."""
    num_pairs = num_vertices * (num_vertices - 1) // 2
    masks = np.arange(2**num_pairs, dtype=np.int64)
    edge_counts = ((masks[:, None] >> np.arange(num_pairs)) & 1).sum(axis=1)
    masks = masks[edge_counts <= max_edges]
    adjacency = masks_to_matrices(masks, num_vertices)
    has_out = adjacency[:, :-1, :].any(axis=2).all(axis=1)
    has_in = adjacency[:, :, 1:].any(axis=1).all(axis=1)
    return masks[has_out & has_in]


def labellings(num_vertices: int) -> np.ndarray:
    """All labellings (K, V) in lexicographic order of the interior labels, with -1/-2 ends."""
    interior = list(itertools.product(range(NUM_OPS), repeat=num_vertices - 2))
    interior = np.array(interior, dtype=np.int64).reshape(len(interior), num_vertices - 2)
    return np.hstack(
        [np.full((len(interior), 1), INPUT_LABEL), interior, np.full((len(interior), 1), OUTPUT_LABEL)]
    )


def _interior_permutations(num_vertices: int) -> np.ndarray:
    """All vertex permutations (P, V) that fix the input (0) and the output (V-1)."""
    inner = list(itertools.permutations(range(1, num_vertices - 1)))
    return np.array([(0, *p, num_vertices - 1) for p in inner], dtype=np.int64)


def isomorphism_classes(adjacency: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Class id of every labelled graph ``g * K + k``, equal exactly for isomorphic graphs.

    The canonical form of a structure is the smallest bit code of its adjacency over the
    interior permutations; a labelled graph's canonical form adds the smallest labelling
    code over the permutations that achieve it (the structure's canonising permutations).
    """
    num_graphs, num_vertices, _ = adjacency.shape
    perms = _interior_permutations(num_vertices)
    weights = (np.int64(1) << np.arange(num_vertices * num_vertices, dtype=np.int64)).reshape(
        num_vertices, num_vertices
    )
    # permuted[g, p, a, b] = adjacency[g, perm[a], perm[b]]
    permuted = adjacency[:, perms[:, :, None], perms[:, None, :]]
    codes = (permuted * weights).sum(axis=(2, 3))  # (G, P)
    structure_code = codes.min(axis=1)
    graph_of_pair, perm_of_pair = np.nonzero(codes == structure_code[:, None])

    powers = NUM_OPS ** np.arange(num_vertices - 1, -1, -1, dtype=np.int64)
    label_codes = ((labels[:, perms] + 2) * powers).sum(axis=2).T  # (P, K)
    canonical_labels = np.full((num_graphs, len(labels)), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(canonical_labels, graph_of_pair, label_codes[perm_of_pair])

    _, structure_id = np.unique(structure_code, return_inverse=True)
    span = int(label_codes.max()) + 1
    keys = structure_id.astype(np.int64)[:, None] * span + canonical_labels
    return np.unique(keys.ravel(), return_inverse=True)[1]


# --- md5 over many rows ---------------------------------------------------------------------

def _md5_rows(messages: np.ndarray) -> bytes:
    """Concatenated md5 digests of the rows of a uint8 (M, L) message array."""
    length = messages.shape[1]
    buffer = memoryview(np.ascontiguousarray(messages)).cast("B")
    return b"".join([_md5(buffer[i : i + length]).digest() for i in range(0, len(buffer), length)])


def md5_digests(message_groups: list[np.ndarray], workers: int) -> list[np.ndarray]:
    """md5 digests (uint8 (M, 16)) of each row of each message array, on ``workers`` processes
    of the execution layer (:func:`nasarena.execution.run_tasks`) when there are enough rows.

    A task is a chunk of rows, passed to its worker by value: the pool's workers come from its
    fork server and share none of this process's memory, and copying a chunk through a pipe
    costs a small fraction of hashing its rows. The fork server imports this module once
    (``preload``), so the workers each call starts do not import it again; measured, the full
    enumeration is as fast as with the forked pool this replaced.
    """
    total = sum(len(m) for m in message_groups)
    if workers <= 1 or total < _PARALLEL_THRESHOLD:
        blobs = [_md5_rows(m) for m in message_groups]
    else:
        chunk = max(1, total // (4 * workers))
        tasks = [(i, s, m[s:s + chunk]) for i, m in enumerate(message_groups) for s in range(0, len(m), chunk)]
        pieces: dict[tuple[int, int], bytes] = {}
        run_tasks(_md5_chunk, tasks, workers, lambda task, digest: pieces.__setitem__(task[:2], digest),
                  preload=(__name__,))
        blobs = [b"".join(pieces[i, s] for s in range(0, len(m), chunk)) for i, m in enumerate(message_groups)]
    return [np.frombuffer(b, dtype=np.uint8).reshape(-1, 16) for b in blobs]


def _md5_chunk(group: int, start: int, messages: np.ndarray) -> bytes:
    """A task of :func:`md5_digests`: the digests of one chunk of rows (``group``, ``start`` name it)."""
    return _md5_rows(messages)


def _hex_text(digests: np.ndarray) -> np.ndarray:
    """Lower-case hex text (uint8 (M, 32) ASCII) of digests (uint8 (M, 16))."""
    hexed = binascii.hexlify(np.ascontiguousarray(digests).tobytes())
    return np.frombuffer(hexed, dtype=np.uint8).reshape(len(digests), 32)


def _digest_ranks(digests: np.ndarray) -> np.ndarray:
    """Rank of every digest in sorted order (the order of its hex text).

    Sorting by the leading 64 bits suffices unless two different digests share them; that
    is checked, and only then the full 128 bits are sorted.
    """
    words = np.ascontiguousarray(digests).view(">u8").astype(np.uint64)
    order = np.argsort(words[:, 0])
    leading = words[order, 0]
    same_lead = leading[1:] == leading[:-1]
    if same_lead.any() and (words[order[1:], 1][same_lead] != words[order[:-1], 1][same_lead]).any():
        order = np.lexsort((words[:, 1], words[:, 0]))
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = np.arange(len(order))
    return ranks


# --- the md5 refinement over class representatives -------------------------------------------

_BAR = np.frombuffer(b"|", dtype=np.uint8)


@dataclass(frozen=True)
class _DegreeGroup:
    """Vertices (rows of the flat (graph, vertex) table) sharing in- and out-degree."""

    rows: np.ndarray  # (M,)
    in_rows: np.ndarray  # (M, din) flat rows of the in-neighbours
    out_rows: np.ndarray  # (M, dout)


def _degree_groups(adjacency: np.ndarray) -> list[_DegreeGroup]:
    """Group every (graph, vertex) of ``adjacency`` (R, V, V) by its (in, out) degree."""
    num_graphs, num_vertices, _ = adjacency.shape
    in_degree = adjacency.sum(axis=1).ravel()
    out_degree = adjacency.sum(axis=2).ravel()
    graph_base = np.repeat(np.arange(num_graphs) * num_vertices, num_vertices)
    vertex = np.tile(np.arange(num_vertices), num_graphs)
    groups = []
    for din, dout in sorted(set(zip(in_degree.tolist(), out_degree.tolist()))):
        rows = np.flatnonzero((in_degree == din) & (out_degree == dout))
        graphs, verts = rows // num_vertices, vertex[rows]
        # neighbour vertex indices in ascending order (stable sort puts non-neighbours last)
        in_mask = adjacency[graphs, :, verts]
        out_mask = adjacency[graphs, verts, :]
        in_vertices = np.argsort(~in_mask, axis=1, kind="stable")[:, :din]
        out_vertices = np.argsort(~out_mask, axis=1, kind="stable")[:, :dout]
        groups.append(
            _DegreeGroup(
                rows=rows,
                in_rows=graph_base[rows][:, None] + in_vertices,
                out_rows=graph_base[rows][:, None] + out_vertices,
            )
        )
    return groups


def _sorted_neighbour_text(neighbour_rows: np.ndarray, ranks: np.ndarray, hexes: np.ndarray) -> list[np.ndarray]:
    """Hex texts of the neighbours of each row, in sorted text order (one array per slot)."""
    if neighbour_rows.shape[1] == 0:
        return []
    order = np.argsort(ranks[neighbour_rows], axis=1, kind="stable")
    ordered = np.take_along_axis(neighbour_rows, order, axis=1)
    return [hexes[ordered[:, i]] for i in range(ordered.shape[1])]


def module_hashes(adjacency: np.ndarray, labels: np.ndarray, workers: int = 1) -> np.ndarray:
    """Official module hash (S32) of each labelled graph: adjacency (R, V, V), labels (R, V).

    All graphs must have the same number of vertices and be pruned (full DAGs).
    """
    num_graphs, num_vertices, _ = adjacency.shape
    in_degree = adjacency.sum(axis=1)
    out_degree = adjacency.sum(axis=2)
    initial_codes = ((out_degree * 16 + in_degree) * 16 + (labels + 2)).ravel()
    distinct, inverse = np.unique(initial_codes, return_inverse=True)
    initial_text = []
    for code in distinct.tolist():
        out_d, rest = divmod(code, 256)
        in_d, label = divmod(rest, 16)
        initial_text.append(hashlib.md5(initial_vertex_text(out_d, in_d, label - 2).encode()).digest())
    digests = np.frombuffer(b"".join(initial_text), dtype=np.uint8).reshape(-1, 16)[inverse]

    groups = _degree_groups(adjacency)
    for _ in range(num_vertices):
        hexes = _hex_text(digests)
        ranks = _digest_ranks(digests)
        messages = []
        for group in groups:
            parts = _sorted_neighbour_text(group.in_rows, ranks, hexes)
            parts.append(np.broadcast_to(_BAR, (len(group.rows), 1)))
            parts += _sorted_neighbour_text(group.out_rows, ranks, hexes)
            parts.append(np.broadcast_to(_BAR, (len(group.rows), 1)))
            parts.append(hexes[group.rows])
            messages.append(np.hstack(parts))
        new_digests = np.empty_like(digests)
        for group, result in zip(groups, md5_digests(messages, workers)):
            new_digests[group.rows] = result
        digests = new_digests

    return _fingerprints(digests.reshape(num_graphs, num_vertices, 16), workers)


def _fingerprints(vertex_digests: np.ndarray, workers: int) -> np.ndarray:
    """md5 of the text ``"['h1', 'h2', ...]"`` of each graph's sorted vertex hashes."""
    num_graphs, num_vertices, _ = vertex_digests.shape
    flat = vertex_digests.reshape(-1, 16)
    ranks = _digest_ranks(flat).reshape(num_graphs, num_vertices)
    order = np.argsort(ranks, axis=1)
    hexes = _hex_text(flat).reshape(num_graphs, num_vertices, 32)
    hexes = np.take_along_axis(hexes, order[:, :, None], axis=1)

    def text(s: str) -> np.ndarray:
        return np.broadcast_to(np.frombuffer(s.encode(), dtype=np.uint8), (num_graphs, len(s)))

    parts = [text("['")]
    for v in range(num_vertices):
        if v:
            parts.append(text("', '"))
        parts.append(hexes[:, v])
    parts.append(text("']"))
    digests = md5_digests([np.hstack(parts)], workers)[0]
    return _hex_text(digests).view("S32").ravel()


@dataclass(frozen=True)
class Enumeration:
    """Every labelled full DAG of the space and the unique cells they hash to.

    ``graph_vertices[i]``/``graph_bitmasks[i]`` describe the i-th graph in enumeration order;
    its labellings occupy labelled indices ``labelled_offsets[i] + k`` (k in lexicographic
    order). ``row_of_labelled`` maps each labelled graph to its row in ``hashes`` (sorted).
    """

    graph_vertices: np.ndarray
    graph_bitmasks: np.ndarray
    labelled_offsets: np.ndarray
    hashes: np.ndarray
    row_of_labelled: np.ndarray


def labelled_hashes(num_vertices: int, workers: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(bitmasks (G,), hashes (G * K,) S32) of all labelled full DAGs with ``num_vertices``.

    Labelled graph ``g * K + k`` is graph ``bitmasks[g]`` with labelling ``k`` of :func:`labellings`.
    """
    masks = full_dag_bitmasks(num_vertices)
    adjacency = masks_to_matrices(masks, num_vertices)
    labels = labellings(num_vertices)
    classes = isomorphism_classes(adjacency, labels)
    _, representative = np.unique(classes, return_index=True)
    graph_of, labelling_of = np.divmod(representative, len(labels))
    hashes = module_hashes(adjacency[graph_of], labels[labelling_of], workers)
    return masks, hashes[classes]


def enumerate_space(workers: int | None = None) -> Enumeration:
    """Enumerate the NB101 space from scratch (about 10 s on 2 cores)."""
    workers = workers or os.cpu_count() or 1
    vertices, masks, hashes = [], [], []
    for num_vertices in range(MIN_VERTICES, MAX_VERTICES + 1):
        graph_masks, graph_hashes = labelled_hashes(num_vertices, workers)
        vertices.append(np.full(len(graph_masks), num_vertices, dtype=np.uint8))
        masks.append(graph_masks.astype(np.uint32))
        hashes.append(graph_hashes)
    graph_vertices = np.concatenate(vertices)
    per_graph = NUM_OPS ** (graph_vertices.astype(np.int64) - 2)
    offsets = np.concatenate([[0], np.cumsum(per_graph)[:-1]]).astype(np.int64)
    unique_hashes, rows = np.unique(np.concatenate(hashes), return_inverse=True)
    return Enumeration(
        graph_vertices=graph_vertices,
        graph_bitmasks=np.concatenate(masks),
        labelled_offsets=offsets,
        hashes=unique_hashes,
        row_of_labelled=rows.astype(np.int32),
    )
