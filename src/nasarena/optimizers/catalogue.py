"""Imports every built-in optimizer module so that each registers itself."""

from . import (  # noqa: F401
    bananas, bohb, differential_evolution, evolution, hyperband, local_search, racing, random_search, reinforce,
    smac, tpe,
)
