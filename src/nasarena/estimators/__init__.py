"""Cheap estimators of architecture quality computed on the exact networks: zero-cost proxies.

Each proxy scores an untrained network of :func:`nasarena.training.build_network` with one
seeded CIFAR-10 minibatch (or inputs it draws itself), as its paper defines it; each module says
which paper and which variant. :data:`PROXIES` lists them (a :class:`nasarena.registry.Registry`,
so a plug-in adds one with ``PROXIES.add(name, "module:attribute")``, the attribute a
:class:`Proxy`); :func:`compute_proxies` scores one architecture and returns a
:class:`ProxyResult` with the measured seconds of every proxy; :mod:`.table` computes a whole
table of them, resumably (``nasarena estimators compute``); :func:`embedded_table` reads the one
shipped with the package (NB201 CIFAR-10, a seeded sample of unique architectures).

Needs torch (the ``torch`` extra); importing this package does not import it.
"""

from __future__ import annotations

import importlib

from ..registry import Registry
from .proxy import Probe, Proxy, ProxyResult

#: The zero-cost proxies by name, in the order tables list them.
PROXIES = Registry("zero-cost proxy", {
    "params": "nasarena.estimators.size:PARAMS",
    "flops": "nasarena.estimators.size:FLOPS",
    "synflow": "nasarena.estimators.synflow:SYNFLOW",
    "snip": "nasarena.estimators.saliency:SNIP",
    "grasp": "nasarena.estimators.saliency:GRASP",
    "fisher": "nasarena.estimators.saliency:FISHER",
    "grad_norm": "nasarena.estimators.saliency:GRAD_NORM",
    "jacob_cov": "nasarena.estimators.jacob_cov:JACOB_COV",
    "naswot": "nasarena.estimators.naswot:NASWOT",
    "zen": "nasarena.estimators.zen:ZEN",
    "zen_paper": "nasarena.estimators.zen:ZEN_PAPER",
})

_EXPORTS = {"compute_proxies": ".compute", "minibatch": ".compute", "embedded_table": ".embedded"}

__all__ = ["PROXIES", "Probe", "Proxy", "ProxyResult", *sorted(_EXPORTS)]


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name], __name__), name)
