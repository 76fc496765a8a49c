"""The three search spaces of NAS-Bench-1Shot1 (Zela et al. 2020) on NAS-Bench-101.

Every architecture maps to an NB101 cell (:meth:`OneShotArch.to_cell`), so it is looked up in
any NB101 benchmark; :func:`discretize` turns one-shot architecture weights into that cell.
:class:`OneShotSearchSpace` is a space as the optimizers use it; how the paper counts the
architectures (and where its Table 1 is inconsistent) is documented in :mod:`.enumeration`.
"""

from .arch import OneShotArch
from .definitions import ONESHOT_SPACES, OneShotSpace, oneshot_space
from .discretize import discretize, discretize_arch
from .enumeration import PAPER_COUNTS, ArchitectureSet, architectures, count
from .space import OneShotSearchSpace, search_space

__all__ = ["ONESHOT_SPACES", "PAPER_COUNTS", "ArchitectureSet", "OneShotArch", "OneShotSearchSpace", "OneShotSpace",
           "architectures", "count", "discretize", "discretize_arch", "oneshot_space", "search_space"]
