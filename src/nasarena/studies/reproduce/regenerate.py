"""Regenerate a page: run its blocks, compare their values with the record, write page and record.

The full scale writes the page's blocks (markdown and provenance line) and records the values;
the cheap scale only records (its small numbers are never published). ``check`` compares without
writing anything: what the test suite does at the cheap scale.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import markers, recorded
from .catalogue import page as find_page
from .pages import Generated
from .provenance import Provenance, provenance

#: Where each page's runs go unless another folder is named: ``results/`` is the runs' usual place.
DEFAULT_RESULTS = Path("results/reproduce")


@dataclass(frozen=True)
class Outcome:
    """One block regenerated: what it printed, what moved against the record, and its provenance."""

    page: str
    block: str
    scale: str
    generated: Generated
    moved: tuple[recorded.Moved, ...]
    provenance: Provenance


def command(page: str, scale: str) -> str:
    return f"nasarena reproduce {page}" + (" --cheap" if scale == recorded.CHEAP else "")


def reproduce(name: str, scale: str = recorded.FULL, *, jobs: int = 1, results: Path | None = None,
              docs: Path = Path("docs"), check: bool = False, blocks: list[str] | None = None) -> list[Outcome]:
    """Regenerate page ``name`` at ``scale`` (see the module docstring); returns one outcome per block."""
    if scale not in recorded.SCALES:
        raise ValueError(f"scale must be one of {', '.join(recorded.SCALES)}, got {scale!r}")
    page = find_page(name)
    chosen = page.blocks if blocks is None else tuple(page.block(b) for b in blocks)
    base = (DEFAULT_RESULTS if results is None else Path(results)) / page.name / scale
    before = recorded.read(page.name)
    outcomes, contents = [], {}
    for block in chosen:
        generated = block.generate(scale, base / block.name, jobs)
        origin = provenance(generated.configurations, generated.seeds)
        old = before.get(block.name, {}).get(scale, {}).get("values", {})
        outcomes.append(Outcome(page.name, block.name, scale, generated, tuple(recorded.moved(old, generated.values)),
                                origin))
        contents[block.name] = generated.markdown + "\n\n" + origin.line(command(page.name, scale))
    if check:
        return outcomes
    with recorded.writing(page.name):  # another regeneration of this page (other blocks, the other scale) waits
        if scale == recorded.FULL:
            markers.write_blocks(Path(docs) / page.path, contents)
        for outcome in outcomes:
            recorded.record(page.name, outcome.block, scale, outcome.generated.values, outcome.provenance.as_dict(),
                            outcome.generated.timings)
    return outcomes
