"""Which torch device trains: the best one present (cuda, then mps, then cpu) or the one named,
and the float32 rules a value computed on a GPU follows (:func:`exact_float32`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

from ..errors import InvalidSettingError

DEVICE_KINDS = ("auto", "cuda", "mps", "cpu")


def pick_device(name: str | None = None) -> torch.device:
    """``None`` or ``"auto"``: cuda if present, then mps, then cpu; otherwise the named device
    (``cpu``, ``cuda``, ``cuda:1``, ``mps``), refused with a clear error where it is absent."""
    if name is None or name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if _mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        raise InvalidSettingError(f"unknown device {name!r}; use one of {', '.join(DEVICE_KINDS)} "
                                  "(or cuda:N)") from None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise InvalidSettingError(f"device {name!r} was asked for but this torch sees no CUDA GPU")
        if device.index is not None and device.index >= torch.cuda.device_count():
            raise InvalidSettingError(f"device {name!r}: this machine has {torch.cuda.device_count()} CUDA GPU(s)")
    elif device.type == "mps":
        if not _mps_available():
            raise InvalidSettingError(f"device {name!r} was asked for but this torch has no MPS backend available")
    elif device.type != "cpu":
        raise InvalidSettingError(f"device {name!r} is not supported; use one of {', '.join(DEVICE_KINDS)}")
    return device


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


@contextlib.contextmanager
def exact_float32(device: torch.device) -> Iterator[None]:
    """Inside the block, on a CUDA GPU: convolutions and matrix products in IEEE float32 and cudnn's
    deterministic algorithms, the process's own settings restored afterwards; elsewhere nothing
    changes.

    Why: cudnn allows TF32 by default, which rounds a float32 convolution's inputs to 10-bit
    mantissas (about 1e-3 relative), and with benchmarking on it picks its algorithms by timing
    them, which can differ between runs; a recorded value (a zero-cost proxy) would move with the
    GPU model and the run, and lie further from the CPU's than a summation order puts it. The
    saved all-cells proxy tables measure what is left: a GPU's values beside a CPU's on the same
    cells (:func:`nasarena.studies.all_cell_proxies.backend_agreement`).
    """
    if device.type != "cuda":
        yield
        return
    cudnn, matmul = torch.backends.cudnn, torch.backends.cuda.matmul
    previous = (cudnn.allow_tf32, cudnn.deterministic, cudnn.benchmark, matmul.allow_tf32)
    cudnn.allow_tf32, cudnn.deterministic, cudnn.benchmark, matmul.allow_tf32 = False, True, False, False
    try:
        yield
    finally:
        cudnn.allow_tf32, cudnn.deterministic, cudnn.benchmark, matmul.allow_tf32 = previous
