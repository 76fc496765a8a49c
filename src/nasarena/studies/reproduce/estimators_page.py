"""The zero-cost proxies' checks on ``docs/estimators.md``: agreement with NAS-Bench-Suite-Zero per
architecture, and the published correlations compared like with like.

Both read saved or embedded values (:mod:`..suite_zero_agreement`: our proxies of Suite-Zero's
725 architectures are saved in ``docs/reproduce/data``, kilobytes; recomputing them all takes CPU
hours, ``bench/bench_suite_zero_agreement.py``). The cheap scale checks that the code still
produces the saved values: it recomputes params and flops (counts, the same on every CPU) of the
first three saved CIFAR-10 architectures and records them beside the saved ones.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from .. import suite_zero_agreement as study
from .pages import Generated
from .recorded import CHEAP

CHEAP_ARCHITECTURES = 3


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
    """Same at both scales: a few seconds over the embedded table and the shared scores."""
    frame = study.published_like_with_like()
    values = {f"{row.proxy}/{field}": float(getattr(row, field)) for row in frame.itertuples()
              for field in ("all_cells", "unique_cells") if getattr(row, field) == getattr(row, field)}
    return Generated(study.like_with_like_markdown(frame), values, ("published/like-with-like",), (0,))


def generate_short_training(scale: str, results: Path, jobs: int) -> Generated:
    raise NotImplementedError


def generate_warmup(scale: str, results: Path, jobs: int) -> Generated:
    raise NotImplementedError


def generate_proxy_speed(scale: str, results: Path, jobs: int) -> Generated:
    raise NotImplementedError
