"""The NB101 search space as one object (the ``SearchSpace`` protocol of the design)."""

from __future__ import annotations

import json
from collections.abc import Callable
from types import MappingProxyType

import numpy as np

from ...errors import InvalidArchitectureError
from ..encoders import pick_encoder
from . import encodings as cell_encodings
from . import operations
from .cell import INPUT, MAX_VERTICES, OPS, OUTPUT, Cell
from .config_space import (
    CONFIG_ENCODINGS,
    MIN_VERTICES,
    VARIABLE_SIZE_CHOICES,
    build_config_space,
    decode_config,
    encode_config,
    from_variable_size_choices,
    variable_size_active,
)
from .table import NUM_UNIQUE_CELLS, UniqueCells, unique_cells

_ENCODERS = {"adjacency_one_hot": cell_encodings.adjacency_one_hot, "variable_size": cell_encodings.variable_size,
             "path": cell_encodings.path_encoding, "graph": cell_encodings.graph}
ENCODINGS = tuple(_ENCODERS)


MAX_SUBSET_ATTEMPTS = 100_000


class NB101Space:
    """Sampling, mutation, neighbourhoods, encodings and enumeration of NB101 cells.

    ``sampler`` chooses what ``sample`` draws: ``"raw"`` (the original random search's
    Bernoulli(0.5) encoding, the default) or ``"unique"`` (uniform over unique cells).
    ``subset`` (sorted rows of ``unique_cells()``) restricts the space to the cells a partial
    table holds, such as the 30,001-cell real slice: sampling is uniform over the subset,
    mutation is repeated until the child is in it, and neighbourhoods are filtered to it.
    """

    name = "nb101"
    encodings = ENCODINGS
    graph_size = cell_encodings.GRAPH_SIZE  # (nodes, features) of the "graph" encoding
    # Optional capabilities (see :mod:`..protocol`): the training network, named, not imported.
    architecture = Cell
    network = "nasarena.training.networks.nb101:NB101Network"
    network_scale = MappingProxyType({"stem_channels": 128, "stacks": 3, "cells_per_stack": 3, "num_classes": 10})
    dataset_study = "nasarena.cli.analyze:nb101_study"

    def __init__(self, sampler: str = "raw", subset: np.ndarray | None = None):
        if sampler not in ("raw", "unique"):
            raise ValueError(f"sampler must be 'raw' or 'unique', got {sampler!r}")
        self.sampler = sampler
        rows = None if subset is None else np.asarray(subset, dtype=np.int64)
        self.subset = rows
        self._members = None if rows is None else frozenset(rows.tolist())
        self.size = NUM_UNIQUE_CELLS if rows is None else len(rows)

    def violation(self, cell: Cell) -> str | None:
        """Why ``cell`` is not in the space: not a cell, invalid (the cell's reason), or outside the subset."""
        if not isinstance(cell, Cell):
            return f"not an NB101 Cell but {type(cell).__name__}"
        if not cell.is_valid:
            return cell.reason
        if self._members is not None and cell.row not in self._members:
            return f"cell {cell.hash} is not among the {self.size:,} cells of this subset"
        return None

    def contains(self, cell: Cell) -> bool:
        return self.violation(cell) is None

    def row(self, cell: Cell) -> int:
        """The position of a cell of the space in :meth:`enumerate`: its NB101 row (``cell.row``,
        the sorted-hash order) for the whole space, its position among the subset's rows otherwise."""
        problem = self.violation(cell)
        if problem is not None:
            raise InvalidArchitectureError(f"no row in this NB101 space: {problem}")
        row = cell.row
        assert row is not None  # a valid cell always has one
        return row if self.subset is None else int(np.searchsorted(self.subset, row))

    def sample(self, rng: np.random.Generator) -> Cell:
        if self.subset is not None:
            return unique_cells().cell(int(self.subset[int(rng.random() * len(self.subset))]))
        return operations.sample_raw(rng) if self.sampler == "raw" else operations.sample_unique(rng)

    def sample_many(self, rng: np.random.Generator, count: int) -> list[Cell]:
        """``count`` cells of :meth:`sample`, and the generator left as ``count`` calls leave it;
        the raw sampler decodes them in vectorised batches (:func:`.operations.sample_raw_many`)."""
        if self.subset is None and self.sampler == "raw":
            return operations.sample_raw_many(rng, count)
        return [self.sample(rng) for _ in range(count)]

    def mutate(self, cell: Cell, rng: np.random.Generator, rate: float = 1.0) -> Cell:
        return self._mutation_in_subset(cell, lambda: operations.mutate(cell, rng, rate))

    def mutate_one_edit(self, cell: Cell, rng: np.random.Generator) -> Cell:
        """:func:`.operations.mutate_one_edit` (the NB101 paper's mutation), inside the subset."""
        if self._members is None:  # the whole space: the hot path of evolution, without the subset loop
            return operations.mutate_one_edit(cell, rng)
        return self._mutation_in_subset(cell, lambda: operations.mutate_one_edit(cell, rng))

    def mutate_variable_size(self, cell: Cell, rng: np.random.Generator) -> Cell:
        """:func:`.operations.mutate_variable_size` (the anytime paper's VS setup), inside the subset."""
        return self._mutation_in_subset(cell, lambda: operations.mutate_variable_size(cell, rng))

    def _mutation_in_subset(self, cell: Cell, draw: Callable[[], Cell]) -> Cell:
        """The first drawn child inside the subset (every child without one)."""
        for _ in range(MAX_SUBSET_ATTEMPTS):
            child = draw()
            if self._members is None or child.row in self._members:
                return child
        raise RuntimeError(f"no mutation of {cell.hash} within {MAX_SUBSET_ATTEMPTS} attempts lies in the subset")

    def neighbours(self, cell: Cell) -> list[Cell]:
        return [n for n in operations.neighbours(cell) if self._members is None or n.row in self._members]

    def encode(self, cell: Cell, kind: str = "adjacency_one_hot") -> np.ndarray:
        return pick_encoder(_ENCODERS, kind, "NB101")(cell)

    def categorical_dims(self) -> tuple[int, ...]:
        """The fixed-size encoding as independent categorical choices: 21 edges (2) and 5 ops (3)."""
        return (2,) * cell_encodings.NUM_EDGE_SLOTS + (len(OPS),) * cell_encodings.NUM_OP_SLOTS

    def from_categorical(self, values) -> Cell:
        """The 7-vertex cell of a choice per categorical dimension (it may be invalid)."""
        values = [int(v) for v in values]
        matrix = [[0] * MAX_VERTICES for _ in range(MAX_VERTICES)]
        for (x, y), bit in zip(cell_encodings.EDGE_PAIRS, values[: cell_encodings.NUM_EDGE_SLOTS]):
            matrix[x][y] = bit
        ops = (INPUT, *(OPS[v] for v in values[cell_encodings.NUM_EDGE_SLOTS :]), OUTPUT)
        return Cell.from_checked(tuple(map(tuple, matrix)), ops)

    def variable_size_dims(self) -> tuple[int, ...]:
        """The anytime paper's variable-size encoding as categorical choices (setup VS for irace):
        ``num_vertices`` (6 choices, 2..7), the 21 edges (2) and the 5 ops (3); which of them are
        active depends on ``num_vertices`` (:meth:`variable_size_active`)."""
        return VARIABLE_SIZE_CHOICES

    def variable_size_active(self, values) -> tuple[bool, ...]:
        """The active dimensions of a choice per :meth:`variable_size_dims` (its first is num_vertices)."""
        return variable_size_active(int(values[0]) + MIN_VERTICES)

    def from_variable_size(self, values) -> Cell:
        """The cell of a choice per :meth:`variable_size_dims` (it may be invalid; inactive ones ignored)."""
        return from_variable_size_choices(values)

    config_encodings = CONFIG_ENCODINGS

    def config_space(self, encoding: str = "categorical"):
        """The space as a new ``ConfigSpace.ConfigurationSpace`` for HPO optimizers (SMAC, TPE).

        Encodings (see :mod:`.config_space`): ``categorical`` (the NB101 paper's), ``variable_size``
        (the anytime paper's, conditional on the number of vertices), ``continuous`` (NB101
        Supplement S3). A subset restriction is not expressed: cells outside it are rejected
        by the benchmark, like invalid cells.
        """
        return build_config_space(encoding)

    def from_config(self, values, encoding: str = "categorical") -> Cell:
        """The cell a configuration of ``config_space(encoding)`` decodes to (it may be invalid)."""
        return decode_config(values, encoding)

    def to_config(self, cell: Cell, encoding: str = "categorical") -> dict:
        """A configuration of ``config_space(encoding)`` that decodes to ``cell``'s architecture."""
        return encode_config(cell, encoding)

    def enumerate(self) -> UniqueCells | _SubsetCells:
        """Every cell of the space by :meth:`row`: all unique cells, or the subset's in row order."""
        return unique_cells() if self.subset is None else _SubsetCells(self.subset)

    # -- optional capabilities of a finite space's whole table (see :mod:`..protocol`) ---------

    def at_row(self, row: int) -> Cell:
        """The cell of one row of :meth:`enumerate`."""
        return self.enumerate()[int(row)]

    def _table_rows(self, rows) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        return rows if self.subset is None else self.subset[rows]

    def encode_rows(self, rows, kind: str) -> np.ndarray:
        """:meth:`encode` of the cells of many rows, float32 (``adjacency_one_hot`` and ``graph``
        computed from the table's columns at once)."""
        if kind == "adjacency_one_hot":
            return cell_encodings.adjacency_one_hot_rows(self._table_rows(rows))
        if kind == "graph":
            return cell_encodings.graph_batch(self._table_rows(rows)).astype(np.float32)
        rows = np.asarray(rows, dtype=np.int64)
        return np.stack([self.encode(self.at_row(r), kind) for r in rows.tolist()]).astype(np.float32)

    def identities(self, rows) -> np.ndarray:
        """The module hashes of the cells of many rows (an object array of strings)."""
        return unique_cells().hashes[self._table_rows(rows)].astype(object)

    def exact_parameters(self, dataset: str | None = None) -> Callable[[Cell], int]:
        """A function cell -> its network's trainable parameters (CIFAR-10, the only dataset),
        from the embedded table (by row)."""
        from ...io.packaged import LITE_FILE, load_arrays

        counts = load_arrays(LITE_FILE)["trainable_parameters"]

        def parameters(cell: Cell) -> int:
            if cell.row is None:
                raise ValueError(f"{cell} is not a valid NB101 cell: it has no row in the table, so no parameters")
            return int(counts[cell.row])

        return parameters

    def identity(self, cell: Cell) -> str | None:
        """The canonical identity of an architecture: the official module hash (None for an
        invalid cell, which optimizers may still propose and de-duplicate)."""
        return cell.hash

    def to_text(self, cell: Cell) -> str:
        """The cell as JSON ``{"matrix": [[...]], "ops": [...]}`` (the unpruned original), for data files."""
        return json.dumps(cell.to_dict(), separators=(",", ":"))

    def from_text(self, text: str) -> Cell:
        """A cell from :meth:`to_text`'s JSON or from its 32-digit module hash (its canonical cell).

        A ``ValueError`` says what is wrong; a well-formed cell outside the space is returned
        (invalid, ``reason`` set) as ``Cell`` does, so the caller decides.
        """
        text = text.strip()
        if len(text) == 32 and all(c in "0123456789abcdef" for c in text):
            try:
                return unique_cells().cell(unique_cells().index_of(text))
            except KeyError as error:
                raise ValueError(error.args[0]) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            raise ValueError(f"an NB101 cell is a module hash or JSON with 'matrix' and 'ops', got {text[:60]!r}") from None
        if not isinstance(data, dict) or not {"matrix", "ops"} <= set(data):
            raise ValueError(f"an NB101 cell's JSON needs the keys 'matrix' and 'ops', got {text[:60]!r}")
        return Cell.from_dict(data)

    def from_mapping(self, entry: dict) -> Cell:
        """Optional capability (:mod:`..protocol`): a cell from a JSON object ``{"matrix": [[...]],
        "ops": [...]}``, as ``nasarena query`` takes one; a missing key is a ``ValueError``."""
        missing = [key for key in ("matrix", "ops") if key not in entry]
        if missing:
            raise ValueError(f"no {' and no '.join(map(repr, missing))} key")
        return Cell(entry["matrix"], entry["ops"])


class _SubsetCells:
    """The canonical cells of sorted NB101 rows as a sequence (built on access, not held)."""

    def __init__(self, rows: np.ndarray):
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, position: int) -> Cell:
        return unique_cells().cell(int(self.rows[position]))
