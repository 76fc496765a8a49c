"""numba's ``njit`` as nasarena's compiled kernels use it (without the GIL, cached on disk), and
the one check of whether numba is there to compile them (this module imports without it).

numba refuses ``cache=True`` (a RuntimeError when the function is decorated) where it finds no
writable folder for its cache: neither beside the source (a read-only installation) nor its
user-wide one. The kernels then compile in each process instead (a few seconds), rather than
making their module fail to import.

numba reads a kernel's cache index with pickle at the kernel's first call and lets a failure
through: an index cut short or overwritten from outside made every run that uses the kernel end
in numba's traceback. A cache that cannot be read is a miss here instead: a warning names the
file, numba's own ``flush`` empties the index, and the kernel compiles anew (and is cached again).
"""

from __future__ import annotations

import importlib.util
import warnings
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
            return _unreadable_cache_is_a_miss(numba.njit(cache=True, nogil=True, **options)(function))
        except RuntimeError:
            return numba.njit(nogil=True, **options)(function)

    return decorate if function is None else decorate(function)


def _unreadable_cache_is_a_miss(dispatcher):
    """``dispatcher`` with its cache's ``load_overload`` (numba's call when a signature is first
    compiled in a process) turning an unreadable cache into a miss (see the module); a numba
    without that hook is left as it is."""
    kernel_cache = getattr(dispatcher, "_cache", None)
    load = getattr(kernel_cache, "load_overload", None)
    if load is None or not hasattr(kernel_cache, "flush"):
        return dispatcher

    def load_overload(signature, target_context):
        try:
            return load(signature, target_context)
        except Exception as error:  # whatever unpickling garbage raises: the cure is the same
            where = getattr(kernel_cache, "cache_path", "numba's cache folder")
            warnings.warn(f"numba's cache of the compiled kernel {dispatcher.py_func.__qualname__} in {where} "
                          f"cannot be read ({type(error).__name__}: {error}); it is emptied and the kernel "
                          "compiled anew", RuntimeWarning, stacklevel=2)
            kernel_cache.flush()
            return None

    kernel_cache.load_overload = load_overload
    return dispatcher
