"""SMAC makes the same run of a seed on every x86-64 CPU (optimizers.portable_math).

numpy's float64 exp and log are its own AVX-512 code where the CPU has it and the C library's
elsewhere; they differ in the last bit for some inputs, and SMAC's forest and acquisition then
broke ties otherwise: the anytime study's SMAC run of setup O, seed 0, ended after other numbers
of evaluations on an AVX-512 Xeon and on an AMD EPYC. With the C library's exp and log everywhere
the Xeon makes the EPYC's run (its saved final row in docs/reproduce/data, bit for bit).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math

import numpy as np
import pytest

from nasarena.optimizers import portable_math
from nasarena.optimizers.jit import numba_installed
from nasarena.runner.experiment import execute
from nasarena.runner.protocol import Budget
from nasarena.studies.anytime_presets import PRESETS


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=pytest.mark.skipif(
    not numba_installed(), reason="numba is not installed"))])
def test_exp_and_log_are_the_c_librarys_with_numpys_special_values(compiled, monkeypatch):
    """Through ``math`` and, where numba is installed, compiled: the C library's bits (on a CPU
    with AVX-512, numpy's exp differs in the last bit for about 5 % of these values)."""
    if compiled:
        assert portable_math._compiled() is not None
    else:
        monkeypatch.setattr(portable_math, "_compiled", lambda: None)
    values = np.random.default_rng(0).normal(scale=3, size=(50, 40))
    assert portable_math.exp(values).tolist() == [[math.exp(v) for v in row] for row in values]
    positive = np.abs(values)
    assert portable_math.log(positive).tolist() == [[math.log(v) for v in row] for row in positive]
    assert portable_math.exp(np.array([1e4, -1e4, np.nan])).tolist()[:2] == [math.inf, 0.0]
    special = portable_math.log(np.array([0.0, -1.0, np.nan]))
    assert special[0] == -math.inf and np.isnan(special[1:]).all()
    assert portable_math.exp(np.zeros((0, 3))).shape == (0, 3)


def test_smac_makes_the_run_a_cpu_without_avx512_makes():
    """SMAC's 1e6 s run of the anytime preset O, seed 0: its evaluations and the digest of the
    architectures it evaluated, as the C library's exp and log make them (with numpy's AVX-512
    exp and log an AVX-512 CPU made another run, from about 600 evaluations on)."""
    [spec] = PRESETS["anytime-O"].specs(seeds=[0], optimizers=["smac"])
    frame = execute(dataclasses.replace(spec, budget=Budget(seconds=1e6)))
    assert len(frame) == 586
    assert hashlib.sha256("".join(frame["arch_id"]).encode()).hexdigest()[:12] == "f9d693ddc364"


def test_compiled_kernels_compile_uncached_where_numba_has_nowhere_to_cache(monkeypatch):
    """numba raises at decoration when no folder for its cache is writable (a read-only install
    and home); the kernels then compile in each process instead of failing to import."""
    numba = pytest.importorskip("numba")
    from nasarena.optimizers import jit

    real = numba.njit

    def refusing(*args, **options):
        if options.get("cache"):
            raise RuntimeError("cannot cache function: no locator available")
        return real(*args, **options)

    monkeypatch.setattr(numba, "njit", refusing)

    @jit.njit
    def doubled(values):
        return values * 2

    @jit.njit(inline="always")
    def tripled(values):
        return values * 3

    assert doubled(np.arange(3)).tolist() == [0, 2, 4] and tripled(np.arange(2)).tolist() == [0, 3]


def test_a_kernel_whose_numba_cache_cannot_be_read_compiles_anew_with_a_warning_not_a_traceback(tmp_path):
    """numba unpickles a kernel's cache index at its first call; an index overwritten from outside
    is a miss: the run goes on with a warning naming the kernel, and the next one reads a sound cache."""
    pytest.importorskip("numba")
    import subprocess
    import sys

    (tmp_path / "kernels.py").write_text("from nasarena.optimizers.jit import njit\n\n\n@njit\n"
                                         "def doubled(values):\n    return values * 2\n")
    program = "import numpy, kernels; print(kernels.doubled(numpy.arange(3)).tolist())"

    def run():
        return subprocess.run([sys.executable, "-W", "default", "-c", program], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)

    first = run()
    assert first.returncode == 0 and first.stdout.strip() == "[0, 2, 4]", first.stderr
    (index,) = (tmp_path / "__pycache__").glob("kernels.doubled-*.nbi")
    index.write_bytes(b"\x80\x04 not a pickle")
    broken = run()
    assert broken.returncode == 0 and broken.stdout.strip() == "[0, 2, 4]", broken.stderr
    assert "cache of the compiled kernel doubled" in broken.stderr and "Traceback" not in broken.stderr
    again = run()
    assert again.returncode == 0 and "cannot be read" not in again.stderr, again.stderr
