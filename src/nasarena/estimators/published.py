"""The proxies' published rank correlations, printed beside nasarena's own.

Abdelfattah et al. (ICLR 2021, "Zero-cost proxies for lightweight NAS"), Table 1 and its NB101
counterpart, as stored in the output of the authors' notebooks (SamsungLabs/zero-cost-nas,
``notebooks/nasbench201_correlations.ipynb`` and ``nasbench101_correlations.ipynb``; the
paper prints them to two digits). What they measure differs from nasarena's column in three
ways, each said where the two stand side by side:

- **absolute values**: the notebooks take ``abs(spearmanr(...))`` (the authors confirmed it in
  the repository's issue 4), so a proxy that ranks backwards is published as a positive number;
  nasarena keeps the sign;
- **test accuracy**: the 200-epoch *test* accuracy (NB201 CIFAR-10 through its ``cifar10-valid``
  split); nasarena's truth is the validation accuracy at the highest fidelity;
- **all architectures**: every one of the 15,625 NB201 cells (423,624 NB101 cells) with batch 64
  (NB101: 256) of real images; nasarena's tables hold a seeded sample of unique architectures.

NASWOT's and Zen's papers publish no Spearman correlation on these benchmarks (NASWOT's code
prints Kendall's tau; Zen-NAS evaluates in its own space), nor does any of them for the params
and FLOPs baselines: those have no published value here.
"""

from __future__ import annotations

import math

#: Abdelfattah et al. 2021: |Spearman rho| with the 200-epoch test accuracy, all 15,625 NB201 cells.
ABDELFATTAH_NB201 = {
    "cifar10": {"grad_norm": 0.594, "snip": 0.596, "grasp": 0.514, "fisher": 0.36, "synflow": 0.737,
                "jacob_cov": 0.731},
    "cifar100": {"grad_norm": 0.637, "snip": 0.637, "grasp": 0.547, "fisher": 0.385, "synflow": 0.763,
                 "jacob_cov": 0.704},
    "imagenet16-120": {"grad_norm": 0.578, "snip": 0.578, "grasp": 0.549, "fisher": 0.327, "synflow": 0.751,
                       "jacob_cov": 0.701},
}
#: Abdelfattah et al. 2021: |Spearman rho| with the accuracy, all 423,624 NB101 cells.
ABDELFATTAH_NB101 = {"grad_norm": 0.198, "snip": 0.164, "grasp": 0.448, "fisher": 0.257, "synflow": 0.372,
                     "jacob_cov": 0.378}

#: How the published column was measured, for reports.
NOTE = ("published: Abdelfattah et al. 2021 (the authors' notebook output of Table 1), |Spearman rho| (sign dropped) "
        "with the 200-epoch test accuracy over all 15,625 NB201 cells (NB101: all 423,624 cells); ours keeps the sign, "
        "uses the validation accuracy and a seeded sample of unique architectures; NASWOT, Zen, params and FLOPs have "
        "no published Spearman on these benchmarks")


def published_spearman(proxy: str, benchmark: str) -> float:
    """The published |Spearman rho| of ``proxy`` on ``benchmark``'s labels (NaN where none is)."""
    if benchmark.startswith("nb201-"):
        return ABDELFATTAH_NB201.get(benchmark.removeprefix("nb201-"), {}).get(proxy, math.nan)
    if benchmark.startswith("nb101"):
        return ABDELFATTAH_NB101.get(proxy, math.nan)
    return math.nan
