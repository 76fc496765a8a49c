"""Search-space operations on NB201 cells, and the space as one object for the optimizers.

The space is the full product of 5 ops on 6 edges, so sampling and mutation need no
rejection: every op tuple is a cell of the benchmark. Each stochastic operation takes an
explicit ``numpy.random.Generator``.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from .cell import EDGES, NUM_CELLS, OPS, Cell201
from .config_space import CONFIG_ENCODINGS, build_config_space, decode_config, encode_config
from .encodings import ENCODINGS, GRAPH_SIZE, encode, encode_all


def sample(rng: np.random.Generator) -> Cell201:
    """Uniform over the 15,625 cells: each edge's op uniform and independent."""
    return Cell201.from_indices(rng.integers(0, len(OPS), size=len(EDGES)).tolist())


def mutate(cell: Cell201, rng: np.random.Generator) -> Cell201:
    """One edge, chosen uniformly, gets a different op, chosen uniformly among the other 4."""
    edge = int(rng.integers(len(EDGES)))
    others = [op for op in OPS if op != cell.ops[edge]]
    return Cell201(cell.ops[:edge] + (others[int(rng.integers(len(others)))],) + cell.ops[edge + 1 :])


def neighbours(cell: Cell201) -> list[Cell201]:
    """The 24 cells that differ in exactly one edge, by edge and then op order."""
    return [Cell201(cell.ops[:edge] + (op,) + cell.ops[edge + 1 :])
            for edge in range(len(EDGES)) for op in OPS if op != cell.ops[edge]]


def cell_at(index: int) -> Cell201:
    """The cell at an official index (the benchmarks' row look-up)."""
    return Cell201.from_index(index)


def index_of(cell: Cell201) -> int:
    """The official index of a cell (the benchmarks' row look-up)."""
    return cell.index


class NB201Space:
    """Sampling, mutation, neighbourhoods, encodings and enumeration, as the optimizers use them."""

    name = "nb201"
    size = NUM_CELLS
    encodings = ENCODINGS
    graph_size = GRAPH_SIZE  # (nodes, features) of the "graph" encoding
    # Optional capabilities (see :mod:`..protocol`): the training network, named, not imported.
    architecture = Cell201
    network = "nasarena.training.networks.nb201:NB201Network"
    supernet_truth = "nasarena.cli.supernet:table_truth"
    estimator_comparison = "nasarena.studies.estimator_evaluation:compare_estimators"
    dataset_study = "nasarena.cli.analyze:nb201_study"
    network_scale = MappingProxyType({"channels": 16, "cells_per_stage": 5, "num_classes": 10})

    def violation(self, cell: Cell201) -> str | None:
        """Every :class:`Cell201` is in the space (its constructor checks the ops)."""
        return None if isinstance(cell, Cell201) else f"not an NB201 Cell201 but {type(cell).__name__}"

    def contains(self, cell: Cell201) -> bool:
        return self.violation(cell) is None

    def row(self, cell: Cell201) -> int:
        """The official index of a cell."""
        return cell.index

    def sample(self, rng: np.random.Generator) -> Cell201:
        return sample(rng)

    def mutate(self, cell: Cell201, rng: np.random.Generator, rate: float = 1.0) -> Cell201:
        """:func:`mutate`; ``rate`` belongs to the optimizers' interface and is not used, as
        an NB201 mutation is always one change."""
        return mutate(cell, rng)

    def neighbours(self, cell: Cell201) -> list[Cell201]:
        return neighbours(cell)

    def categorical_dims(self) -> tuple[int, ...]:
        return (len(OPS),) * len(EDGES)

    def from_categorical(self, values) -> Cell201:
        return Cell201.from_indices(values)

    config_encodings = CONFIG_ENCODINGS

    def config_space(self, encoding: str = "categorical"):
        """The space as a new ``ConfigSpace.ConfigurationSpace`` (one categorical op per edge)."""
        return build_config_space(encoding)

    def from_config(self, values, encoding: str = "categorical") -> Cell201:
        """The cell of a configuration of ``config_space(encoding)``."""
        return decode_config(values, encoding)

    def to_config(self, cell: Cell201, encoding: str = "categorical") -> dict[str, str]:
        """The configuration of a cell (one op per edge)."""
        return encode_config(cell, encoding)

    def encode(self, cell: Cell201, kind: str = "one_hot") -> np.ndarray:
        return encode(cell, kind)

    # -- optional capabilities of a finite space's whole table (see :mod:`..protocol`) ---------

    def at_row(self, row: int) -> Cell201:
        """The cell of one official index (out of range: a ``ValueError``)."""
        return Cell201.from_index(int(row))

    def encode_rows(self, rows, kind: str) -> np.ndarray:
        """:meth:`encode` of the cells of many indices, float32, from the one table of all cells."""
        return encode_all(kind)[np.asarray(rows, dtype=np.int64)].astype(np.float32)

    def exact_parameters(self, dataset: str | None = None):
        """A function cell -> its network's trainable parameters for ``dataset`` (CIFAR-10 when None)."""
        from .network import trainable_parameters

        return lambda cell: trainable_parameters(cell, dataset or "cifar10")

    def representatives(self) -> np.ndarray:
        """The benchmark's de-duplication: for each row the row of its class's representative
        (:func:`.canonical.unique_cells`; 6,466 classes of cells that compute the same function)."""
        from .canonical import unique_cells

        return unique_cells()

    def identity(self, cell: Cell201) -> str:
        """The cell string: every cell has its own benchmark records, equivalent ones too."""
        return cell.to_string()

    def to_text(self, cell: Cell201) -> str:
        """The benchmark's cell string, for data files."""
        return cell.to_string()

    def from_text(self, text: str) -> Cell201:
        """A cell from its cell string (a ``ValueError`` names the group, entry or edge at fault)."""
        return Cell201.from_string(text)

    def enumerate(self) -> list[Cell201]:
        """All cells in the benchmark's index order."""
        return [Cell201.from_index(i) for i in range(NUM_CELLS)]
