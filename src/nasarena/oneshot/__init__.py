"""One-shot NAS on the NAS-Bench-1Shot1 spaces: one supernet, one search loop, five optimizers.

DARTS (first and second order), PC-DARTS, GDAS, Random-WS and ENAS are short subclasses of
:class:`~.search.OneShotSearch` (see :mod:`.optimizers`); every epoch's discretised
architecture is looked up in an NB101 benchmark (:mod:`.lookup`). Settings, names, records and
the lookup import without torch; the rest needs it.
"""

from .names import OPTIMIZERS
from .records import SearchEpochRecord, read_records
from .settings import SearchSettings, paper_settings, quick_settings

__all__ = ["OPTIMIZERS", "SearchEpochRecord", "SearchSettings", "paper_settings", "quick_settings", "read_records",
           "run_search"]


def __getattr__(name: str):
    if name == "run_search":
        from .run import run_search

        return run_search
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
