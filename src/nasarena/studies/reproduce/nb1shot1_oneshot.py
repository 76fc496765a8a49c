"""``docs/reproduce/nas-bench-1shot1.md``'s one-shot optimizers table (Sec. 5.1): quick CPU runs and
the paper configuration's epoch time. Being written."""

from __future__ import annotations

from pathlib import Path

from .pages import Generated


def generate(scale: str, results: Path, jobs: int) -> Generated:
    raise NotImplementedError
