"""The three search spaces of NAS-Bench-1Shot1 (Zela et al. 2020) on NAS-Bench-101.

Every architecture maps to an NB101 cell (:meth:`OneShotArch.to_cell`), so it is looked up in
any NB101 benchmark; :func:`discretize` turns one-shot architecture weights into that cell.
"""

from .arch import OneShotArch
from .definitions import ONESHOT_SPACES, OneShotSpace, oneshot_space
from .discretize import discretize, discretize_arch

__all__ = ["ONESHOT_SPACES", "OneShotArch", "OneShotSpace", "discretize", "discretize_arch", "oneshot_space"]
