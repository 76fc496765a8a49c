"""What a benchmark's regret is measured on, in words, for tables and figure labels.

Regret is always ``optimum - accuracy`` as a fraction of accuracy (0.01 is one percentage
point), but the accuracy differs: the mean test accuracy on NAS-Bench-101 and NB201 CIFAR-10,
the validation accuracy where the data holds no final test accuracy (NB201 CIFAR-100 and
ImageNet16-120), and the surrogate's noise-free *modelled validation* accuracy on surrogate
benchmarks. Calling all of them "test regret" would mislead.
"""

from __future__ import annotations

from functools import lru_cache

TEST = "test accuracy"
VALIDATION = "validation accuracy"
MODELLED = "modelled validation accuracy"
UNITS = "fraction of accuracy: 0.01 = 1 percentage point"


@lru_cache(maxsize=64)
def regret_basis(benchmark_name: str) -> str:
    """``"test accuracy"``, ``"validation accuracy"`` or ``"modelled validation accuracy"``."""
    from ..surrogates.builtin import BUILTINS

    if benchmark_name == "surrogate" or benchmark_name in BUILTINS:
        return MODELLED
    try:
        from ..benchmarks import benchmark

        metric = getattr(benchmark(benchmark_name), "regret_metric", "test_accuracy")
    except Exception:  # a benchmark that cannot be loaded here (needs a path, a plug-in): tabular test regret
        return TEST
    return VALIDATION if metric == "valid_accuracy" else TEST


def regret_name(benchmark_names) -> str:
    """``"test regret"`` when every benchmark measures test accuracy, else the precise phrase(s)."""
    bases = sorted({regret_basis(n) for n in benchmark_names})
    if bases == [TEST]:
        return "test regret"
    return "regret on " + " / ".join(bases)
