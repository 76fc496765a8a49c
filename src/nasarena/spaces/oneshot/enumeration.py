"""Every architecture of a NAS-Bench-1Shot1 space, counted the authors' way or completely.

A *wiring* is one choice of parents for every block and for the output (360 in space 2, for
example); an architecture is a wiring and one op per block. Sets of architectures are held as
arrays (a wiring index and an op index per block for each architecture), so the 363,648
architectures of space 3 are hashed into NB101 rows in one vectorised pass.

How the four sets are counted (Zela et al. 2020, Sec. 3.2; the paper's Table 1 is in
:data:`PAPER_COUNTS`):

* **with loose ends, the authors' count** (``complete=False``, the default): every wiring, with
  ops varying only over the blocks that have a child (a block or the output takes them as a
  parent); a block without children counts once, with op conv3x3. This gives 6,240 and 363,648
  for spaces 1 and 3, as printed, but 16,632 for space 2. **The paper prints 29,160 for space
  2**: that is the plain product 360 wirings x 3^4 ops, i.e. the complete count below, so
  Table 1 mixes two rules. We keep the rule that reproduces the other five numbers.
* **with loose ends, complete**: every wiring with every op of every block (14,580, 29,160 and
  1,312,200): all the architectures a one-shot model can return.
* **without loose ends, the authors' count**: only the blocks that reach the output are kept,
  each resulting labelled cell (the graph as wired, with the kept blocks' ops) counts once, and,
  as the authors' enumeration (a recursion from the output back to the input) does, only cells
  whose active blocks form one chain ``input -> a1 -> a2 -> ... -> am -> output`` (``a1`` takes
  the input, each ``a(i+1)`` takes ``ai``, the output takes ``am``; other edges may be added):
  2,487, 3,609 and 24,066, as printed. Isomorphic labelled cells (two blocks swapped, say) count
  separately, so these are only 2,127, 3,258 and 17,940 distinct NB101 cells.
* **without loose ends, complete**: every distinct NB101 cell (module hash) that some
  architecture of the space maps to, i.e. every cell a benchmark query of the space can hit:
  2,685, 7,773 and 55,854 (the authors' set with loose ends reaches all of them).

Representatives: in the sets without loose ends, a cell is written with its inactive blocks
wired to their lowest parents (the input first) and given op conv3x3, so every set holds
:class:`~.arch.OneShotArch` values that the rest of the library accepts.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..nb101.lookup import hash_cells
from ..nb101.vocabulary import MAX_VERTICES
from .arch import OneShotArch, active_blocks
from .definitions import OneShotSpace, oneshot_space

#: Table 1 of the paper: (with loose ends, without loose ends) per space, as printed.
PAPER_COUNTS = {"nb1shot1-1": (6240, 2487), "nb1shot1-2": (29160, 3609), "nb1shot1-3": (363648, 24066)}
#: Why our count of space 2 with loose ends is not Table 1's (see the module docstring), for
#: every place that shows the count: a reader comparing with the paper must not take it for a bug.
SPACE_2_COUNT_REASON = ("Table 1 counts space 2 with loose ends as the plain product 360 wirings x 3^4 ops (29,160, "
                        "every op of every block); the rule that reproduces its five other counts (a block without "
                        "children counts once) gives 16,632")

#: Op index given to blocks whose op cannot change the cell (index into ``space.ops``: conv3x3).
FIXED_OP = 0
#: Hash labels of the NB101 input and output vertices (see ``nb101.lookup.hash_cells``).
_INPUT_LABEL, _OUTPUT_LABEL = -1, -2
#: Cells hashed at once: bounds the memory of the complete set of space 3 (1.3 million cells).
_HASH_CHUNK = 200_000

Wiring = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]


def parent_choices(space: OneShotSpace) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per block, its possible parent sets (ascending tuples, lexicographic order)."""
    return tuple(tuple(itertools.combinations(range(j), k)) for j, k in enumerate(space.block_parents, start=1))


def output_choices(space: OneShotSpace) -> tuple[tuple[int, ...], ...]:
    """The output's possible parent sets (ascending tuples, lexicographic order)."""
    return tuple(itertools.combinations(range(space.num_blocks + 1), space.output_parents))


@lru_cache(maxsize=None)
def wirings(space: str | OneShotSpace) -> tuple[Wiring, ...]:
    """Every (block parents, output parents) of the space, the last choice varying fastest."""
    space = oneshot_space(space)
    return tuple((tuple(blocks), output)
                 for blocks in itertools.product(*parent_choices(space)) for output in output_choices(space))


def blocks_with_child(wiring: Wiring) -> tuple[int, ...]:
    """The blocks (1-based) that another block or the output takes as a parent."""
    parents, output = wiring
    used = {p for block in parents for p in block} | set(output)
    return tuple(j for j in range(1, len(parents) + 1) if j in used)


def is_chain(wiring: Wiring) -> bool:
    """Whether the active blocks form one chain input -> a1 -> ... -> am -> output (m >= 1)."""
    parents, output = wiring
    active = active_blocks(parents, output)
    if not active:
        return False
    links = zip((0, *active), active)
    return all(a in parents[b - 1] for a, b in links) and active[-1] in output


def _without_loose_ends(space: OneShotSpace, wiring: Wiring) -> Wiring:
    """The wiring with every inactive block wired to its lowest parents (one per cell's graph)."""
    parents, output = wiring
    active = set(active_blocks(parents, output))
    return tuple(block if j in active else tuple(range(k))
                 for j, (block, k) in enumerate(zip(parents, space.block_parents), start=1)), output


