"""The package's keys of the measured networks, and the row of every drawing among them.

A key is the package's ``Arch.valid_hash()`` of a network's representative: written in base
:data:`~.vocabulary.KEY_BASE`, its first digit is the representative's link pattern
(:data:`~.vocabulary.LINK_PATTERNS`) and the next four its operations (positions in
:data:`~.vocabulary.OPERATIONS`, for the proteins dataset too). The embedded space table
(``scripts/build_nbgraph_data.py``) holds the keys of the 26,206 measured networks in ascending
order (2,021 for proteins), which is the benchmarks' row order, and the package's answer for
every one of the 157,464 drawings: the row of its key (:data:`NO_NETWORK` for the 24
all-identity drawings), so a drawing's key is one look-up, exactly the package's. Why drawings
share a key is :mod:`.canonical`, which the tests hold to this table.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...io.packaged import load_arrays
from .vocabulary import KEY_BASE, LINK_PATTERNS, NUM_NODES, OPERATIONS

#: The embedded space table: ``keys``, ``proteins_keys`` and ``rows`` (see the module).
SPACE_FILE = "nbgraph-space.npz.xz"
#: The embedded measurements, per dataset, in the row order of ``keys`` (proteins: ``proteins_keys``).
NBGRAPH_FILE = "nbgraph.npz.xz"
#: The row of a drawing that computes no network (every operation an identity).
NO_NETWORK = np.iinfo(np.uint16).max
#: Drawings: the input choices of nodes 2, 3 and 4 (2 x 3 x 4), times an operation per node.
NUM_DRAWINGS = 24 * len(OPERATIONS) ** NUM_NODES


def _read_only(name: str) -> dict[str, np.ndarray]:
    arrays = load_arrays(name)
    for array in arrays.values():
        array.setflags(write=False)
    return arrays


@lru_cache(maxsize=1)
def space_arrays() -> dict[str, np.ndarray]:
    """The space table, read-only, loaded once per process."""
    return _read_only(SPACE_FILE)


@lru_cache(maxsize=1)
def embedded_arrays() -> dict[str, np.ndarray]:
    """Every dataset's measurements, read-only, loaded once per process (the nine benchmarks share them)."""
    return _read_only(NBGRAPH_FILE)


def drawing_index(links: tuple[int, ...], ops: tuple[str, ...]) -> int:
    """The position of a drawing in ``rows``: the inputs of nodes 2-4 in mixed radix (2, 3, 4),
    then each operation's digit in base 9, node 1 first."""
    index = (links[1] * 3 + links[2]) * 4 + links[3]
    for op in ops:
        index = index * len(OPERATIONS) + OPERATIONS.index(op)
    return index


def decode(key: int) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """(links, ops) of the representative a key names (see the module)."""
    digits = []
    for _ in range(NUM_NODES + 1):
        key, digit = divmod(key, KEY_BASE)
        digits.append(digit)
    pattern, *ops = reversed(digits)
    return LINK_PATTERNS[pattern], tuple(OPERATIONS[op] for op in ops)


class KeyTable:
    """The keys of one table (``keys`` or ``proteins_keys``) in row order, and any drawing's row."""

    def __init__(self, table: str):
        arrays = space_arrays()
        self.keys: np.ndarray = arrays[table]
        self._all_keys, self._rows = arrays["keys"], arrays["rows"]
        self._subset = table != "keys"

    def row(self, links: tuple[int, ...], ops: tuple[str, ...]) -> int | None:
        """The row of the network a drawing computes; None where the table does not hold it."""
        row = self._rows.item(drawing_index(links, ops))
        if row == NO_NETWORK or not self._subset:
            return None if row == NO_NETWORK else row
        key = self._all_keys.item(row)
        found = int(np.searchsorted(self.keys, key))
        return found if found < len(self.keys) and self.keys.item(found) == key else None

    def representative(self, row: int) -> tuple[tuple[int, ...], tuple[str, ...]]:
        return decode(self.keys.item(row))

    def __len__(self) -> int:
        return len(self.keys)


@lru_cache(maxsize=None)
def key_table(table: str) -> KeyTable:
    """The :class:`KeyTable` of ``keys`` or ``proteins_keys``, built once per process."""
    return KeyTable(table)
