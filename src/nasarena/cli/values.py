"""The one parser of the CLI's ``KEY=VALUE`` options (``--set``, ``--scale``, ``--benchmark-option``).

Values are read as JSON where they parse (``5``, ``0.1``, ``true``, ``null``, ``[4, 12]``) and
kept as text otherwise (``paper``), so ``--set re.mutation=paper`` needs no quotes. A malformed
item is an :class:`~nasarena.errors.InvalidSettingError` naming the option and an example.
"""

from __future__ import annotations

import json

from ..errors import InvalidSettingError


def parse_value(text: str) -> object:
    """``text`` as JSON where it parses, else the text itself (stripped)."""
    text = text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_assignment(item: str, option: str, example: str, typed: bool = True,
                     form: str = "KEY=VALUE") -> tuple[str, object]:
    """``"key=value"`` -> ``(key, value)``; ``typed=False`` keeps the value as text. ``form``
    names the expected shape in the error (``OPTIMIZER.KEY=VALUE``, ``KNOB=VALUE``)."""
    key, separator, text = item.partition("=")
    key = key.strip()
    if not separator or not key:
        raise InvalidSettingError(f"bad {option} {item!r}; use {form}, e.g. {example}")
    return key, parse_value(text) if typed else text.strip()


def parse_assignments(items: list[str], option: str, example: str, typed: bool = True) -> dict[str, object]:
    """Every ``KEY=VALUE`` item of a repeatable option, the last one winning for a repeated key."""
    return dict(parse_assignment(item, option, example, typed) for item in items)
