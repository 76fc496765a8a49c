"""Our zero-cost proxies against NAS-Bench-Suite-Zero's published values, architecture by architecture.

Run: .venv/bin/python bench/bench_suite_zero_agreement.py DATASET GROUP [--size N] [--seed S]
     [--minutes M] [--work results/suite-zero] [--save]
     .venv/bin/python bench/bench_suite_zero_agreement.py --table   (the saved values' agreement and the
                                                                     like-with-like published column)
     .venv/bin/python bench/bench_suite_zero_agreement.py cifar10 GROUP --variants N   (what a batch,
                                                  augmentation or weights change alone does)

A thin wrapper of :mod:`nasarena.studies.suite_zero_agreement` (read it for what is compared and
how undefined values are handled). GROUP ``data-free`` computes params, flops and synflow, ``zen``
Zen-score (both on any dataset), ``minibatch`` the proxies that read CIFAR-10 images (snip,
grasp, fisher, grad_norm, jacob_cov, naswot; CIFAR-10 only: the study refuses the other
datasets, whose images are not here). The run is resumable in ``--work``/DATASET-GROUP;
``--minutes`` stops starting chunks after that long, and ``--save`` writes the computed
architectures (the first N of the seeded order) to ``docs/reproduce/data`` with their sidecar.

Measured 2026-12-02 (torch 2.13.0+cpu, one torch thread, nice 10, seed 0, minibatch of 128
CIFAR-10 training images of which the gradient proxies read 64; the 2-core machine shared with
four other jobs, so the wall seconds are about 3x the CPU seconds of a quiet core). All 725
architectures (ImageNet16-120: 724) for params, flops and synflow; for zen and the minibatch
proxies the first N of the seeded order (order seed 0), where ~70 minutes of wall time ended:

| dataset | proxies | architectures | Spearman (Kendall) | s / architecture (loaded) |
|---|---|---:|---|---|
| cifar10 | params / flops / synflow | 725 | 1.000 (1.000) / 0.9960 (0.969) / 0.9994 (0.984; 1 left out: no published value) | 0.06 / 0.10 / 0.19 |
| cifar10 | zen | 160 | 0.9981 (0.972) | 3.0 |
| cifar10 | snip / grasp / fisher | 112 | 0.9896 (0.917) / 0.8451 (0.676) / 0.9867 (0.901) | 1.9 / 5.2 / 1.9 |
| cifar10 | grad_norm / jacob_cov / naswot | 112 | 0.9885 (0.911) / 0.9503 (0.821) / 0.9901 (0.923) | 1.8 / 1.8 / 3.6 |
| cifar100 | params / flops / synflow | 725 | 1.000 / 0.9960 / 0.9994 (0.984) | 0.06 / 0.09 / 0.17 |
| cifar100 | zen | 160 | 0.9982 (0.972) | 3.0 |
| imagenet16-120 | params / flops / synflow | 724 | 1.000 / 0.9960 / 0.9994 (0.984) | 0.07 / 0.10 / 0.14 |
| imagenet16-120 | zen | 368 | 0.9987 (0.974; 1 left out: undefined on both sides) | 0.8 |

The minibatch proxies on cifar100 and imagenet16-120: blocked (no images here). On a quiet core
(same day, 8 architectures): params+flops+synflow 0.12 s, zen 0.82 s, the six minibatch proxies
9.2 s together (grasp 3.2, naswot 1.8), so all 725 on CIFAR-10 take about 2 CPU hours.

``--variants`` (rho with Suite-Zero / rho with ours, same architectures; the baseline is ours):

| proxy | ours | NASLib's way, 64/128 images | NASLib's way, 32 images | other weights |
|---|---|---|---|---|
| synflow (200 architectures) | 0.9993 / 1 | | | 0.9995 / 0.9995 |
| zen (160) | 0.9981 / 1 | | | 0.9983 / 0.9978 |
| snip (40) | 0.9866 / 1 | 0.9816 / 0.9855 | 0.9897 / 0.9789 | |
| grasp (40) | 0.9021 / 1 | 0.8092 / 0.9006 | 0.7465 / 0.8683 | |
| fisher (40) | 0.9729 / 1 | 0.9865 / 0.9808 | 0.9857 / 0.9832 | |
| grad_norm (40) | 0.9841 / 1 | 0.9617 / 0.9714 | 0.9638 / 0.9726 | |
| jacob_cov (40) | 0.9767 / 1 | 0.9664 / 0.9793 | 0.9488 / 0.9724 | |
| naswot (40) | 0.9919 / 1 | 0.9902 / 0.9944 | 0.9925 / 0.9949 | |

Computed NASLib's way (a fresh augmented batch and new weights per architecture), ours agree
with ours as well as with Suite-Zero: the remaining differences are the batch's and the weights'
draws (and Suite-Zero's 32-image batch), not the definitions. grasp is the noisiest (0.87-0.90
with itself) and its 112-architecture agreement (0.845) is within that. On 32 images one
architecture's jacob_cov is -32.29 (Suite-Zero: -32.31) and naswot 405.8 (406.5), against -65.2
and 1603 on our 64 and 128.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import time
from pathlib import Path

import numpy as np

from nasarena.errors import DataFileError
from nasarena.studies import suite_zero_agreement as study

GROUP_PROXIES = {group: list(names) for group, names in study.GROUPS.items()}


def run(dataset: str, group: str, size: int | None, seed: int, minutes: float | None, work: Path,
        save: bool, proxies: list[str]) -> None:
    archs = study.architectures(dataset, size, seed)
    started = time.perf_counter()

    def progress(done: int, planned: int) -> None:
        print(f"{done}/{planned} architectures, {time.perf_counter() - started:.0f} s", flush=True)

    frame = study.compute_ours(dataset, archs, proxies, work / f"{dataset}-{group}", seed=0,
                               seconds=None if minutes is None else 60 * minutes, on_chunk=progress)
    print(f"{len(frame)} of {len(archs)} architectures; mean seconds per architecture:",
          {name: round(float(frame[f'{name}_seconds'].mean()), 3) for name in proxies})
    print(study.agreement(frame, dataset, proxies).to_string(index=False))
    if save:
        chosen = study.architectures(dataset, len(frame), seed)
        if sorted(chosen) != sorted(frame["arch"]):
            raise SystemExit("the computed architectures are not a prefix of the seeded order; not saved")
        subset = {"order_seed": seed, "size": len(frame), "of": len(study.architectures(dataset)),
                  "rule": "the first `size` of the Suite-Zero architectures in the order of "
                          "suite_zero_agreement.architectures(dataset, size, order_seed)"}
        study.save_values(frame.set_index("arch").loc[chosen].reset_index(), dataset, group, subset=subset)
        print("saved", study.values_path(dataset, group))


#: The settings the variants experiment can compare with ours.
SETTINGS = ("other-batch", "other-weights", "naslib-like", "naslib-like-32")
#: The modules whose proxies read ``BATCH`` images of the minibatch (set to 32 for ``naslib-like-32``).
BATCH_MODULES = ("nasarena.estimators.saliency", "nasarena.estimators.jacob_cov", "nasarena.estimators.naswot")


@contextlib.contextmanager
def images_read(count: int | None):
    """Within the block, every minibatch proxy reads the first ``count`` images (None: its own)."""
    modules = [importlib.import_module(name) for name in BATCH_MODULES]
    kept = [module.BATCH for module in modules]
    try:
        for module in modules:
            module.BATCH = count or module.BATCH
        yield
    finally:
        for module, batch in zip(modules, kept):
            module.BATCH = batch


def variants(group: str, size: int, seed: int, names: list[str], chosen: list[str]) -> None:
    """``names`` (proxies of ``group``) for the first ``size`` architectures (seeded order) on
    CIFAR-10 under ``chosen`` settings other than ours (seed 0, one batch for every architecture):
    ``other-batch`` (minibatch seed 1, same weights), ``other-weights`` (init seed 1, and Zen's
    other Gaussian inputs), ``naslib-like`` (each architecture its own batch, drawn as NASLib's
    training loader draws one: shuffled, random crop after 4-pixel padding, horizontal flip; and
    its own weights). Ours are read from the saved values where they hold the architectures.
    Per proxy, each setting's rho with Suite-Zero and with ours: how far the batch or the weights
    alone move the ranking."""
    import torch
    from scipy.stats import spearmanr

    from nasarena.estimators.compute import compute_proxies, derived_seed, minibatch
    from nasarena.training import load_cifar10
    from nasarena.training.data import batches

    unknown = sorted(set(chosen) - set(SETTINGS))
    if unknown:
        raise SystemExit(f"unknown settings {unknown}; known: {', '.join(SETTINGS)}")
    archs = study.architectures("cifar10", size, seed)
    reads = group == "minibatch"
    data = load_cifar10() if reads else None
    empty = torch.zeros(0, 3, 32, 32), torch.zeros(0, dtype=torch.int64)

    def batch(setting: str, index: int):
        if not reads:
            return empty
        if setting.startswith("naslib-like"):
            generator = torch.Generator().manual_seed(derived_seed(1000 + index, "minibatch"))
            return next(batches(data.train, 128, augment=True, generator=generator, mean=data.mean, std=data.std))
        return minibatch(data, 128, 1 if setting == "other-batch" else 0)

    init = {"ours": lambda i: 0, "other-batch": lambda i: 0, "other-weights": lambda i: 1,
            "naslib-like": lambda i: 1000 + i, "naslib-like-32": lambda i: 1000 + i}
    fixed = {setting: batch(setting, 0) for setting in ("ours", "other-batch")}
    values = {setting: {name: [] for name in names} for setting in ["ours", *chosen]}
    try:
        saved, _ = study.load_values("cifar10", group)
        saved = saved.set_index("arch")
        have = set(names) <= set(saved.columns) and set(archs) <= set(saved.index)
    except DataFileError:  # no saved values: ours are computed too
        have = False
    torch.set_num_threads(1)
    for index, arch in enumerate(archs):
        for setting in values:
            if setting == "ours" and have:
                row = saved.loc[arch]
            else:
                images, labels = batch(setting, index) if setting.startswith("naslib-like") else \
                    fixed.get(setting, fixed["ours"])
                with images_read(32 if setting.endswith("-32") else None):
                    row = compute_proxies("nb201", study.cell_text(arch), names, images=images, labels=labels,
                                          seed=init[setting](index)).values
            for name in names:
                values[setting][name].append(float(row[name]))
    theirs = study.published_values("cifar10").loc[archs]
    print(f"{size} architectures (order seed {seed}); rho with Suite-Zero / rho with ours")
    for name in names:
        cells = []
        for setting in values:
            a, b, c = (np.asarray(v, dtype=float) for v in (values[setting][name],
                                                             theirs[study.PUBLISHED_NAME[name]], values["ours"][name]))
            keep = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
            cells.append(f"{setting} {spearmanr(a[keep], b[keep]).statistic:.4f}/"
                         f"{spearmanr(a[keep], c[keep]).statistic:.4f}")
        print(f"{name:10s} " + "  ".join(cells), flush=True)


def table() -> None:
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(study.agreement_markdown(study.recorded_agreement()))
        print(study.like_with_like_markdown(study.published_like_with_like()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", nargs="?", choices=list(study.DATASETS))
    parser.add_argument("group", nargs="?", choices=list(GROUP_PROXIES))
    parser.add_argument("--size", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0, help="seed of the architectures' order (the subset)")
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--work", type=Path, default=Path("results/suite-zero"))
    parser.add_argument("--proxies", default=None, help="comma-separated; default: the group's")
    parser.add_argument("--save", action="store_true")
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--variants", type=int, default=None, metavar="N",
                        help="the batch/augmentation/weights experiment on GROUP's proxies, first N architectures")
    parser.add_argument("--settings", default=",".join(SETTINGS), help="the variants' settings, comma-separated")
    arguments = parser.parse_args()
    if arguments.table:
        table()
    elif arguments.variants:
        group = arguments.group or "minibatch"
        names = arguments.proxies.split(",") if arguments.proxies else GROUP_PROXIES[group]
        variants(group, arguments.variants, arguments.seed, names, arguments.settings.split(","))
    elif arguments.dataset is None or arguments.group is None:
        parser.error("give DATASET and GROUP, or --table")
    else:
        names = arguments.proxies.split(",") if arguments.proxies else GROUP_PROXIES[arguments.group]
        run(arguments.dataset, arguments.group, arguments.size, arguments.seed, arguments.minutes, arguments.work,
            arguments.save, names)
