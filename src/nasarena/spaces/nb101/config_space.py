"""The NB101 cell space as a ``ConfigSpace.ConfigurationSpace``, for SMAC, TPE and other HPO tools.

HPO optimizers see a search space as named parameters; three parametrisations of NB101 cells
are studied in the papers, and the choice changes which optimizer wins, so each is offered:

``categorical``
    The NB101 paper's encoding (Sec. 2.2): a binary ``edge_x_y`` for each of the 21 upper-
    triangle pairs of a 7-vertex matrix and ``op_1`` .. ``op_5`` for the interior vertices.
    About 27% of its configurations are invalid cells (disconnected, or over 9 edges after
    pruning); optimizers must cope, as in the paper.
``variable_size``
    The anytime paper's encoding (Sec. III): ``num_vertices`` in 2..7 is a parameter and the
    matrix and op list are sized by it, so ``edge_x_y`` is active only while ``y <
    num_vertices`` (the output is vertex ``num_vertices - 1``) and ``op_i`` only while ``i <
    num_vertices - 1`` — conditional parameters, which algorithm configurators exploit.
``continuous``
    The NB101 paper's Supplement S3: a score ``edge_score_x_y`` in [0, 1] per pair, a number
    of edges ``num_edges`` in 0..9, and the ops as above; the ``num_edges`` highest-scoring
    edges are on, so no configuration breaks the 9-edge limit.

Edge parameters follow the bit order of :mod:`.encodings` (and of ``NB101Space.categorical_dims``).
ConfigSpace is imported only when a configuration space is built: ``import nasarena`` stays fast.
Decoding never rejects an *invalid* cell (that is the benchmark's verdict); it rejects only
values that no configuration of the encoding can hold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from . import encodings
from .cell import INPUT, MAX_EDGES, MAX_VERTICES, OPS, OUTPUT, Cell
from .enumeration import edge_pairs

CONFIG_ENCODINGS = ("categorical", "variable_size", "continuous")

NUM_VERTICES = "num_vertices"
NUM_EDGES = "num_edges"
MIN_VERTICES = 2  # input and output only


def edge_name(x: int, y: int) -> str:
    """The on/off parameter of edge ``x -> y`` (categorical and variable-size encodings)."""
    return f"edge_{x}_{y}"


def score_name(x: int, y: int) -> str:
    """The score parameter of edge ``x -> y`` (continuous encoding)."""
    return f"edge_score_{x}_{y}"


def op_name(vertex: int) -> str:
    """The op parameter of interior vertex ``vertex`` (1-based, as vertex 0 is the input)."""
    return f"op_{vertex}"


EDGE_NAMES = tuple(edge_name(x, y) for x, y in encodings.EDGE_PAIRS)
SCORE_NAMES = tuple(score_name(x, y) for x, y in encodings.EDGE_PAIRS)
OP_NAMES = tuple(op_name(v) for v in range(1, encodings.NUM_OP_SLOTS + 1))


def check_encoding(encoding: str) -> None:
    if encoding not in CONFIG_ENCODINGS:
        raise ValueError(f"unknown NB101 config encoding {encoding!r}; available: {', '.join(CONFIG_ENCODINGS)}")


def build_config_space(encoding: str = "categorical"):
    """A new ``ConfigurationSpace`` of the encoding, seeded with 0 (consumers re-seed it:
    SMAC does from its scenario seed)."""
    check_encoding(encoding)
    try:
        import ConfigSpace as cs
    except ImportError:
        raise ImportError("NB101 configuration spaces need ConfigSpace: pip install ConfigSpace") from None

    space = cs.ConfigurationSpace(name=f"nb101-{encoding}", seed=0)
    ops = [cs.Categorical(name, OPS) for name in OP_NAMES]
    if encoding == "continuous":
        space.add(*(cs.Float(name, (0.0, 1.0)) for name in SCORE_NAMES), cs.Integer(NUM_EDGES, (0, MAX_EDGES)), *ops)
        return space
    edges = [cs.Categorical(name, (0, 1)) for name in EDGE_NAMES]
    if encoding == "categorical":
        space.add(*edges, *ops)
        return space
    num_vertices = cs.Integer(NUM_VERTICES, (MIN_VERTICES, MAX_VERTICES), default=MAX_VERTICES)
    space.add(num_vertices, *edges, *ops)
    # edge (x, y) exists while y is a vertex; op_i while vertex i is interior (i < n - 1)
    space.add(*(cs.GreaterThanCondition(edge, num_vertices, y)
                for edge, (_, y) in zip(edges, encodings.EDGE_PAIRS) if y >= MIN_VERTICES),
              *(cs.GreaterThanCondition(op, num_vertices, vertex + 1) for vertex, op in enumerate(ops, start=1)))
    return space


def _value(values: Mapping[str, object], name: str, encoding: str) -> object:
    try:
        return values[name]
    except KeyError:
        raise KeyError(f"the NB101 {encoding!r} configuration lacks the active parameter {name!r}") from None


def _bit(values: Mapping[str, object], name: str, encoding: str) -> int:
    value = _value(values, name, encoding)
    if value not in (0, 1):
        raise ValueError(f"parameter {name!r} must be 0 or 1, got {value!r}")
    return int(value)


def _op_index(values: Mapping[str, object], name: str, encoding: str) -> int:
    value = _value(values, name, encoding)
    if value not in OPS:
        raise ValueError(f"parameter {name!r} must be one of {', '.join(OPS)}; got {value!r}")
    return OPS.index(value)


def _labels(values: Mapping[str, object], count: int, encoding: str) -> list[int]:
    """Op indices of the first ``count`` interior vertices."""
    return [_op_index(values, name, encoding) for name in OP_NAMES[:count]]


def _number(values: Mapping[str, object], name: str, encoding: str, low: float, high: float) -> float:
    value = _value(values, name, encoding)
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or math.isnan(number) or not low <= number <= high:
        raise ValueError(f"parameter {name!r} must be a number in [{low}, {high}], got {value!r}")
    return number


def _integer(values: Mapping[str, object], name: str, encoding: str, low: int, high: int) -> int:
    number = _number(values, name, encoding, low, high)
    if not number.is_integer():
        raise ValueError(f"parameter {name!r} must be an integer in {low}..{high}, got {values[name]!r}")
    return int(number)


def decode_config(values: Mapping[str, object], encoding: str = "categorical") -> Cell:
    """The cell a configuration (any mapping of parameter names to values) stands for; it may be invalid.

    Inactive and unknown parameters are ignored; a missing active parameter is a ``KeyError``
    and a value outside its parameter's domain a ``ValueError``, both naming the parameter.
    """
    check_encoding(encoding)
    if encoding == "continuous":
        scores = [_number(values, name, encoding, 0.0, 1.0) for name in SCORE_NAMES]
        return encodings.from_continuous(scores, _integer(values, NUM_EDGES, encoding, 0, MAX_EDGES),
                                         _labels(values, encodings.NUM_OP_SLOTS, encoding))
    if encoding == "variable_size":
        n = _integer(values, NUM_VERTICES, encoding, MIN_VERTICES, MAX_VERTICES)
        bits = [_bit(values, edge_name(x, y), encoding) for x, y in edge_pairs(n)]
        return encodings.from_variable_size(n, bits, _labels(values, n - 2, encoding))
    matrix = [[0] * MAX_VERTICES for _ in range(MAX_VERTICES)]
    for name, (x, y) in zip(EDGE_NAMES, encodings.EDGE_PAIRS):
        matrix[x][y] = _bit(values, name, encoding)
    ops = (INPUT, *(OPS[i] for i in _labels(values, encodings.NUM_OP_SLOTS, encoding)), OUTPUT)
    return Cell.from_checked(tuple(map(tuple, matrix)), ops)


#: The variable-size encoding as independent categorical choices, for samplers that handle its
#: conditions themselves (irace) without ConfigSpace: ``num_vertices`` (choice 0 is 2 vertices, 5
#: is 7), then the edges of ``EDGE_NAMES`` (off/on) and the ops of ``OP_NAMES``.
VARIABLE_SIZE_NAMES = (NUM_VERTICES, *EDGE_NAMES, *OP_NAMES)
VARIABLE_SIZE_CHOICES = (MAX_VERTICES - MIN_VERTICES + 1,) + (2,) * len(EDGE_NAMES) + (len(OPS),) * len(OP_NAMES)


def variable_size_active(num_vertices: int) -> tuple[bool, ...]:
    """Which of ``VARIABLE_SIZE_NAMES`` are active with ``num_vertices`` vertices: the conditions
    of :func:`build_config_space` (edge ``x -> y`` while ``y < n``, ``op_i`` while ``i < n - 1``)."""
    edges = tuple(y < num_vertices for _, y in encodings.EDGE_PAIRS)
    ops = tuple(vertex < num_vertices - 1 for vertex in range(1, len(OP_NAMES) + 1))
    return (True, *edges, *ops)


def from_variable_size_choices(choices) -> Cell:
    """The cell of one choice per ``VARIABLE_SIZE_NAMES`` entry (inactive ones are ignored)."""
    values = dict(zip(VARIABLE_SIZE_NAMES, (int(choice) for choice in choices)))
    values[NUM_VERTICES] += MIN_VERTICES
    values.update((name, OPS[values[name]]) for name in OP_NAMES)
    return decode_config(values, "variable_size")


def encode_config(cell: Cell, encoding: str = "categorical") -> dict[str, object]:
    """A configuration that decodes to ``cell``'s architecture (built from its canonical form).

    For warm starts and round-trip checks; vertices a smaller cell does not use get the first
    op, which pruning discards.
    """
    check_encoding(encoding)
    if not cell.is_valid:
        raise ValueError(f"only valid cells have a configuration; this one is invalid: {cell.reason}")
    if encoding == "variable_size":
        vector = encodings.variable_size(cell)
        n = int(vector[0])
        config: dict[str, object] = {NUM_VERTICES: n}
        config.update((edge_name(x, y), int(bit)) for (x, y), bit in zip(edge_pairs(n), vector[1:]))
        config.update((name, OPS[int(label)]) for name, label in zip(OP_NAMES[: n - 2], vector[1 + len(EDGE_NAMES):]))
        return config
    edges, num_edges, labels = encodings.continuous(cell)
    ops = {name: OPS[int(label)] for name, label in zip(OP_NAMES, labels)}
    if encoding == "continuous":
        return {**dict(zip(SCORE_NAMES, edges.tolist())), NUM_EDGES: num_edges, **ops}
    return {**{name: int(bit) for name, bit in zip(EDGE_NAMES, edges)}, **ops}
