"""numba's ``njit`` as nasarena's compiled kernels use it (without the GIL, cached on disk), and
the one check of whether numba is there to compile them (this module imports without it).

numba refuses ``cache=True`` (a RuntimeError when the function is decorated) where it finds no
writable folder for its cache: neither beside the source (a read-only installation) nor its
user-wide one. The kernels then compile in each process instead (a few seconds), rather than
making their module fail to import.
"""

from __future__ import annotations

import importlib.util
from functools import cache


@cache
def numba_installed() -> bool:
    """Whether numba can be imported: the compiled kernels' modules are used only then."""
    return importlib.util.find_spec("numba") is not None


def njit(function=None, **options):
    """``numba.njit(cache=True, nogil=True, **options)``, uncached where numba has nowhere to cache."""
    import numba

    def decorate(function):
        try:
            return numba.njit(cache=True, nogil=True, **options)(function)
        except RuntimeError:
            return numba.njit(nogil=True, **options)(function)

    return decorate if function is None else decorate(function)
