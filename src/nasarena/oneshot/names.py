"""The one-shot optimizers by name (torch-free, so settings and the CLI check names cheaply)."""

from __future__ import annotations

from ..errors import unknown_name

#: Name -> one line on what it is (NAS-Bench-1Shot1, Algorithms 1-5).
OPTIMIZERS: dict[str, str] = {
    "darts": "DARTS, first order: softmax-weighted mixed ops, Adam on the validation loss (Algorithm 1)",
    "darts-2nd": "DARTS, second order: the architecture gradient through one unrolled weight step",
    "gdas": "GDAS: Gumbel-softmax over alpha, beta and gamma, one op per block, temperature 10 -> 1 (Algorithm 3)",
    "pc-darts": "PC-DARTS: DARTS with partial channel connections, 1/K channels through the mixed op (Algorithm 2)",
    "random-ws": "Random search with weight sharing: uniform single architectures; best of sampled ones (Algorithm 4)",
    "enas": "ENAS: an LSTM controller trained by REINFORCE on validation accuracy (Algorithm 5)",
}


def check_optimizer(name: str) -> str:
    """``name`` if it is a one-shot optimizer; UnknownNameError with suggestions otherwise."""
    if name not in OPTIMIZERS:
        raise unknown_name("one-shot optimizer", name, OPTIMIZERS)
    return name
