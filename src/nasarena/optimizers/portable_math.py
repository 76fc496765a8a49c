"""``exp`` and ``log`` of float64 arrays with the same bits on every x86-64 CPU.

Why: numpy computes float64 ``exp`` and ``log`` with its own AVX-512 code on CPUs that have it
and with the C library's everywhere else, and the two differ in the last bit for some inputs.
SMAC's forest (log-scaled costs, leaves averaged on the exp scale) and its log expected
improvement compare such values, and where two candidates tie to the last bit a run takes
another path: the same code and seed made another SMAC run of the anytime study on an AVX-512
Intel Xeon than on an AMD EPYC without it, and the same run once numpy's dispatch on the Xeon was
limited to AVX2 (``NPY_ENABLE_CPU_FEATURES``). These functions call the C library (Python's
``math``, numpy's own fallback) for every element: compiled by numba where it is installed
(:mod:`.compiled_math`, about 15 ns an element), else through ``math`` itself (about 140 ns).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from .jit import numba_installed

#: ``math.exp`` raises OverflowError above this (the log of the largest float); numpy gives inf.
_EXP_LIMIT = math.log(np.finfo(np.float64).max)


def _exp(value: float) -> float:
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def _log(value: float) -> float:
    if value > 0:
        return math.log(value)
    return -math.inf if value == 0 else math.nan


def _apply(function, values: np.ndarray) -> np.ndarray:
    return np.fromiter(map(function, values.ravel().tolist()), dtype=np.float64,
                       count=values.size).reshape(values.shape)


@cache
def _compiled():
    """:mod:`.compiled_math` where numba is installed and compiles ``math``'s functions to the C
    library's (not to SVML's vector versions, which numba takes when Intel's runtime is present)."""
    if not numba_installed():
        return None
    import numba

    if numba.config.USING_SVML:
        return None
    from . import compiled_math

    return compiled_math


def exp(values) -> np.ndarray:
    """``np.exp`` as the C library computes it (inf above the largest float, as numpy)."""
    array = np.asarray(values, dtype=np.float64)
    if (compiled := _compiled()) is not None:
        return compiled.exp(array.ravel()).reshape(array.shape)
    # math.exp itself on every element unless one would overflow (a Python wrapper per element
    # doubles the cost; NaN compares false and takes the wrapper too)
    if array.size and (array <= _EXP_LIMIT).all():
        return _apply(math.exp, array)
    return _apply(_exp, array)


def log(values) -> np.ndarray:
    """``np.log`` as the C library computes it (-inf at 0, NaN below, as numpy)."""
    array = np.asarray(values, dtype=np.float64)
    if (compiled := _compiled()) is not None:
        return compiled.log(array.ravel()).reshape(array.shape)
    if array.size and (array > 0).all():  # math.log raises at 0 and below; NaN fails the test
        return _apply(math.log, array)
    return _apply(_log, array)