class ArchitectureSet(Sequence):
    """Architectures of one space as arrays: ``wiring[i]`` indexes :func:`wirings`, ``ops[i, j]``
    is block ``j+1``'s op index into ``space.ops``. Indexing builds the :class:`OneShotArch`."""

    def __init__(self, space: OneShotSpace, wiring: np.ndarray, ops: np.ndarray):
        self.space = space
        self.wiring = wiring
        self.ops = ops
        self._rows: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.wiring)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        parents, output = wirings(self.space)[int(self.wiring[index])]
        return OneShotArch(self.space.name, parents, tuple(self.space.ops[o] for o in self.ops[index].tolist()), output)

    def nb101_rows(self) -> np.ndarray:
        """Each architecture's NB101 unique-cell row (sorted-hash position), int64; computed once."""
        if self._rows is None:
            self._rows = self._hash_rows()
        return self._rows

    def _hash_rows(self) -> np.ndarray:
        matrices = np.stack([np.array(_wiring_matrix(w), dtype=np.uint8) for w in wirings(self.space)])
        labels = np.full((len(self), MAX_VERTICES), FIXED_OP, dtype=np.int64)  # the unused vertex: pruned
        labels[:, 0], labels[:, -1] = _INPUT_LABEL, _OUTPUT_LABEL
        rows = np.empty(len(self), dtype=np.int64)
        for start in range(0, len(self), _HASH_CHUNK):
            stop = min(start + _HASH_CHUNK, len(self))
            labels[start:stop, 1 : 1 + self.space.num_blocks] = self.ops[start:stop]
            rows[start:stop] = hash_cells(matrices[self.wiring[start:stop]], labels[start:stop]).rows
        return rows


def _wiring_matrix(wiring: Wiring) -> tuple[tuple[int, ...], ...]:
    parents, output = wiring
    rows = [[0] * MAX_VERTICES for _ in range(MAX_VERTICES)]
    for j, block in enumerate(parents, start=1):
        for p in block:
            rows[p][j] = 1
    for p in output:
        rows[p][MAX_VERTICES - 1] = 1
    return tuple(map(tuple, rows))


def _op_product(space: OneShotSpace, free: Sequence[int]) -> np.ndarray:
    """Every op assignment of the ``free`` blocks (1-based), the others :data:`FIXED_OP`."""
    choices = len(space.ops)
    ops = np.full((choices ** len(free), space.num_blocks), FIXED_OP, dtype=np.int8)
    if free:
        ops[:, [j - 1 for j in free]] = np.array(list(itertools.product(range(choices), repeat=len(free))))
    return ops


def _assemble(space: OneShotSpace, chosen: Sequence[tuple[int, Sequence[int]]]) -> ArchitectureSet:
    """The set of every (wiring index, op assignment of its free blocks) in ``chosen``."""
    parts = [_op_product(space, free) for _, free in chosen]
    wiring = np.repeat(np.array([w for w, _ in chosen], dtype=np.int32), [len(p) for p in parts])
    return ArchitectureSet(space, wiring, np.concatenate(parts))


@lru_cache(maxsize=None)
def architectures(space: str | OneShotSpace, loose_ends: bool = True, complete: bool = False) -> ArchitectureSet:
    """One of the four sets of the module docstring, in a fixed order (wiring, then ops)."""
    space = oneshot_space(space)
    all_wirings = wirings(space)
    if loose_ends:
        every_block = tuple(range(1, space.num_blocks + 1))
        return _assemble(space, [(i, every_block if complete else blocks_with_child(w)) for i, w in enumerate(all_wirings)])
    index = {w: i for i, w in enumerate(all_wirings)}
    graphs = sorted({index[_without_loose_ends(space, w)] for w in all_wirings})
    if not complete:
        graphs = [i for i in graphs if is_chain(all_wirings[i])]
    candidates = _assemble(space, [(i, active_blocks(*all_wirings[i])) for i in graphs])
    if not complete:
        return candidates
    _, first = np.unique(candidates.nb101_rows(), return_index=True)
    keep = np.sort(first)
    return ArchitectureSet(space, candidates.wiring[keep], candidates.ops[keep])


def paper_count_note(name: str) -> str:
    """Beside our count with loose ends: Table 1's where it differs, and why ("" where it agrees)."""
    printed = PAPER_COUNTS[name][0]
    return "" if count(name) == printed else f"the paper's Table 1: {printed:,}; {SPACE_2_COUNT_REASON}"


def counts_text(name: str) -> str:
    """The space's architecture counts with and without loose ends beside the paper's Table 1:
    "the paper's counts" where they agree, both numbers and the reason where they do not."""
    ours = count(name), count(name, loose_ends=False)
    paper = PAPER_COUNTS[name]
    if ours == paper:
        return f"{ours[0]:,} architectures with loose ends, {ours[1]:,} without (the paper's Table 1 counts)"
    parts = [f"{mine:,} {kind} (the paper's Table 1: {printed:,})" if mine != printed else f"{mine:,} {kind}"
             for mine, printed, kind in zip(ours, paper, ("architectures with loose ends", "without"))]
    return f"{', '.join(parts)}: {SPACE_2_COUNT_REASON}"


def count(space: str | OneShotSpace, loose_ends: bool = True, complete: bool = False) -> int:
    """The number of architectures of a set (the complete set with loose ends is not built)."""
    space = oneshot_space(space)
    if loose_ends and complete:
        return len(wirings(space)) * len(space.ops) ** space.num_blocks
    return len(architectures(space, loose_ends, complete))
