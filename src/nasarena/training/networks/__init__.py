"""The exact networks of the NB101, NB201 and DARTS spaces, built from an architecture.

:func:`build_network` returns a ``torch.nn.Module`` whose trainable parameters equal the
space's exact count at the papers' full size; scale knobs shrink it for quick runs and are
recorded on the module (``scale``, ``space``, ``arch_text``).
"""

from __future__ import annotations

from .build import SPACES, build_network
from .counting import count_flops, count_parameters

__all__ = ["SPACES", "build_network", "count_flops", "count_parameters"]
