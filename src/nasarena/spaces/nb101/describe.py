"""Per-cell descriptions for the ``nasarena nb101 describe`` command (plain data, JSON-ready)."""

from __future__ import annotations

from .cell import Cell
from .parameters import trainable_parameters


def describe_entry(entry: object) -> dict:
    """Description of one ``{"matrix": ..., "ops": ...}`` entry; errors become an ``error`` field.

    A malformed or invalid entry never raises, so one bad cell cannot abort a whole file.
    """
    if not isinstance(entry, dict) or "matrix" not in entry or "ops" not in entry:
        return {"valid": False, "error": 'expected an object with "matrix" and "ops"'}
    try:
        cell = Cell(entry["matrix"], entry["ops"])
    except (ValueError, TypeError) as error:
        return {"valid": False, "error": str(error)}
    if not cell.is_valid:
        return {"valid": False, "reason": cell.reason}
    return {
        "valid": True,
        "hash": cell.hash,
        "num_vertices": cell.num_vertices,
        "num_edges": cell.num_edges,
        "matrix": [list(row) for row in cell.matrix],
        "ops": list(cell.ops),
        "trainable_parameters": trainable_parameters(cell),
    }
