"""An architecture of a NAS-Bench-1Shot1 space, its NB101 cell and its text form.

The NB101 cell has 7 vertices: the input (0), block ``j`` at vertex ``j``, the output at 6.
Spaces with 4 blocks leave vertex 5 unused (no edges), so NB101 pruning removes it, as the
authors' ``upscale_to_nasbench_format`` does. Blocks that do not reach the output ("loose
ends") are pruned the same way, so their ops do not change the cell.

Text form: ``<space>:<block 1>|...|<block N>|out<<parents>`` with a block written
``<op><<parents>`` and parents joined by ``+``, e.g.
``nb1shot1-1:conv3x3-bn-relu<0|maxpool3x3<0+1|conv1x1-bn-relu<1+2|conv3x3-bn-relu<0+3|out<3+4``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InvalidArchitectureError
from ..nb101.cell import Cell
from ..nb101.vocabulary import INPUT, MAX_VERTICES, OUTPUT
from .definitions import OneShotSpace, oneshot_space

#: The op of the unused vertex of 4-block spaces (pruned away, so any NB101 op would do).
UNUSED_VERTEX_OP = "conv3x3-bn-relu"


def _parent_tuple(value, where: str) -> tuple[int, ...]:
    try:
        parents = tuple(int(p) for p in value)
    except (TypeError, ValueError):
        raise InvalidArchitectureError(f"{where}: parents must be a sequence of vertex ids, got {value!r}") from None
    return parents


def architecture_violation(space: OneShotSpace, parents, ops, output) -> str | None:
    """Why (parents, ops, output) is not an architecture of ``space``, or None if it is one."""
    if len(parents) != space.num_blocks:
        return f"{space.name} has {space.num_blocks} blocks, got parents for {len(parents)}"
    if len(ops) != space.num_blocks:
        return f"{space.name} has {space.num_blocks} blocks, got {len(ops)} ops"
    for j, (block, k) in enumerate(zip(parents, space.block_parents), start=1):
        if len(block) != k:
            return f"block {j} of {space.name} takes exactly {k} parent(s), got {list(block)}"
        if list(block) != sorted(set(block)) or not all(0 <= p < j for p in block):
            return f"block {j}'s parents must be distinct, ascending ids in 0..{j - 1}, got {list(block)}"
    for j, op in enumerate(ops, start=1):
        if op not in space.ops:
            return f"block {j} has op {op!r}, not one of {', '.join(space.ops)}"
    if len(output) != space.output_parents:
        return f"the output of {space.name} takes exactly {space.output_parents} parents, got {list(output)}"
    if list(output) != sorted(set(output)) or not all(0 <= p <= space.num_blocks for p in output):
        return f"the output's parents must be distinct, ascending ids in 0..{space.num_blocks}, got {list(output)}"
    return None


def active_blocks(parents, output) -> tuple[int, ...]:
    """The blocks of a wiring (block parents, output parents) on a path to the output, ascending."""
    reaches = set(output)
    for j in range(len(parents), 0, -1):
        if j in reaches:
            reaches.update(parents[j - 1])
    return tuple(j for j in range(1, len(parents) + 1) if j in reaches)


@dataclass(frozen=True)
class OneShotArch:
    """A discrete architecture of a NAS-Bench-1Shot1 space (checked on construction).

    ``parents[j-1]`` are block ``j``'s parents (0 = input, ``i`` = block ``i``), ``ops[j-1]`` its
    NB101 op, ``output`` the output's parents. An architecture outside its space raises
    :class:`~nasarena.errors.InvalidArchitectureError` naming the block at fault.
    """

    space: str
    parents: tuple[tuple[int, ...], ...]
    ops: tuple[str, ...]
    output: tuple[int, ...]

    def __post_init__(self) -> None:
        space = oneshot_space(self.space)
        parents = tuple(_parent_tuple(block, f"block {j}") for j, block in enumerate(self.parents, start=1))
        output = _parent_tuple(self.output, "output")
        ops = tuple(self.ops)
        object.__setattr__(self, "parents", parents)
        object.__setattr__(self, "output", output)
        object.__setattr__(self, "ops", ops)
        reason = architecture_violation(space, parents, ops, output)
        if reason is not None:
            raise InvalidArchitectureError(reason)

    @property
    def definition(self) -> OneShotSpace:
        return oneshot_space(self.space)

    def matrix(self) -> tuple[tuple[int, ...], ...]:
        """The 7x7 NB101 adjacency matrix (unpruned: loose ends and the unused vertex included)."""
        out = MAX_VERTICES - 1
        rows = [[0] * MAX_VERTICES for _ in range(MAX_VERTICES)]
        for j, block in enumerate(self.parents, start=1):
            for p in block:
                rows[p][j] = 1
        for p in self.output:
            rows[p][out] = 1
        return tuple(map(tuple, rows))

    def cell_ops(self) -> tuple[str, ...]:
        """The 7 NB101 op names (the unused vertex of 4-block spaces gets :data:`UNUSED_VERTEX_OP`)."""
        unused = (UNUSED_VERTEX_OP,) * (MAX_VERTICES - 2 - len(self.ops))
        return (INPUT, *self.ops, *unused, OUTPUT)

    def to_cell(self) -> Cell:
        """The NB101 cell (always valid: at most 9 edges, every block reachable from the input)."""
        return Cell.from_checked(self.matrix(), self.cell_ops())

    def active_blocks(self) -> tuple[int, ...]:
        """The blocks on a path to the output (the others are loose ends), ascending."""
        return active_blocks(self.parents, self.output)

    def to_string(self) -> str:
        blocks = [f"{op}<{'+'.join(map(str, block))}" for op, block in zip(self.ops, self.parents)]
        return f"{self.space}:{'|'.join(blocks)}|out<{'+'.join(map(str, self.output))}"

    @classmethod
    def from_string(cls, text: str) -> OneShotArch:
        """The architecture of :meth:`to_string`'s text; InvalidArchitectureError says what is wrong."""
        text = text.strip()
        space_name, sep, body = text.partition(":")
        if not sep:
            raise InvalidArchitectureError(f"a one-shot architecture's text starts with '<space>:', got {text[:60]!r}")
        oneshot_space(space_name)
        parts = body.split("|")
        *blocks, output = parts
        parents, ops = [], []
        for j, part in enumerate(blocks, start=1):
            op, sep, ids = part.partition("<")
            if not sep:
                raise InvalidArchitectureError(f"block {j} is written '<op><<parents>', got {part!r}")
            parents.append(_parse_ids(ids, f"block {j}"))
            ops.append(op)
        name, sep, ids = output.partition("<")
        if name != "out" or not sep:
            raise InvalidArchitectureError(f"the last part is the output, written 'out<<parents>', got {output!r}")
        return cls(space_name, tuple(parents), tuple(ops), _parse_ids(ids, "output"))


def _parse_ids(text: str, where: str) -> tuple[int, ...]:
    try:
        return tuple(int(p) for p in text.split("+"))
    except ValueError:
        raise InvalidArchitectureError(f"{where}: parents are vertex ids joined by '+', got {text!r}") from None
