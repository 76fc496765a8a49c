"""Multi-objective runs scored against the exact true Pareto front, over simulated time.

A multi-objective run file holds, per evaluation, the validation and test objective vectors
and whether the evaluation met the run's constraint (``runner.protocol``). Its incumbent after
each evaluation is the non-dominated set of the feasible validation vectors so far, replayed
here with the runner's own :class:`~nasarena.runner.front.IncumbentFront`; the *test* vectors
of those members form the found front, scored against the true front of the benchmark's table
for the same objectives (:class:`~nasarena.analysis.pareto.TrueFront`, test error at the highest
fidelity): normalised hypervolume regret and IGD+. An empty found front (no feasible evaluation
yet) has regret 1 and no IGD+ (NaN). The found front's test vectors may be dominated by one
another (validation and test disagree): they are scored as they are, as a user deploying the
validation front would get them.

A *problem* is a benchmark with one objective list (``nb201-cifar10 error,latency:pixel3``):
each has its own true front, so curves, ECDFs and tests group by problem.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from ..errors import InvalidSettingError
from ..runner.front import IncumbentFront
from .pareto import TrueFront
from .trajectories import RUN_KEYS, check_table, label

#: The column naming a run's problem (benchmark and objectives).
PROBLEM = "problem"


def multiobjective_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The rows of multi-objective runs (those with objective vectors), sorted by run and evaluation."""
    if results.empty or "objectives" not in results.columns:
        return results.iloc[0:0]
    return check_table(results[results["objectives"].notna()]) if results["objectives"].notna().any() \
        else results.iloc[0:0]


def problem_name(benchmark: str, objectives: str) -> str:
    return f"{benchmark} {objectives}"


@lru_cache(maxsize=32)
def true_front(benchmark: str, objectives: str) -> TrueFront:
    """The exact true front of ``benchmark``'s table for ``objectives`` (``"error,latency:pixel3"``);
    architectures without a value (NaN) are left out."""
    from ..benchmarks import benchmark as load
    from ..benchmarks.objectives import objective_matrix, parse_objectives

    matrix = objective_matrix(load(benchmark), parse_objectives(objectives), split="test")
    return TrueFront.of(matrix[np.isfinite(matrix).all(axis=1)])


def front_trajectories(results: pd.DataFrame) -> pd.DataFrame:
    """Per evaluation of every multi-objective run: the incumbent front's size, hypervolume
    regret and IGD+ (of its test vectors, against the true front), with the trajectory columns
    the single-objective analysis reads (so its curve and ECDF helpers take this table with
    ``metric="hv_regret"``) and the run's ``problem`` and ``label``."""
    table = multiobjective_rows(results)
    if table.empty:
        raise InvalidSettingError("no multi-objective runs (run with --objectives to make some)")
    parts = []
    for _, run in table.groupby(RUN_KEYS, sort=True):
        parts.append(_scored_run(run))
    frame = pd.concat(parts, ignore_index=True)
    frame["label"] = problem_labels(frame)
    return frame


def problem_labels(frame: pd.DataFrame) -> pd.Series:
    """Configuration labels within each problem: an optimizer run on two devices has two settings
    hashes, but one configuration per problem, so it is labelled by its name alone there."""
    return pd.concat([label(part) for _, part in frame.groupby(PROBLEM, sort=False)]).reindex(frame.index)


