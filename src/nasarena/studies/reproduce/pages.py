"""The contract of a generated page: a :class:`Page` is a documentation file with named
:class:`Block` s; a block's ``generate`` runs its experiments at a scale and returns what the page
prints (:class:`Generated`).

A block's function is called with the scale (``full``: the published settings; ``cheap``: a few
seeds and small budgets for the test suite), a results folder of its own (runs there are resumed,
so an interrupted regeneration continues) and the number of processes. It must be deterministic
at a given scale: its values are recorded and compared.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Generated:
    """What one block prints: its markdown, the values in it, and what ran to make them."""

    markdown: str
    values: dict[str, float]
    #: ``benchmark/optimizer/settings_hash`` (or another stable key) of everything computed.
    configurations: tuple[str, ...]
    seeds: tuple[int, ...]
    #: Measured times and speed ratios the markdown prints: recorded with the values but never
    #: compared, as they differ between machines (the values must not depend on the machine).
    timings: dict[str, float] = field(default_factory=dict)


#: ``generate(scale, results_folder, jobs) -> Generated``
Generator = Callable[[str, Path, int], Generated]


@dataclass(frozen=True)
class Block:
    """One generated table of a page."""

    name: str
    generate: Generator
    #: What the full scale costs, said by ``nasarena reproduce --list``.
    cost: str


@dataclass(frozen=True)
class Page:
    """A documentation page (``path`` relative to the docs folder) and its generated blocks."""

    name: str
    path: str
    blocks: tuple[Block, ...] = field(default_factory=tuple)

    def block(self, name: str) -> Block:
        for block in self.blocks:
            if block.name == name:
                return block
        raise KeyError(name)
