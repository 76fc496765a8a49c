"""Where an architecture sits in the authors' set without loose ends (its row for supernet scores).

Supernet score files name architectures by text or by row; for the NAS-Bench-1Shot1 spaces a
row is the position in ``architectures(space, loose_ends=False)`` (2,487 / 3,609 / 24,066, the
set the correlation analysis scores). An architecture with loose ends is the same network as
its representative in that set (inactive blocks wired to their lowest parents, op conv3x3; the
supernet computes neither), so it gets the representative's row. Architectures whose active
blocks do not form the authors' chain are in no row (the set leaves them out): KeyError.
"""

from __future__ import annotations

from functools import lru_cache

from .arch import OneShotArch
from .definitions import OneShotSpace, oneshot_space
from .enumeration import FIXED_OP, _without_loose_ends, architectures, wirings


def representative(arch: OneShotArch) -> OneShotArch:
    """The architecture without loose ends that is the same network as ``arch``."""
    space = arch.definition
    parents, output = _without_loose_ends(space, (arch.parents, arch.output))
    active = set(arch.active_blocks())
    ops = tuple(op if j in active else space.ops[FIXED_OP] for j, op in enumerate(arch.ops, start=1))
    return OneShotArch(space.name, parents, ops, output)


@lru_cache(maxsize=None)
def _positions(space: OneShotSpace) -> dict[tuple[int, tuple[int, ...]], int]:
    chosen = architectures(space, loose_ends=False)
    return {(int(w), tuple(ops)): i for i, (w, ops) in enumerate(zip(chosen.wiring, chosen.ops.tolist()))}


def position(arch: OneShotArch | str) -> int:
    """The row of ``arch`` (or its text) in its space's set without loose ends; KeyError if none."""
    if isinstance(arch, str):
        arch = OneShotArch.from_string(arch)
    space = oneshot_space(arch.space)
    rep = representative(arch)
    wiring = wirings(space).index((rep.parents, rep.output))
    key = (wiring, tuple(space.ops.index(op) for op in rep.ops))
    try:
        return _positions(space)[key]
    except KeyError:
        raise KeyError(f"{arch.to_string()}: its active blocks are not one chain from the input to the output, so "
                       f"it is not in the {space.name} set without loose ends") from None
