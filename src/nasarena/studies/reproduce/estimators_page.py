"""The measured tables of ``docs/estimators.md``.

- ``suite-zero`` and ``published``: the zero-cost proxies' agreement with NAS-Bench-Suite-Zero per
  architecture, and the published correlations compared like with like. Both read saved or
  embedded values (:mod:`..suite_zero_agreement`: our proxies of Suite-Zero's 725 architectures
  are saved in ``docs/reproduce/data``, kilobytes; recomputing them all takes CPU hours,
  ``bench/bench_suite_zero_agreement.py``). The cheap scale of ``suite-zero`` checks that the
  code still produces the saved values: it recomputes params and flops (counts, the same on
  every CPU) of the first three saved CIFAR-10 architectures and records them beside the saved
  ones.
- ``nb101-short-training``: the embedded NB101 table's proxies beside short training on the same
  cells (what ``nasarena estimators evaluate --benchmarks nb101-slice`` prints); table look-ups
  and rank correlations, seconds, so the cheap scale is the full one.
- ``warmup``: the zero-cost warm-up of RE and BANANAS (:mod:`..zero_cost_warmup`). Full: both, 50
  seeds, 3,000 synflow scores, runs of 3e5 s read at 2e4, 1e5 and 3e5 s. Cheap: RE alone (its
  runs are table look-ups; BANANAS' trained predictor could round differently on another CPU),
  5 seeds.
- ``proxy-speed``: seconds per architecture of each proxy (:mod:`..proxy_speed`): timings only,
  recorded and never compared; the values are what was timed. Full: every registered proxy on 5
  cells. Cheap: params and flops of one cell.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd

from .. import proxy_speed
from .. import suite_zero_agreement as study
from .. import zero_cost_warmup as warmup
from .common import configurations, data_key, run_specs, seeds
from .pages import Generated
from .recorded import CHEAP, FULL

CHEAP_ARCHITECTURES = 3
#: The benchmark whose lower fidelities are the short trainings, and the embedded table's space.
SHORT_TRAINING_BENCHMARK = "nb101-slice"
WARMUP_STUDIES = {FULL: warmup.Study(), CHEAP: warmup.Study(optimizers=("re",), seeds=5)}
#: (proxies timed, cells) per scale; None: every registered proxy.
SPEED = {FULL: (None, 5), CHEAP: (("params", "flops"), 1)}


def generate_agreement(scale: str, results: Path, jobs: int) -> Generated:
    if scale == CHEAP:
        saved, _ = study.load_values("cifar10", "data-free")
        first = saved.head(CHEAP_ARCHITECTURES)
        with tempfile.TemporaryDirectory() as folder:
            ours = study.compute_ours("cifar10", list(first["arch"]), ["params", "flops"], Path(folder))
        values = {}
        for (_, mine), (_, kept) in zip(ours.iterrows(), first.iterrows()):
            for proxy in ("params", "flops"):
                values[f"{mine['arch']}/{proxy}"] = float(mine[proxy])
                values[f"{kept['arch']}/{proxy}/saved"] = float(kept[proxy])
        lines = [f"| {arch} | {value:g} |" for arch, value in values.items()]
        return Generated("| architecture/proxy | value |\n|---|---|\n" + "\n".join(lines), values, ("suite-zero/cheap",),
                         (0,))
    frame = study.recorded_agreement()
    values = {f"{row.dataset}/{row.proxy}/{field}": float(getattr(row, field))
              for row in frame.itertuples() if row.status == "computed" for field in ("spearman", "kendall", "n")}
    return Generated(study.agreement_markdown(frame), values, ("suite-zero/saved-values",), (0,))


def generate_published(scale: str, results: Path, jobs: int) -> Generated:
    """Same at both scales: a few seconds over the embedded table, the saved tables of the
    image-reading proxies (:mod:`..all_cell_proxies`: a regeneration reads them as far as they are
    computed, and says how their CPU and GPU values agree) and the shared scores."""
    from ..all_cell_proxies import backend_agreement

    frame = study.published_like_with_like()
    values = {f"{row.proxy}/{field}": float(getattr(row, field)) for row in frame.itertuples()
              for field in ("all_cells", "all_cells_n", "unique_cells", "unique_cells_n")
              if not pd.isna(getattr(row, field))}
    agreement = backend_agreement()
    values |= {f"{row.proxy}/cpu-gpu/{field}": float(getattr(row, field)) for row in agreement.itertuples()
               for field in ("n", "spearman", "median_relative", "max_relative", "differing", "undefined_on_one")}
    reference = study.reference_on_published_cells()
    values |= {f"{row.proxy}/suite-zero-cells/{field}": float(getattr(row, field))
               for row in reference.itertuples() for field in ("n", "suite_zero", "ours")}
    text = "\n\n".join(part for part in (study.like_with_like_markdown(frame),
                                          study.reference_markdown(reference, frame),
                                          study.backend_agreement_markdown(agreement)) if part)
    return Generated(text, values, ("published/like-with-like",), (0,))


def generate_short_training(scale: str, results: Path, jobs: int) -> Generated:
    """Same at both scales (seconds): the embedded NB101 table against the slice's 108-epoch
    validation accuracy, beside its 4-, 12- and 36-epoch accuracy."""
    from ...estimators.embedded import embedded_table
    from ...io.packaged import NB101_PROXIES_FILE
    from ..estimator_evaluation import compare_with_training

    table = embedded_table("nb101")
    metrics = compare_with_training(table, SHORT_TRAINING_BENCHMARK, [max(1, len(table) // 10)], "nb101")
    values = {"architectures": float(len(table)), "seed": float(table.attrs["settings"]["seed"])}
    for row in metrics.itertuples():
        for field in ("spearman", "kendall", "precision_top10", "seconds"):
            values[f"{row.estimator}/{field}"] = float(getattr(row, field))
    return Generated(short_training_markdown(values), values,
                     (data_key(NB101_PROXIES_FILE), f"{SHORT_TRAINING_BENCHMARK}/short-training"), (0,))


def short_estimators(values: dict[str, float]) -> list[str]:
    """The estimators of the short-training values in the table's order: the proxies in the
    registry's, then short training by epochs."""
    from ...estimators import PROXIES

    named = {key.split("/")[0] for key in values if key.endswith("/spearman")}
    training = sorted((name for name in named if name.startswith("train-")), key=lambda name: int(name[6:-2]))
    return [name for name in PROXIES if name in named] + training


