"""Training architectures for real (issue 13): CIFAR-10, the exact networks, protocols, the loop.

Needs torch (the ``torch`` extra). Names are exported lazily so that importing this package
stays cheap: ``build_network``, ``count_parameters``, ``count_flops``, ``load_cifar10``,
``train``, ``protocol``.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "build_network": ".networks", "count_parameters": ".networks", "count_flops": ".networks",
    "load_cifar10": ".data", "train": ".loop", "protocol": ".protocols",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
