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
from functools import cached_property

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
    """Numbers and encodes every architecture of a finite space, through the space's whole-table
    capabilities (``at_row``, ``encode_rows``, ``identities``: :mod:`nasarena.spaces.protocol`)."""

    space_name: str
    size: int

    @cached_property
    def space(self):
        return space_by_name(self.space_name)

    def row(self, arch) -> int:
        """The architecture's number in the enumeration (NB101 row, NB201 index)."""
        problem = self.space.violation(arch)
        if problem is not None:
            raise ValueError(f"invalid {self.space_name.upper()} cell has no row: {problem}")
        return self.space.row(arch)

    def architecture(self, row: int):
        return self.space.at_row(int(row))

    def identity(self, row: int) -> str:
        return str(self.identities([row])[0])

    def identities(self, rows) -> np.ndarray:
        """The identities (``space.identity``) of the architectures at ``rows``, as strings."""
        rows = np.asarray(rows, dtype=np.int64)
        many = getattr(self.space, "identities", None)
        if many is not None:
            return many(rows)
        return np.array([self.space.identity(self.architecture(r)) for r in rows.tolist()], dtype=object)

    def encode_rows(self, rows, kind: str) -> np.ndarray:
        """Encodings of the architectures at ``rows`` (vectorised where the space allows)."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) and (rows.min() < 0 or rows.max() >= self.size):
            raise ValueError(f"{self.space_name} rows must be in 0..{self.size - 1}, "
                             f"got values in {rows.min()}..{rows.max()}")
        return self.space.encode_rows(rows, kind)


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
    """The index of a finite space with whole-table capabilities (``encode_rows``), or None for
    spaces too large to enumerate (and names of no space)."""
    from ..spaces.registry import SPACES

    if space_name not in SPACES or getattr(SPACES[space_name], "encode_rows", None) is None:
        return None
    return FiniteIndex(space_name, space_by_name(space_name).size)


def nb101_adjacency_one_hot(rows) -> np.ndarray:
    """``adjacency_one_hot`` of many rows of ``unique_cells()``, (len(rows), 36) float32
    (:func:`nasarena.spaces.nb101.encodings.adjacency_one_hot_rows`)."""
    from ..spaces.nb101.encodings import adjacency_one_hot_rows

    return adjacency_one_hot_rows(rows)


def exact_parameters(space_name: str, dataset: str | None):
    """A function arch -> exact trainable parameters, or None where nasarena cannot count them:
    the space's ``exact_parameters(dataset)`` capability (NB101: the embedded table's counts by
    row; NB201: the network definition for the artefact's dataset, CIFAR-10 when it records none)."""
    from ..spaces.registry import SPACES

    if space_name not in SPACES or getattr(SPACES[space_name], "exact_parameters", None) is None:
        return None
    return space_by_name(space_name).exact_parameters(dataset)
