"""Search-space operations on NB101 cells: sampling, mutation, neighbourhoods.

Each stochastic operation takes an explicit ``numpy.random.Generator``. Sampling over the raw
encoding and mutation follow the original benchmarking and regularized-evolution code; they
work on the unpruned 7-vertex encoding, so several encodings (and isomorphisms) of one
architecture are distinct points, as in the paper's experiments.
"""

from __future__ import annotations

import sys
from operator import itemgetter

import numpy as np

from . import raw
from .cell import INPUT, MAX_VERTICES, OPS, OUTPUT, Cell
from .table import unique_cells

_OP_SPOTS = MAX_VERTICES - 2
#: Draws of the paper's mutation before a same-architecture child is accepted (see ``mutate_one_edit``).
SAME_ARCHITECTURE_ATTEMPTS = 1000
# The original sampler's 54 numbers per attempt: a 7x7 edge matrix (row-major), then the interior ops.
_RAW_WORDS = MAX_VERTICES * MAX_VERTICES + _OP_SPOTS
_UPPER_WORDS = [x * MAX_VERTICES + y for x, y in raw.EDGE_PAIRS]
_EDGE_BITS = range(raw.NUM_EDGE_BITS)
_upper_words = itemgetter(*_UPPER_WORDS)
_LITTLE_ENDIAN = sys.byteorder == "little"  # a raw output's words are then its low and high half
#: Per op label, the other labels in ``OPS`` order (what a changed op is drawn from).
_OTHER_LABELS = tuple(tuple(other for other in range(len(OPS)) if other != label) for label in range(len(OPS)))


