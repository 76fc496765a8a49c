"""The NAS-Bench-Graph spaces as objects (the ``SearchSpace`` and ``FiniteSpace`` protocols).

``nbgraph`` has the 9 operations of eight of the datasets, ``nbgraph-proteins`` the 5 of the
proteins dataset. An architecture is written as its package ``Arch`` (:class:`.GraphArch`): the
choices of every optimizer. Many drawings compute one network (:mod:`.canonical`), so

- an architecture's identity is the package's key of its network (``str(Arch(...).valid_hash())``),
  and the space's rows are the measured networks in key order (26,206; proteins 2,021): the
  runner's cache and the optimizers' de-duplication see one network as one architecture;
- encodings are those of the network (:mod:`.encodings`);
- neighbours and mutations change the network: they are the one-choice changes of the
  network's representative that compute another network of the space, each network once.

Sampling draws every choice uniformly and independently (the package's NNI search space), and
draws again in the rare case of all identities (probability ``1 / n^4``), which computes
nothing. Each stochastic operation takes an explicit ``numpy.random.Generator``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from ...errors import InvalidArchitectureError
from . import configspace
from .arch import GraphArch
from .canonical import network_form
from .encodings import ENCODINGS, Encoder
from .keys import KeyTable, key_table
from .vocabulary import OPERATIONS, PROTEINS_OPERATIONS, SKIP


@lru_cache(maxsize=None)
def _encoder(operations: tuple[str, ...]) -> Encoder:
    """One encoder per operation set (its path index has thousands of entries)."""
    return Encoder(operations)


class NBGraphSpace:
    """Sampling, mutation, neighbourhoods, text form, encodings, ConfigSpace and rows of
    NAS-Bench-Graph over :attr:`operations`."""

    name = "nbgraph"
    #: The operations of the space, in the package's order.
    operations: tuple[str, ...] = OPERATIONS
    #: The embedded key table of the space's measured networks (:mod:`.keys`).
    table = "keys"
    size = 26_206
    encodings = ENCODINGS
    config_encodings = configspace.CONFIG_ENCODINGS
    graph_size = _encoder(OPERATIONS).graph_size
    architecture = GraphArch

    def __init__(self):
        self._encoder = _encoder(self.operations)
        self._dims = np.array(configspace.categorical_dims(self.operations))

    @property
    def _keys(self) -> KeyTable:
        return key_table(self.table)

    # -- membership and identity --------------------------------------------------------------

    def violation(self, arch) -> str | None:
        """Why ``arch`` is no network of the space: not a :class:`GraphArch`, an operation the
        space does not have, or nothing but identities."""
        if not isinstance(arch, GraphArch):
            return f"not a NAS-Bench-Graph GraphArch but {type(arch).__name__}"
        for node, op in enumerate(arch.ops, start=1):
            if op not in self.operations:
                return (f"{arch.to_text()}: node {node}'s operation {op!r} is not one of the {self.name} space's "
                        f"{', '.join(self.operations)}")
        if all(op == SKIP for op in arch.ops):
            return (f"{arch.to_text()}: every operation is {SKIP}, so the architecture computes nothing from the "
                    "graph (NAS-Bench-Graph has no such network)")
        return None

    def contains(self, arch) -> bool:
        return self.violation(arch) is None

    def row(self, arch) -> int:
        """The row of the network ``arch`` computes; an :class:`InvalidArchitectureError` saying
        why for an architecture outside the space."""
        reason = self.violation(arch)
        if reason is not None:
            raise InvalidArchitectureError(reason)
        return self._row(arch)

    def identity(self, arch) -> str | None:
        """The package's key of the network (``str(Arch(links, ops).valid_hash())``); None outside the space."""
        if self.violation(arch) is not None:
            return None
        return str(self._keys.keys.item(self._row(arch)))

    def representative(self, arch) -> GraphArch:
        """The package's drawing of the network ``arch`` computes (the one its key names)."""
        return self.at_row(self.row(arch))

    def at_row(self, row: int) -> GraphArch:
        """The representative of one row (out of range: an :class:`InvalidArchitectureError`)."""
        if not 0 <= row < len(self._keys):
            raise InvalidArchitectureError(f"row {row} is outside the {self.name} space's rows "
                                           f"0..{len(self._keys) - 1}")
        return _representative(self.table, row)

    def enumerate(self) -> list[GraphArch]:
        """Every network's representative, in row (key) order."""
        return [self.at_row(row) for row in range(len(self._keys))]

    def _row(self, arch: GraphArch) -> int:
        """The row of an architecture of the space (checked by the caller)."""
        row = self._keys.row(arch.links, arch.ops)
        if row is None:  # the tests show that every drawing of the space has its row
            raise InvalidArchitectureError(f"{arch.to_text()} computes no network of the {self.name} space")
        return row

    # -- text ----------------------------------------------------------------------------------

    def to_text(self, arch: GraphArch) -> str:
        return arch.to_text()

    def from_text(self, text: str) -> GraphArch:
        """An architecture from its text form (``gcn(0),gin(1),fc(2),cheb(1)``) or from the
        package's key of a network of the space (its digits, e.g. ``'11111'``)."""
        if isinstance(text, str) and text.strip().isdigit():
            key = int(text)
            keys = self._keys.keys
            row = int(np.searchsorted(keys, key))
            if row == len(keys) or keys[row] != key:
                raise InvalidArchitectureError(f"{text!r} is not the key of a network of the {self.name} space "
                                               f"({len(keys):,} keys from {keys[0]} to {keys[-1]})")
            return self.at_row(row)
        return GraphArch.from_text(text)

    def from_mapping(self, entry: Mapping) -> GraphArch:
        """The architecture of the package's ``Arch`` arguments as JSON: ``{"links": [0, 1, 2, 1],
        "ops": ["gcn", "gin", "fc", "cheb"]}``."""
        return GraphArch.from_dict(dict(entry))

    # -- search operators ----------------------------------------------------------------------

    def sample(self, rng: np.random.Generator) -> GraphArch:
        """Every choice uniform and independent; all identities are drawn again (see the module)."""
        while True:
            arch = self.from_categorical(rng.integers(0, self._dims).tolist())
            if self.contains(arch):
                return arch

    def mutate(self, arch: GraphArch, rng: np.random.Generator, rate: float = 1.0) -> GraphArch:
        """One of :meth:`neighbours`, uniformly; ``rate`` belongs to the optimizers' interface and
        is not used, as a mutation is always one change."""
        rows = _neighbour_rows(self.table, self.operations, self.row(arch))
        return self.at_row(rows[int(rng.integers(len(rows)))])

    def neighbours(self, arch: GraphArch) -> list[GraphArch]:
        """The networks one choice of the representative away (an input of nodes 2-4 or an
        operation), each once, in choice order and then value order; never the network itself."""
        return [self.at_row(row) for row in _neighbour_rows(self.table, self.operations, self.row(arch))]

    # -- encodings -----------------------------------------------------------------------------

    def categorical_dims(self) -> tuple[int, ...]:
        """Inputs of nodes 2-4, then the operation of nodes 1-4 (:mod:`.configspace`)."""
        return tuple(self._dims.tolist())

    def from_categorical(self, values) -> GraphArch:
        return configspace.from_categorical(values, self.operations)

    def encode(self, arch: GraphArch, kind: str = "one_hot") -> np.ndarray:
        """The ``kind`` encoding of the network ``arch`` computes (:mod:`.encodings`)."""
        base = self.representative(arch)
        return self._encoder.encode(base.links, base.ops, network_form(base.links, base.ops), kind)

    def config_space(self, encoding: str = "categorical"):
        return configspace.config_space(self.name, self.operations, encoding)

    def from_config(self, values: Mapping, encoding: str = "categorical") -> GraphArch:
        return configspace.from_config(values, encoding)

    def to_config(self, arch: GraphArch, encoding: str = "categorical") -> dict:
        return configspace.to_config(arch, encoding)