def _scored_run(run: pd.DataFrame) -> pd.DataFrame:
    benchmark, objectives = run["benchmark"].iloc[0], run["objectives"].iloc[0]
    truth = true_front(benchmark, objectives)
    valid = np.stack(run["valid_objectives"].to_numpy()).astype(float)
    test = np.stack(run["test_objectives"].to_numpy()).astype(float)
    feasible = run["feasible"].to_numpy(dtype=bool)
    front = IncumbentFront()
    regret, igd, size = np.ones(len(run)), np.full(len(run), np.nan), np.zeros(len(run), dtype=np.int64)
    for i in range(len(run)):
        if feasible[i] and front.add(tuple(valid[i]), i):
            found = test[front.keys]
            regret[i], igd[i] = truth.hypervolume_regret(found), truth.igd_plus(found)
        elif i:
            regret[i], igd[i] = regret[i - 1], igd[i - 1]
        size[i] = len(front)
    columns = [*RUN_KEYS, "evaluation", "sim_time", "incumbent_test_regret", "incumbent_valid_accuracy"]
    frame = run[columns].reset_index(drop=True)
    frame[PROBLEM] = problem_name(benchmark, objectives)
    frame["objectives"] = objectives
    frame["front_size"], frame["hv_regret"], frame["igd_plus"] = size, regret, igd
    return frame


def final_scores(trajectories: pd.DataFrame) -> pd.DataFrame:
    """One row per run: its last evaluation's hypervolume regret, IGD+ and front size."""
    return trajectories.groupby(RUN_KEYS, sort=True).tail(1).reset_index(drop=True)


def found_fronts(results: pd.DataFrame) -> pd.DataFrame:
    """Every run's final found front: the test vectors of its final incumbent members, one row
    per member (``x``, ``y``: the first two objectives), with ``arch_id``, ``problem`` and ``label``."""
    table = multiobjective_rows(results)
    rows = []
    for keys, run in table.groupby(RUN_KEYS, sort=True):
        front = IncumbentFront()
        valid, feasible = run["valid_objectives"].to_numpy(), run["feasible"].to_numpy(dtype=bool)
        for i in range(len(run)):
            if feasible[i]:
                front.add(tuple(valid[i]), i)
        problem = problem_name(keys[0], run["objectives"].iloc[0])
        for i in front.keys:
            point = run["test_objectives"].iloc[i]
            rows.append((*keys, problem, run["objectives"].iloc[0], run["arch_id"].iloc[i], float(point[0]),
                         float(point[1])))
    frame = pd.DataFrame(rows, columns=[*RUN_KEYS, PROBLEM, "objectives", "arch_id", "x", "y"])
    frame["label"] = problem_labels(frame) if len(frame) else pd.Series(dtype=object)
    return frame


def deployed_regret(results: pd.DataFrame) -> pd.DataFrame:
    """The cross-device study: each final front searched for ``error,latency:A`` deployed on
    every device B that a run of the same benchmark searched: the searched architectures'
    (test error, latency on B) scored against the true front of ``error,latency:B``. One row
    per (run, B) with ``searched`` (A), ``deployed`` (B) and ``hv_regret``; A = B is the run's
    own final regret."""
    from ..benchmarks import benchmark as load
    from ..benchmarks.objectives import Objective, objective_vector

    fronts = found_fronts(results)
    pairs = fronts["objectives"].str.fullmatch(r"error,latency:[^,]+")
    fronts = fronts[pairs].assign(searched=fronts.loc[pairs, "objectives"].str.partition("latency:")[2])
    rows = []
    for bench_name, bench_fronts in fronts.groupby("benchmark", sort=True):
        bench = load(bench_name)
        devices = sorted(bench_fronts["searched"].unique())
        archs = {text: bench.space.from_text(text) for text in bench_fronts["arch_id"].unique()}
        for device in devices:
            objectives = (Objective("error"), Objective("latency", device))
            truth = true_front(bench_name, f"error,latency:{device}")
            vectors = {text: objective_vector(bench, arch, None, objectives, "test") for text, arch in archs.items()}
            for keys, run in bench_fronts.groupby([*RUN_KEYS, "searched", "label"], sort=True):
                found = np.array([vectors[text] for text in run["arch_id"]])
                rows.append((*keys, device, truth.hypervolume_regret(found)))
    return pd.DataFrame(rows, columns=[*RUN_KEYS, "searched", "label", "deployed", "hv_regret"])