def sample_raw(rng: np.random.Generator) -> Cell:
    """Uniform over the raw encoding, rejecting invalid cells (the original ``random_spec``).

    Edges are Bernoulli(0.5) in the upper triangle of a 7x7 matrix and the five interior ops
    uniform; this is *not* uniform over architectures (large, isomorphism-rich graphs are
    favoured), which is the distribution the NB101 paper's random search used.

    The original draws an attempt as ``integers(0, 2, (7, 7))`` then ``integers(0, 3, 5)``;
    numpy maps each of these numbers from one 32-bit word of the generator (Lemire's method: a
    bit is ``word >> 31``; an op is ``word * 3 >> 32``, and an op word of 0 is rejected and the
    next word used), two words per 64-bit output, low half first. Drawing an attempt's 54 words
    as 27 raw outputs and decoding them here gives the same cells from the same generator state,
    and leaves the same state, at a fraction of the cost (``integers`` alone costs ~5 us a call);
    only a valid attempt is built as a :class:`Cell`. When the generator holds half an output
    (after an odd number of 32-bit draws), the words are drawn with ``integers`` instead.
    """
    tables = raw.raw_tables()
    aligned = _LITTLE_ENDIAN and not rng.bit_generator.state.get("has_uint32", 1)
    while True:
        if aligned:
            words = rng.bit_generator.random_raw(_RAW_WORDS // 2).view(np.uint32).tolist()
        else:
            words = rng.integers(0, 2**32, size=_RAW_WORDS, dtype=np.uint32).tolist()
        mask = sum([(word >> 31) << bit for word, bit in zip(_upper_words(words), _EDGE_BITS)])
        op_words = words[MAX_VERTICES * MAX_VERTICES :]
        if 0 in op_words:  # a rejected word shifts the later ops by one: decode them one at a time
            opcode = _op_code_with_rejections(op_words, rng)
            aligned = _LITTLE_ENDIAN and not rng.bit_generator.state.get("has_uint32", 1)
        else:
            opcode = 0
            for word in op_words:
                opcode = opcode * len(OPS) + (word * len(OPS) >> 32)
        row = tables.row(mask, opcode)
        if row >= 0:
            return raw.make_cell(mask, opcode, row, tables.interior.item(mask))


#: Attempts drawn per valid cell wanted by :func:`sample_raw_many` (~73 % of attempts are valid).
_ATTEMPTS_PER_CELL = 1.5
_PCG_PERIOD = 1 << 128  # PCG64's advance works modulo its period, so a negative step rewinds
_REWINDABLE = (np.random.PCG64, np.random.PCG64DXSM)
_EDGE_WEIGHTS = np.left_shift(1, np.arange(raw.NUM_EDGE_BITS, dtype=np.int64))
_OP_CODE_WEIGHTS = np.array(raw.OP_WEIGHTS, dtype=np.uint64)


def sample_raw_many(rng: np.random.Generator, count: int) -> list[Cell]:
    """``count`` cells of :func:`sample_raw`: the same cells as ``count`` calls, and the same
    generator state afterwards, decoded in vectorised batches (~2 us a cell instead of ~10).

    A batch draws the 54 words of more attempts than are likely needed, decodes them all
    with numpy, keeps the valid ones up to ``count`` and moves the generator back to the end
    of the last attempt used (``advance`` by a negative step, which PCG64, numpy's default, and
    PCG64DXSM take modulo their period; other bit generators, and one holding half an output,
    go one cell at a time).
    An attempt with an op word of 0, which numpy rejects and redraws (probability ~1e-9),
    ends the batch there and is drawn by :func:`sample_raw` itself.
    """
    cells: list[Cell] = []
    bit_generator = rng.bit_generator
    tables = raw.raw_tables()
    while len(cells) < count:
        wanted = count - len(cells)
        if not (_LITTLE_ENDIAN and isinstance(bit_generator, _REWINDABLE) and not bit_generator.state["has_uint32"]):
            cells.append(sample_raw(rng))
            continue
        attempts = int(wanted * _ATTEMPTS_PER_CELL) + 8
        words = bit_generator.random_raw(attempts * _RAW_WORDS // 2).view(np.uint32).reshape(attempts, _RAW_WORDS)
        masks, opcodes = decode_attempts(words)
        usable = len(masks)
        rows = tables.rows(masks, opcodes)
        chosen = np.flatnonzero(rows >= 0)[:wanted]
        used = int(chosen[-1]) + 1 if len(chosen) == wanted else usable
        bit_generator.advance((used - attempts) * _RAW_WORDS // 2 % _PCG_PERIOD)
        chosen_masks = masks[chosen]
        cells.extend(map(raw.make_cell, chosen_masks.tolist(), opcodes[chosen].tolist(), rows[chosen].tolist(),
                         tables.interior[chosen_masks].tolist()))
        if len(cells) < count and usable < attempts:  # the generator is at the attempt with a rejected op word
            cells.append(sample_raw(rng))
    return cells


def decode_attempts(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The edge masks and op codes of sampler attempts (rows of 54 32-bit words, as
    :func:`sample_raw` decodes one), up to the first attempt holding an op word of 0: numpy
    rejects that word and draws another, which shifts everything after it."""
    op_words = words[:, MAX_VERTICES * MAX_VERTICES :].astype(np.uint64)
    rejected = np.flatnonzero((op_words == 0).any(axis=1))
    usable = len(words) if len(rejected) == 0 else int(rejected[0])
    masks = (words[:usable, _UPPER_WORDS] >> 31).astype(np.int64) @ _EDGE_WEIGHTS
    opcodes = (((op_words[:usable] * len(OPS)) >> 32) @ _OP_CODE_WEIGHTS).astype(np.int64)
    return masks, opcodes


def _op_code_with_rejections(op_words: list[int], rng: np.random.Generator) -> int:
    """The op code of an attempt whose op words hold a 0: as numpy, each op takes the next word
    until one is not 0, from the attempt's words and then from the generator."""
    pending = list(reversed(op_words))
    opcode = 0
    for _ in range(_OP_SPOTS):
        word = 0
        while word == 0:
            word = pending.pop() if pending else int(rng.integers(0, 2**32, dtype=np.uint32))
        opcode = opcode * len(OPS) + (word * len(OPS) >> 32)
    return opcode


def sample_unique(rng: np.random.Generator) -> Cell:
    """Uniform over the 423,624 unique cells (returns each one's canonical encoding)."""
    table = unique_cells()
    return table.cell(int(rng.integers(len(table))))


def _padded_original(cell: Cell, rng: np.random.Generator) -> tuple[list[list[int]], list[str]]:
    """The unpruned encoding, widened to 7 vertices by isolated vertices before the output.

    Cells smaller than 7 vertices (e.g. canonical representatives) could otherwise never
    grow under mutation; the new vertices are pruned away until a mutation connects them,
    and their ops are drawn uniformly so that no op is favoured.
    """
    matrix = [list(row) for row in cell.original_matrix]
    ops = list(cell.original_ops)
    n = len(ops)
    missing = MAX_VERTICES - n
    if missing > 0:
        widened = [row[: n - 1] + [0] * missing + [row[n - 1]] for row in matrix[: n - 1]]
        widened += [[0] * MAX_VERTICES for _ in range(missing + 1)]
        matrix = widened
        ops = ops[:-1] + [OPS[i] for i in rng.integers(0, len(OPS), size=missing).tolist()] + [ops[-1]]
    return matrix, ops


def _parent_encoding(cell: Cell, rng: np.random.Generator) -> tuple[int, int]:
    """The (edge mask, op code) a mutation starts from: kept by a cell of the raw tables (an
    earlier mutation's or sample's, valid by construction), else computed from the cell's
    unpruned encoding, widened to 7 vertices (drawing the new vertices' ops) where it is smaller."""
    kept = cell.__dict__.get("_raw")
    if kept is not None:
        return kept[0], kept[1]
    if not cell.is_valid:
        raise ValueError(f"cannot mutate an invalid cell: {cell.reason}")
    encoding = raw.encoding_of(cell)
    return encoding if encoding is not None else raw.encode(*_padded_original(cell, rng))


def mutate(cell: Cell, rng: np.random.Generator, rate: float = 1.0) -> Cell:
    """Mutation of the original regularized-evolution code, repeated until the child is valid.

    On the unpruned encoding (widened to 7 vertices, see :func:`_padded_original`): each
    upper-triangle edge flips with probability ``rate / 7``, each interior op is resampled to one
    of the other two with probability ``rate / 5``. The child may be the same architecture as the
    parent, as in the original.

    Each attempt draws one block of 31 uniforms: an edge-flip uniform per pair (in ``EDGE_PAIRS``
    order), then per interior op a resample uniform and a choice uniform. The attempt is made on
    the integer encoding (see :mod:`.raw`): validity and the child's row are table look-ups, and
    only the accepted child is built as a Cell.
    """
    mask, opcode = _parent_encoding(cell, rng)
    offset_of, interior_of, code_of, row_of = raw.lookups()
    edge_probability, op_probability = rate / MAX_VERTICES, rate / _OP_SPOTS
    edge_slots = raw.NUM_EDGE_BITS
    while True:
        draws = rng.random(edge_slots + 2 * _OP_SPOTS).tolist()
        child_mask = mask
        for bit in _EDGE_BITS:
            if draws[bit] < edge_probability:
                child_mask ^= 1 << bit
        child_opcode = opcode
        for spot, weight in enumerate(raw.OP_WEIGHTS):
            if draws[edge_slots + 2 * spot] < op_probability:
                label = opcode // weight % 3
                others = _OTHER_LABELS[label]
                child_opcode += (others[int(draws[edge_slots + 2 * spot + 1] * len(others))] - label) * weight
        offset = offset_of[child_mask]
        if offset >= 0:
            interior = interior_of[child_mask]
            return raw.make_cell(child_mask, child_opcode, row_of[offset + code_of[interior, child_opcode]], interior)


def mutate_one_edit(cell: Cell, rng: np.random.Generator) -> Cell:
    """The NB101 paper's mutation (Supplement S2), repeated until the child is valid.

    One position of the unpruned 7-vertex encoding is drawn uniformly among its 21 edge slots
    and 5 interior ops: an edge is flipped, an op changed to one of the two others. The child's
    encoding is at edit distance exactly 1 from the (widened) parent's. An edit that leaves the
    architecture unchanged (about half of them: an edge or op off every input-output path) is
    drawn again, so the child is a different architecture; the paper does not say, and without
    this half of all evaluations of RE would re-train its parents. (A cell no single edit can
    change, such as input -> output alone, gets a valid same-architecture child after
    ``SAME_ARCHITECTURE_ATTEMPTS`` draws.)
    """
    mask, opcode = _parent_encoding(cell, rng)
    # On the integer encoding (see .raw): the draws are those of the original loop, attempt by
    # attempt, but only the accepted child is built as a Cell.
    offset_of, interior_of, code_of, row_of = raw.lookups()
    edge_slots = raw.NUM_EDGE_BITS
    parent = cell.row
    uniform = rng.random
    attempts = 0
    while True:
        attempts += 1
        position = int(uniform() * (edge_slots + _OP_SPOTS))
        child_mask, child_opcode = mask, opcode
        if position < edge_slots:
            child_mask = mask ^ (1 << position)
        else:
            weight = raw.OP_WEIGHTS[position - edge_slots]
            label = opcode // weight % 3
            others = _OTHER_LABELS[label]
            child_opcode = opcode + (others[int(uniform() * len(others))] - label) * weight
        offset = offset_of[child_mask]
        if offset < 0:
            continue
        interior = interior_of[child_mask]
        row = row_of[offset + code_of[interior, child_opcode]]  # RawTables.row, inlined
        if row != parent or attempts > SAME_ARCHITECTURE_ATTEMPTS:
            return raw.make_cell(child_mask, child_opcode, row, interior)


def mutate_variable_size(cell: Cell, rng: np.random.Generator) -> Cell:
    """The paper's single edit over the anytime paper's variable-size design space (setup VS).

    The number of vertices ``n`` (2..7) is a parameter beside the n(n-1)/2 edges and n-2 ops of
    the cell's unpruned encoding; one of them is drawn uniformly and changed (``n`` to another
    value, an edge flipped, an op to another). Edges and ops ``n`` activates keep their index
    and, where the parent had none, are drawn as a configuration sampler would (edge on with
    probability 1/2, op uniform). Redrawn until the child is valid and a different
    architecture, as :func:`mutate_one_edit`.
    """
    if not cell.is_valid:
        raise ValueError(f"cannot mutate an invalid cell: {cell.reason}")
    base_matrix, base_ops = cell.original_matrix, cell.original_ops
    n = len(base_ops)
    for attempt in range(1, SAME_ARCHITECTURE_ATTEMPTS + 2):
        pairs = [(x, y) for x in range(n - 1) for y in range(x + 1, n)]
        position = int(rng.random() * (1 + len(pairs) + n - 2))
        if position == 0:
            size = [m for m in range(2, MAX_VERTICES + 1) if m != n][int(rng.random() * (MAX_VERTICES - 2))]
            fresh_edges = rng.random((size, size)) < 0.5
            fresh_ops = rng.integers(0, len(OPS), size=size).tolist()
            matrix = [[int(base_matrix[x][y]) if y < n and x < y else int(fresh_edges[x, y] and x < y)
                       for y in range(size)] for x in range(size)]
            interior = [base_ops[v] if v <= n - 2 else OPS[fresh_ops[v]] for v in range(1, size - 1)]
            ops = (INPUT, *interior, OUTPUT)
        elif position <= len(pairs):
            x, y = pairs[position - 1]
            matrix = [list(row) for row in base_matrix]
            matrix[x][y] = 1 - matrix[x][y]
            ops = base_ops
        else:
            vertex = position - len(pairs)
            others = [op for op in OPS if op != base_ops[vertex]]
            ops = base_ops[:vertex] + (others[int(rng.random() * len(others))],) + base_ops[vertex + 1 :]
            matrix = base_matrix
        child = Cell.from_checked(tuple(map(tuple, matrix)), tuple(ops))
        if child.is_valid and (child.hash != cell.hash or attempt > SAME_ARCHITECTURE_ATTEMPTS):
            return child
    return cell  # only cells whose every valid edit is the same architecture get here


def neighbours(cell: Cell) -> list[Cell]:
    """All valid cells one edge flip or one interior op change away, de-duplicated by hash.

    Edits apply to the unpruned encoding; the cell itself is excluded, and so is an edit that
    yields the same architecture. (Widening to 7 vertices would add nothing: an isolated
    vertex needs two edge flips to join a path.)
    """
    if not cell.is_valid:
        raise ValueError(f"invalid cell has no neighbourhood: {cell.reason}")
    encoding = raw.encoding_of(cell)
    if encoding is not None:
        return _neighbours_raw(cell, *encoding)
    matrix = cell.original_matrix
    ops = cell.original_ops
    n = len(ops)
    candidates = []
    for vertex in range(1, n - 1):
        for op in OPS:
            if op != ops[vertex]:
                candidates.append(Cell.from_checked(matrix, ops[:vertex] + (op,) + ops[vertex + 1 :]))
    for source in range(n - 1):
        for target in range(source + 1, n):
            flipped = [list(row) for row in matrix]
            flipped[source][target] = 1 - flipped[source][target]
            candidates.append(Cell.from_checked(tuple(map(tuple, flipped)), ops))
    seen = {cell.hash}
    result = []
    for candidate in candidates:
        if candidate.is_valid and candidate.hash not in seen:
            seen.add(candidate.hash)
            result.append(candidate)
    return result


def _neighbours_raw(cell: Cell, mask: int, opcode: int) -> list[Cell]:
    """:func:`neighbours` of a 7-vertex encoding (``mask``, ``opcode``), on the integer encoding:
    the same candidates in the same order (op changes by vertex and op, then edge flips
    row-major), de-duplicated by row, and only the survivors built as cells."""
    masks = [mask] * (_OP_SPOTS * (len(OPS) - 1)) + [mask ^ (1 << bit) for bit in range(raw.NUM_EDGE_BITS)]
    opcodes = [opcode + (other - opcode // weight % 3) * weight
               for weight in raw.OP_WEIGHTS for other in _OTHER_LABELS[opcode // weight % 3]]
    opcodes += [opcode] * raw.NUM_EDGE_BITS
    tables = raw.raw_tables()
    rows = tables.rows(np.array(masks), np.array(opcodes)).tolist()
    seen = {cell.row}
    result = []
    for child_mask, child_opcode, row in zip(masks, opcodes, rows):
        if row >= 0 and row not in seen:
            seen.add(row)
            result.append(raw.make_cell(child_mask, child_opcode, row, tables.interior.item(child_mask)))
    return result
