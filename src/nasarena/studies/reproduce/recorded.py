"""The values each generated block printed, per scale, kept as package data (``studies/reproduced/``).

Two readers: the test suite, which regenerates the cheap scale and compares (:func:`moved`), and
the report's paper notes, which quote the full scale's values instead of a typed copy. Values are
flat ``{key: number}`` mappings (keys such as ``nb1shot1-2/re/mean``), so a moved number is named
by its key.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ...errors import InvalidSettingError
from ...io.claims import held
from ...io.files import atomic_write_bytes

FULL = "full"
CHEAP = "cheap"
SCALES = (FULL, CHEAP)
#: Relative tolerance of the comparison: the blocks' runs are deterministic, so a real change moves
#: a value by far more; the tolerance absorbs only summation order on other CPUs.
RELATIVE_TOLERANCE = 1e-6


def _folder() -> Path:
    return Path(str(resources.files("nasarena.studies") / "reproduced"))


def _path(page: str) -> Path:
    return _folder() / f"{page}.json"


def read(page: str) -> dict:
    """``{block: {scale: {"values": {...}, "provenance": {...}}}}`` recorded for ``page`` ({} if none)."""
    path = _path(page)
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def values(page: str, block: str, scale: str = FULL) -> dict[str, float]:
    """The values block ``block`` of ``page`` printed at ``scale`` when last regenerated."""
    try:
        return read(page)[block][scale]["values"]
    except KeyError:
        raise InvalidSettingError(f"no {scale} values are recorded for block {block!r} of page {page!r}: run "
                                  f"`nasarena reproduce {page}{' --cheap' if scale == CHEAP else ''}`") from None


def writing(page: str):
    """Hold ``page``'s record for a write of the page and its record: both are read, changed and
    swapped in whole, so two regenerations of one page at once would otherwise drop each other's
    blocks (the claim is beside the record: the page and its record are written together)."""
    folder = _folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass  # a read-only installation: the claim names the folder it cannot write
    return held(folder, f"{page}.json")


def record(page: str, block: str, scale: str, block_values: dict[str, float], provenance: dict,
           timings: dict[str, float] | None = None) -> None:
    """Store a block's values (and its timings, never compared) at one scale; the other scale's
    record is kept."""
    recorded = read(page)
    recorded.setdefault(block, {})[scale] = {"values": dict(sorted(block_values.items())),
                                             "timings": dict(sorted((timings or {}).items())), "provenance": provenance}
    text = json.dumps(dict(sorted(recorded.items())), indent=1, allow_nan=True) + "\n"
    atomic_write_bytes(_path(page), text.encode("utf-8"))


@dataclass(frozen=True)
class Moved:
    """One value that differs from its record (``None`` where it was not recorded or is no longer printed)."""

    key: str
    recorded: float | None
    now: float | None

    def __str__(self) -> str:
        return f"{self.key}: {_show(self.recorded)} -> {_show(self.now)}"


def _show(value: float | None) -> str:
    return "absent" if value is None else f"{value:.6g}"


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=RELATIVE_TOLERANCE, abs_tol=1e-12)


def moved(recorded_values: dict[str, float], now: dict[str, float]) -> list[Moved]:
    """Every key whose value differs between the record and ``now``, or is in only one of them."""
    keys = sorted(set(recorded_values) | set(now))
    return [Moved(key, recorded_values.get(key), now.get(key)) for key in keys
            if key not in recorded_values or key not in now or not _same(recorded_values[key], now[key])]
