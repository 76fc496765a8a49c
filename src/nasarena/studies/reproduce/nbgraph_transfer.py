"""The measured numbers of ``docs/nas-bench-graph.md``: how the ranking of graph networks
carries over between NAS-Bench-Graph's datasets, and how well validation ranks by test.

Deterministic computations on the embedded tables (no sampling). Full: all nine datasets (36
pairs). Cheap: cora, citeseer and proteins (the pair of citation graphs and the 5-operation
proteins space, whose networks are matched to the others' by identity key).

The paper (Qin et al., NeurIPS 2022) draws this correlation as a figure whose values no source
stored here holds; what is set beside ours is the one number its abstract states, the count of
unique architectures trained on every dataset.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...analysis.rank_transfer import RankTransfer, by_identity, rank_transfer, self_agreement, upper_triangle
from ...benchmarks.nbgraph import DATASETS, PROTEINS, metric_of
from ...benchmarks.registry import benchmark
from ...spaces.nbgraph import NBGRAPH_FILE
from .common import data_key
from .pages import Generated
from .recorded import CHEAP

CHEAP_DATASETS = ("cora", "citeseer", PROTEINS)
#: The abstract of Qin et al. (2022): "covering 26,206 unique graph neural network (GNN)
#: architectures ... trained and evaluated all of these architectures on nine representative graph
#: datasets".
PAPER_ARCHITECTURES = 26_206
PAPER_DATASETS = 9


def generate(scale: str, results: Path, jobs: int) -> Generated:
    """Rank transfer between datasets and validation-test agreement (``results``, ``jobs`` unused)."""
    datasets = CHEAP_DATASETS if scale == CHEAP else DATASETS
    loaded = {name: benchmark(f"nbgraph-{name}") for name in datasets}
    transfer = rank_transfer({name: by_identity(table) for name, table in loaded.items()})
    values: dict[str, float] = {}
    for i, first in enumerate(datasets):
        values[f"{first}/networks"] = float(transfer.common[i, i])
        values[f"{first}/valid_test_spearman"], values[f"{first}/valid_test_kendall"] = self_agreement(loaded[first])
        for second in datasets[i + 1:]:
            rho, tau, common = transfer.pair(first, second)
            values.update({f"{first}/{second}/spearman": rho, f"{first}/{second}/kendall": tau,
                           f"{first}/{second}/networks": float(common)})
    return Generated(markdown(transfer, values), values, (data_key(NBGRAPH_FILE),), ())


def _label(name: str) -> str:
    return f"{name} ({metric_of(name)})" if name == PROTEINS else name


def markdown(transfer: RankTransfer, values: dict[str, float]) -> str:
    names = transfer.names
    sizes = sorted({int(n) for n in upper_triangle(transfer.common)}, reverse=True)
    lines = [f"Spearman's rho of test performance (above the diagonal) and Kendall's tau-b (below) between "
             f"datasets, on the networks both tables hold ({' or '.join(f'{n:,}' for n in sizes)} per pair):", "",
             "| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for i, row in enumerate(names):
        cells = ["–" if i == j else f"{(transfer.spearman if j > i else transfer.kendall)[i, j]:.2f}"
                 for j in range(len(names))]
        lines.append(f"| **{row}** | " + " | ".join(cells) + " |")
    lines += ["", _summary(transfer), "",
              "How well validation performance ranks the networks by test performance, per dataset:", "",
              "| dataset | networks | Spearman | Kendall tau-b |", "|---|---|---|---|"]
    lines += [f"| {_label(name)} | {values[f'{name}/networks']:,.0f} | {values[f'{name}/valid_test_spearman']:.3f} | "
              f"{values[f'{name}/valid_test_kendall']:.3f} |" for name in names]
    full_space = [name for name in names if name != PROTEINS]
    counts = sorted({values[f"{name}/networks"] for name in full_space})
    held = " or ".join(f"{count:,.0f}" for count in counts)
    lines += ["", f"The paper's abstract: {PAPER_ARCHITECTURES:,} unique architectures, trained and evaluated on "
                  f"each of {PAPER_DATASETS} datasets. The embedded tables: {held} networks on each of "
                  f"{len(full_space)} dataset{'s' if len(full_space) > 1 else ''} with nine operations"
                  + (f", {values[f'{PROTEINS}/networks']:,.0f} on proteins (the package's proteins space has "
                     "five operations)" if PROTEINS in names else "") + ". The paper draws the correlations "
                  "between datasets as a figure whose values no source stored here holds, so none are set "
                  "beside these."]
    return "\n".join(lines)


def _summary(transfer: RankTransfer) -> str:
    """The most and least alike pairs, and the largest |rho| of proteins with any other dataset."""
    names = transfer.names
    pairs = [(transfer.spearman[i, j], names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))
             if PROTEINS not in (names[i], names[j])]
    text = []
    if len(pairs) == 1:
        text.append(f"Between {pairs[0][1]} and {pairs[0][2]} the ranking carries over with rho {pairs[0][0]:.2f}.")
    elif pairs:
        best, worst = max(pairs), min(pairs)
        text.append(f"Among the nine-operation datasets the ranking carries over most between {best[1]} and "
                    f"{best[2]} (rho {best[0]:.2f}) and least between {worst[1]} and {worst[2]} (rho {worst[0]:.2f}).")
    if PROTEINS in names:
        p = names.index(PROTEINS)
        others = np.abs(np.delete(transfer.spearman[p], p))
        text.append(f"To proteins it hardly carries over: |rho| at most {others.max():.2f}.")
    return " ".join(text)
