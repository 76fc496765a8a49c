"""The leaderboard across benchmark families (``docs/leaderboard.md``), at the full scale.

Full: :data:`~nasarena.studies.leaderboard_scales.FULL` on every family's benchmarks that can run where
the page is generated (the page says which were left out). Cheap: RS, RE and LS on two NB201
datasets and NB-1Shot1 space 1, two seeds, 20 trainings' worth per run (table look-ups only).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from .. import leaderboard as board
from ..leaderboard_scales import FULL, SMALL
from .common import configurations, seeds
from .pages import Generated
from .recorded import CHEAP

CHEAP_SCALE = dataclasses.replace(SMALL, name="cheap", optimizers=("rs", "re", "ls"), seeds=range(2),
                                  evaluations=20)
CHEAP_BENCHMARKS = ("nb201-cifar10", "nb201-cifar100", "nb1shot1-1")


def generate(scale: str, results: Path, jobs: int) -> Generated:
    if scale == CHEAP:
        chosen, left_out, size = list(CHEAP_BENCHMARKS), {}, CHEAP_SCALE
    else:
        (chosen, left_out), size = board.default_benchmarks(), FULL
    planned = board.specs(chosen, size)
    ranked = board.run_planned(planned, results, jobs)
    values = {f"{row.benchmark}/{row.optimizer}/{field}": float(getattr(row, field))
              for row in ranked.per_benchmark.itertuples() for field in ("mean_rank", "mean_regret")}
    values.update({f"{name}/budget_seconds": float(spec_budget) for name, spec_budget in
                   ranked.per_benchmark.groupby("benchmark")["simulated_seconds"].first().items()})
    if ranked.across is not None:
        values.update({f"across/{name}/mean_rank": float(rank) for name, rank in ranked.across.mean_ranks.items()})
        values["across/friedman_p"] = ranked.across.p_value
        values["across/kendall_w"] = ranked.concordance.w
    return Generated(board.markdown(ranked, left_out), values, configurations(planned), seeds(planned))
