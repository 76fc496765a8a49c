"""The search spaces a surrogate can be fitted on, looked up by the name an artefact records.

An artefact stores only the space's name (``nb101``, ``nb201``, ``darts``, ``fbnet``), so a
loaded surrogate rebuilds the same space object the optimizers use. DARTS and FBNet are
optional packages of nasarena: naming them where they are not installed is a clear error.

For the finite spaces (NB101, NB201) a :class:`FiniteIndex` numbers every architecture (NB101:
the sorted-hash row of ``unique_cells()``, NB201: the official index) and encodes all of them
at once with vectorised code, which is what fitting on a whole table and finding the optimum
over the enumerated space need.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Encoding a surrogate uses by default: the fixed-size vector each space's predictors use.
DEFAULT_ENCODINGS = {"nb101": "adjacency_one_hot", "nb201": "one_hot", "darts": "config_vector",
                     "fbnet": "config_vector"}
#: Training epochs of the benchmark each space comes from, the fidelity of data without one.
DEFAULT_EPOCHS = {"nb101": 108, "nb201": 200, "darts": 100, "fbnet": 200}


def space_by_name(name: str):
    """A new space object of the named space (the full space, default sampler), from the one
    table of spaces (:mod:`nasarena.spaces.registry`)."""
    from ..spaces.registry import space

    return space(name)


def default_encoding(space_name: str) -> str:
    return DEFAULT_ENCODINGS.get(space_name, "config_vector")


def default_epochs(space_name: str) -> int:
    try:
        return DEFAULT_EPOCHS[space_name]
    except KeyError:
        raise ValueError(f"no default number of epochs for space {space_name!r}: give the fidelity") from None


@dataclass(frozen=True)
class FiniteIndex:
    """Numbers and encodes every architecture of a finite space."""

    space_name: str
    size: int

    def row(self, arch) -> int:
        """The architecture's number in the enumeration (NB101 row, NB201 index)."""
        if self.space_name == "nb101":
            row = arch.row
            if row is None:
                raise ValueError(f"invalid NB101 cell has no row: {arch.reason}")
            return row
        return arch.index

    def architecture(self, row: int):
        if self.space_name == "nb101":
            from ..spaces.nb101 import unique_cells

            return unique_cells().cell(int(row))
        from ..spaces.nb201 import Cell201

        return Cell201.from_index(int(row))

    def identity(self, row: int) -> str:
        return str(self.identities([row])[0])

    def identities(self, rows) -> np.ndarray:
        """The identities (``space.identity``) of the architectures at ``rows``, as strings."""
        rows = np.asarray(rows, dtype=np.int64)
        if self.space_name == "nb101":
            from ..spaces.nb101 import unique_cells

            return unique_cells().hashes[rows].astype(object)
        return np.array([self.architecture(r).to_string() for r in rows.tolist()], dtype=object)

    def encode_rows(self, rows, kind: str) -> np.ndarray:
        """Encodings of the architectures at ``rows`` (vectorised where the space allows)."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) and (rows.min() < 0 or rows.max() >= self.size):
            raise ValueError(f"{self.space_name} rows must be in 0..{self.size - 1}, "
                             f"got values in {rows.min()}..{rows.max()}")
        if self.space_name == "nb201":
            from ..spaces.nb201 import encode_all

            return encode_all(kind)[rows].astype(np.float32)
        if kind == "adjacency_one_hot":
            return nb101_adjacency_one_hot(rows)
        from ..spaces.nb101 import encodings

        if kind == "graph" and hasattr(encodings, "graph_batch"):
            return encodings.graph_batch(rows).astype(np.float32)
        space = space_by_name(self.space_name)
        return np.stack([space.encode(self.architecture(r), kind) for r in rows.tolist()]).astype(np.float32)


class IndexedArchitectures(Sequence):
    """Architectures of a finite space given by their rows, built only when one is looked at.

    Training and validation sets taken from a whole table (hundreds of thousands of NB101
    cells) never need the cell objects, only their encodings, which the index computes from
    the rows at once.
    """

    def __init__(self, index: FiniteIndex, rows):
        self.index = index
        self.rows = np.asarray(rows, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return IndexedArchitectures(self.index, self.rows[i])
        return self.index.architecture(self.rows[i])

    def take(self, positions) -> IndexedArchitectures:
        return IndexedArchitectures(self.index, self.rows[np.asarray(positions, dtype=np.int64)])


def finite_index(space_name: str) -> FiniteIndex | None:
    """The index of a finite space, or None for spaces too large to enumerate."""
    if space_name == "nb101":
        from ..spaces.nb101 import NUM_UNIQUE_CELLS

        return FiniteIndex("nb101", NUM_UNIQUE_CELLS)
    if space_name == "nb201":
        from ..spaces.nb201 import NUM_CELLS

        return FiniteIndex("nb201", NUM_CELLS)
    return None


def nb101_adjacency_one_hot(rows) -> np.ndarray:
    """``adjacency_one_hot`` of many rows of ``unique_cells()``, (len(rows), 36) float32.

    The same canonical, widened form as the per-cell encoding (tested equal), computed from the
    table's columns one vertex count at a time: edge bit i of an n-vertex cell is edge (x, y)
    in ``edge_pairs(n)`` order, and widening to 7 vertices moves the output (y = n - 1) to 6.
    """
    from ..spaces.nb101 import unique_cells
    from ..spaces.nb101.enumeration import edge_pairs

    table = unique_cells()
    rows = np.asarray(rows, dtype=np.int64)
    out = np.zeros((len(rows), 36), dtype=np.float32)
    vertices = table.num_vertices[rows].astype(np.int64)
    for n in np.unique(vertices).tolist():
        selected = np.flatnonzero(vertices == n)
        masks = table.bitmasks[rows[selected]].astype(np.int64)
        for bit, (x, y) in enumerate(edge_pairs(n)):
            target = 6 if y == n - 1 else y
            out[selected, x + target * (target - 1) // 2] = (masks >> bit) & 1
    labels = table.labellings[rows].astype(np.int64)
    out[:, 21:] = (labels[:, :, None] == np.arange(3)).reshape(len(rows), 15)
    return out


def exact_parameters(space_name: str, dataset: str | None):
    """A function arch -> exact trainable parameters, or None where nasarena cannot count them.

    NB101 counts come from the embedded table (by row), NB201 counts from the network
    definition for the artefact's dataset (CIFAR-10 when it records none).
    """
    if space_name == "nb101":
        from ..benchmarks.nb101 import LITE_FILE
        from ..io.packaged import load_arrays

        counts = load_arrays(LITE_FILE)["trainable_parameters"]
        return lambda cell: counts.item(cell.row)
    if space_name == "nb201":
        from ..spaces.nb201 import trainable_parameters

        return lambda cell: trainable_parameters(cell, dataset or "cifar10")
    return None
