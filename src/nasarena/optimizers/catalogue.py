"""Imports every built-in optimizer module so that each registers itself."""

from . import bohb, differential_evolution, evolution, hyperband, local_search, random_search, reinforce, tpe  # noqa: F401
