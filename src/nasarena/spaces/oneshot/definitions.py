"""The three search spaces of NAS-Bench-1Shot1 (Zela et al. 2020, Sec. 3 and Table 1).

A cell has an input (vertex 0), ``N`` choice blocks (vertices 1..N) and an output that
concatenates its parents. Block ``j`` (1-based) takes exactly ``block_parents[j-1]`` parents
among the input and blocks ``1..j-1`` and one NB101 op; the output takes exactly
``output_parents`` parents among the input and all blocks. The numbers of parents add up to 9,
NB101's edge limit, so every architecture is an NB101 cell.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import unknown_name
from ..nb101.vocabulary import OPS


@dataclass(frozen=True)
class OneShotSpace:
    """One of the NAS-Bench-1Shot1 spaces: its blocks, their numbers of parents and the ops."""

    name: str
    num_blocks: int
    block_parents: tuple[int, ...]  # k of block j (1-based) at index j-1
    output_parents: int
    ops: tuple[str, ...] = OPS  # NB101 op names in NB101 order: conv3x3, conv1x1, maxpool

    def __post_init__(self) -> None:
        if len(self.block_parents) != self.num_blocks:
            raise ValueError(f"{self.name}: {len(self.block_parents)} parent counts for {self.num_blocks} blocks")
        for j, k in enumerate(self.block_parents, start=1):
            if not 1 <= k <= j:
                raise ValueError(f"{self.name}: block {j} cannot take {k} parents out of {j}")
        if not 1 <= self.output_parents <= self.num_blocks + 1:
            raise ValueError(f"{self.name}: the output cannot take {self.output_parents} parents")

    @property
    def output_vertex(self) -> int:
        """The output's vertex in the 7-vertex NB101 cell (always 6)."""
        return 6


ONESHOT_SPACES: dict[str, OneShotSpace] = {
    space.name: space
    for space in (
        OneShotSpace("nb1shot1-1", 4, (1, 2, 2, 2), 2),
        OneShotSpace("nb1shot1-2", 4, (1, 1, 2, 2), 3),
        OneShotSpace("nb1shot1-3", 5, (1, 1, 1, 2, 2), 2),
    )
}


def oneshot_space(name: "str | OneShotSpace") -> OneShotSpace:
    """The space called ``name`` (a space passes through); UnknownNameError otherwise."""
    if isinstance(name, OneShotSpace):
        return name
    try:
        return ONESHOT_SPACES[name]
    except (KeyError, TypeError):
        raise unknown_name("one-shot space", name, ONESHOT_SPACES) from None
