"""Choosing a space's encoding by name: one look-up and one error message for every space."""

from __future__ import annotations

from collections.abc import Callable, Mapping


def pick_encoder(encoders: Mapping[str, Callable], kind: str, space: str) -> Callable:
    """The encoder called ``kind`` among ``encoders`` of ``space``; a ValueError naming the choices otherwise."""
    try:
        return encoders[kind]
    except KeyError:
        raise ValueError(f"unknown encoding {kind!r} for {space}; available: {', '.join(encoders)}") from None
