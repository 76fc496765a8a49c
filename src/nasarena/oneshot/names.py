"""The one-shot optimizers by name (torch-free, so settings and the CLI check names cheaply)."""

from __future__ import annotations

from ..errors import unknown_name
from ..registry import Registry

#: The one table of one-shot optimizers: name -> (its search class, one line on what it is)
#: (NAS-Bench-1Shot1, Algorithms 1-5).
_METHODS: dict[str, tuple[str, str]] = {
    "darts": ("nasarena.oneshot.optimizers:DARTS",
              "DARTS, first order: softmax-weighted mixed ops, Adam on the validation loss (Algorithm 1)"),
    "darts-2nd": ("nasarena.oneshot.optimizers:DARTSSecondOrder",
                  "DARTS, second order: the architecture gradient through one unrolled weight step"),
    "gdas": ("nasarena.oneshot.optimizers:GDAS",
             "GDAS: Gumbel-softmax over alpha, beta and gamma, one op per block, temperature 10 -> 1 (Algorithm 3)"),
    "pc-darts": ("nasarena.oneshot.optimizers:PCDARTS",
                 "PC-DARTS: DARTS with partial channel connections, 1/K channels through the mixed op (Algorithm 2)"),
    "random-ws": ("nasarena.oneshot.optimizers:RandomWS",
                  "Random search with weight sharing: uniform single architectures; best of sampled ones (Algorithm 4)"),
    "enas": ("nasarena.oneshot.optimizers:ENAS",
             "ENAS: an LSTM controller trained by REINFORCE on validation accuracy (Algorithm 5)"),
}

#: Name -> one line on what it is.
OPTIMIZERS: dict[str, str] = {name: line for name, (_, line) in _METHODS.items()}

#: Name -> the :class:`~nasarena.oneshot.search.OneShotSearch` class, imported on use (it needs torch).
SEARCHES = Registry("one-shot optimizer", {name: target for name, (target, _) in _METHODS.items()})


def check_optimizer(name: str) -> str:
    """``name`` if it is a one-shot optimizer; UnknownNameError with suggestions otherwise."""
    if name not in OPTIMIZERS:
        raise unknown_name("one-shot optimizer", name, OPTIMIZERS)
    return name
