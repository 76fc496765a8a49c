"""``exp`` and ``log`` of float64 arrays with the same bits on every x86-64 CPU.

Why: numpy computes float64 ``exp`` and ``log`` with its own AVX-512 code on CPUs that have it
and with the C library's everywhere else, and the two differ in the last bit for some inputs.
SMAC's forest (log-scaled costs, leaves averaged on the exp scale) and its log expected
improvement compare such values, and where two candidates tie to the last bit a run takes
another path: the same code and seed made another SMAC run of the anytime study on an AVX-512
Intel Xeon than on an AMD EPYC without it, and the same run once numpy's dispatch on the Xeon was
limited to AVX2 (``NPY_ENABLE_CPU_FEATURES``). These functions call the C library (Python's
``math``, numpy's own fallback) for every element: tens of nanoseconds each, seconds in an
hour-long SMAC run, for runs that a seed fixes on every machine.
"""

from __future__ import annotations

import math

import numpy as np


def _exp(value: float) -> float:
    try:
        return math.exp(value)
    except OverflowError:
        return math.inf


def _log(value: float) -> float:
    if value > 0:
        return math.log(value)
    return -math.inf if value == 0 else math.nan


def _apply(function, values) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    return np.fromiter(map(function, array.ravel().tolist()), dtype=np.float64, count=array.size).reshape(array.shape)


def exp(values) -> np.ndarray:
    """``np.exp`` as the C library computes it (inf above the largest float, as numpy)."""
    return _apply(_exp, values)


def log(values) -> np.ndarray:
    """``np.log`` as the C library computes it (-inf at 0, NaN below, as numpy)."""
    return _apply(_log, values)
