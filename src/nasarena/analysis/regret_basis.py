"""What a benchmark's regret is measured on, in words, for tables and figure labels.

Regret is always ``optimum - accuracy`` as a fraction of accuracy (0.01 is one percentage
point), but the accuracy differs: the mean test accuracy on NAS-Bench-101 and NB201 CIFAR-10,
the validation accuracy where the data holds no final test accuracy (NB201 CIFAR-100 and
ImageNet16-120), and the surrogate's noise-free *modelled validation* accuracy on surrogate
benchmarks (the built-in ones, and any benchmark whose ``modelled_performance`` is true, such as
``nb301``). A benchmark whose performance is not an accuracy names it in ``performance_measure``
(NAS-Bench-Graph's ogbn-proteins: ROC-AUC). Calling all of them "test regret" would mislead.
"""

from __future__ import annotations

from functools import lru_cache

TEST = "test accuracy"
VALIDATION = "validation accuracy"
MODELLED = "modelled validation accuracy"
UNITS = "fraction of accuracy: 0.01 = 1 percentage point"


@lru_cache(maxsize=64)
def regret_basis(benchmark_name: str) -> str:
    """``"test accuracy"``, ``"validation accuracy"`` or ``"modelled validation accuracy"`` (another
    measure than accuracy in its place where the benchmark names one)."""
    from ..surrogates.builtin import BUILTINS

    if benchmark_name == "surrogate" or benchmark_name in BUILTINS:
        return MODELLED
    try:
        from ..benchmarks import benchmark

        loaded = benchmark(benchmark_name)
    except Exception:  # a benchmark that cannot be loaded here (needs a path, a plug-in): tabular test regret
        return TEST
    measure = getattr(loaded, "performance_measure", "accuracy")
    if getattr(loaded, "modelled_performance", False):
        return MODELLED.replace("accuracy", measure)
    basis = VALIDATION if getattr(loaded, "regret_metric", "test_accuracy") == "valid_accuracy" else TEST
    return basis.replace("accuracy", measure)


def regret_name(benchmark_names) -> str:
    """``"test regret"`` when every benchmark measures test accuracy, else the precise phrase(s)."""
    bases = sorted({regret_basis(n) for n in benchmark_names})
    if bases == [TEST]:
        return "test regret"
    return "regret on " + " / ".join(bases)


#: What regret is on the NB101 tables, for a report's first lines.
_NB101_REGRET = {
    "nb101-noisy": "the best 3-trial mean test accuracy minus the incumbent's mean test accuracy over its three "
                   "trials (the NB101 paper's semantics; the search saw one validation draw per query)",
    "nb101": "the best 3-trial mean test accuracy minus the incumbent's mean over its three trials (official data)",
    "nb101-lite": "the best single draw minus the incumbent's single draw, the very draw that selected it "
                  "(optimistic: no training noise; see the note below)",
}


def regret_meaning(benchmark_name: str, nb101: str | None = None) -> str:
    """One sentence on which benchmark a result comes from and what its regret means: the first
    thing a reader of a report must know, since the same optimizer's regret differs several-fold
    between the single-draw and the 3-trial NB101 tables. ``nb101`` is the table under a
    NAS-Bench-1Shot1 benchmark (as its runs recorded it)."""
    from ..benchmarks.registry import ONESHOT

    if benchmark_name in ONESHOT:
        table = nb101 or ("an NB101 table the runs did not record (before issue 29 nb101-lite unless path=DIR "
                          "named an imported official store)")
        within = _NB101_REGRET.get(nb101 or "", f"regret on {TEST}")
        return (f"{benchmark_name}: NAS-Bench-1Shot1 search space {benchmark_name[-1]} over {table}; regret against "
                f"the space's best cell: {within}.")
    if benchmark_name in _NB101_REGRET:
        return f"{benchmark_name}: regret is {_NB101_REGRET[benchmark_name]}."
    return f"{benchmark_name}: regret on {regret_basis(benchmark_name)}."