def short_training_markdown(values: dict[str, float]) -> str:
    lines = [f"The embedded NB101 table ({values['architectures']:,.0f} cells of `{SHORT_TRAINING_BENCHMARK}`, seed "
             f"{values['seed']:.0f}) against the slice's 108-epoch validation accuracy, as `nasarena estimators "
             f"evaluate --benchmarks {SHORT_TRAINING_BENCHMARK}` judges it; short training is the slice's accuracy "
             "after fewer epochs, on the same cells:", "",
             "| estimator | Spearman | Kendall | top-10 % precision | seconds per architecture |",
             "|---|---:|---:|---:|---|"]
    for name in short_estimators(values):
        training = name.startswith("train-")
        cost = ("the 108-epoch training time scaled by epochs / 108" if training
                else "measured when the table was computed, one CPU thread")
        lines.append(f"| {name} | {values[f'{name}/spearman']:.3f} | {values[f'{name}/kendall']:.3f} | "
                     f"{values[f'{name}/precision_top10']:.2f} | {values[f'{name}/seconds']:,.{0 if training else 2}f} "
                     f"({cost}) |")
    return "\n".join(lines)


def generate_warmup(scale: str, results: Path, jobs: int) -> Generated:
    chosen = WARMUP_STUDIES[scale]
    planned = warmup.specs(chosen)
    values = warmup.summarise(run_specs(planned, results, jobs), planned, chosen) | warmup.warmup_cost(chosen)
    return Generated(warmup.markdown(values, chosen), values, configurations(planned), seeds(planned))


def generate_proxy_speed(scale: str, results: Path, jobs: int) -> Generated:
    """Timed in this process on one torch thread (``results`` and ``jobs`` unused)."""
    import os

    from ...estimators import PROXIES

    named, count = SPEED[scale]
    proxies = list(PROXIES) if named is None else list(named)
    start = os.getloadavg()[0]
    values, timings = proxy_speed.measure(proxies, count)
    timings.update({"load_average/start": start, "load_average/end": os.getloadavg()[0],
                    "cores": float(os.cpu_count() or 0)})
    values |= proxy_speed.space_counts()
    return Generated(proxy_speed.markdown(values, timings, proxies), values,
                     (f"{proxy_speed.SPACE}/{','.join(proxies)}/{count} cells",), (proxy_speed.SEED,), timings)