class NBGraphProteinsSpace(NBGraphSpace):
    """NAS-Bench-Graph over the 5 operations of the proteins dataset (2,021 networks)."""

    name = "nbgraph-proteins"
    operations = PROTEINS_OPERATIONS
    table = "proteins_keys"
    size = 2_021
    graph_size = _encoder(PROTEINS_OPERATIONS).graph_size


@lru_cache(maxsize=None)
def _representative(table: str, row: int) -> GraphArch:
    """The representative of a row, built once: optimizers ask for the same rows again and again."""
    return GraphArch(*key_table(table).representative(row))


@lru_cache(maxsize=None)
def _neighbour_rows(table: str, operations: tuple[str, ...], row: int) -> tuple[int, ...]:
    """The rows of :meth:`NBGraphSpace.neighbours` of a row, found once per row (a mutation of a
    parent is drawn from them many times in a search)."""
    keys = key_table(table)
    links, ops = keys.representative(row)
    values = [*links[1:], *(operations.index(op) for op in ops)]
    seen, found = {row}, []
    for dim, size in enumerate(configspace.categorical_dims(operations)):
        for value in range(size):
            if value == values[dim]:
                continue
            child = values[:dim] + [value] + values[dim + 1:]
            child_ops = tuple(operations[v] for v in child[len(links) - 1:])
            if all(op == SKIP for op in child_ops):
                continue
            child_row = keys.row((0, *child[:len(links) - 1]), child_ops)
            if child_row is not None and child_row not in seen:
                seen.add(child_row)
                found.append(child_row)
    return tuple(found)
