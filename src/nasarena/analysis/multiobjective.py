"""Multi-objective runs scored against the exact true Pareto front, over simulated time.

A multi-objective run file holds, per evaluation, the validation and test objective vectors
and whether the evaluation met the run's constraint (``runner.protocol``). Its incumbent after
each evaluation is the non-dominated set of the feasible validation vectors so far, replayed
here with the runner's own :class:`~nasarena.runner.front.IncumbentFront`; the *test* vectors
of those members form the found front, scored against the true front of the benchmark's table
for the same objectives (:class:`~nasarena.analysis.pareto.TrueFront`, test error at the highest
fidelity): normalised hypervolume regret and IGD+, each twice:

- ``hv_regret_roi``, ``igd_plus_roi``: in the region of interest, the part of the true front within
  :data:`~nasarena.analysis.pareto.MAX_ERROR_ABOVE_BEST` of its best error, in that part's own box
  (:meth:`~nasarena.analysis.pareto.TrueFront.region`): the default score, where optimizers that
  find accurate trade-offs differ; a problem without an error objective has no such region, and
  scores the whole front there too;
- ``hv_regret``, ``igd_plus``: over the whole true front's box.

An empty found front (no feasible evaluation yet) has regret 1 and no IGD+ (NaN). The found
front's test vectors may be dominated by one another (validation and test disagree): they are
scored as they are, as a user deploying the validation front would get them.

A constrained run (``--constraint latency:DEVICE<=MS``, the ``constraint`` column of its rows)
can only find cells within its bound, so it is scored against the true front of those cells:
the exact feasible front scores 0, as a constrained single-objective run's regret is measured
from the constrained optimum.

A *problem* is a benchmark with one objective list (``nb201-cifar10 error,latency:pixel3``),
and the constraint and unique cells where a run has them (:func:`problem_name`): each problem
has its own true front, so curves, ECDFs and tests group by problem, and runs scored against
different fronts never share one.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from ..errors import InvalidSettingError
from ..runner.front import IncumbentFront
from ..runner.objectives import Constraint
from .pareto import MAX_ERROR_ABOVE_BEST, TrueFront
from .trajectories import RUN_KEYS, check_table, label

#: The column naming a run's problem (benchmark and objectives).
PROBLEM = "problem"


def multiobjective_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The rows of multi-objective runs (those with objective vectors), sorted by run and evaluation."""
    if results.empty or "objectives" not in results.columns:
        return results.iloc[0:0]
    return check_table(results[results["objectives"].notna()]) if results["objectives"].notna().any() \
        else results.iloc[0:0]


#: Separates a problem's constraint and unique-cells mark from its benchmark and objectives.
PROBLEM_PART = " | "
UNIQUE_CELLS = "unique cells"


def problem_name(benchmark: str, objectives: str, constraint: str | None = None, unique: bool = False) -> str:
    """A problem's name: what its runs are scored against, so that runs scored against different
    true fronts (another constraint, unique cells) never share a problem's statistics. An
    unconstrained problem on all cells is ``"BENCHMARK OBJECTIVES"``, as before."""
    parts = [f"{benchmark} {objectives}", *([constraint] if constraint else []), *([UNIQUE_CELLS] if unique else [])]
    return PROBLEM_PART.join(parts)


def parse_problem(problem: str) -> tuple[str, str, str | None, bool]:
    """``(benchmark, objectives, constraint, unique)`` of a :func:`problem_name`."""
    head, *rest = problem.split(PROBLEM_PART)
    benchmark, objectives = head.split(" ", 1)
    unique = UNIQUE_CELLS in rest
    constraints = [part for part in rest if part != UNIQUE_CELLS]
    return benchmark, objectives, constraints[0] if constraints else None, unique


def problem_front(problem: str) -> TrueFront:
    """The true front a problem's runs are scored against (its constraint and cells included)."""
    return true_front(*parse_problem(problem))


def problem_objectives(problem: str) -> list[str]:
    """The objective labels of a problem, in order."""
    return parse_problem(problem)[1].split(",")


@lru_cache(maxsize=32)
def true_front(benchmark: str, objectives: str, constraint: str | None = None, unique: bool = False) -> TrueFront:
    """The exact true front of ``benchmark``'s table for ``objectives`` (``"error,latency:pixel3"``),
    among the architectures within ``constraint`` (``"latency:pixel3<=5"``) where one is given;
    architectures without a value (NaN) are left out. ``unique``: of one architecture per class
    of equivalent cells (the benchmark loaded with ``unique=True``, NB201)."""
    from ..benchmarks import benchmark as load
    from ..benchmarks.objectives import objective_matrix, parse_objectives

    bench = load(benchmark, unique=True) if unique else load(benchmark)
    matrix = objective_matrix(bench, parse_objectives(objectives), split="test")
    keep = np.isfinite(matrix).all(axis=1)
    if constraint is not None:  # as the runner judges feasibility (RunObjectives.feasible), on the whole table
        bound = Constraint.parse(constraint)
        keep &= np.asarray(bench.latency_column(bound.device), dtype=np.float64) <= bound.limit_ms
    return TrueFront.of(matrix[keep])


@lru_cache(maxsize=32)
def region_front(benchmark: str, objectives: str, constraint: str | None = None, unique: bool = False) -> TrueFront:
    """The region of interest of :func:`true_front` (the default bound on its error objective),
    or the whole front where the objectives have no error to bound."""
    truth = true_front(benchmark, objectives, constraint, unique)
    labels = objectives.split(",")
    if "error" not in labels:
        return truth
    return truth.region(MAX_ERROR_ABOVE_BEST, error=labels.index("error"))


def run_constraint(run: pd.DataFrame) -> str | None:
    """The bound a run ran under (the ``constraint`` column of its rows), None for none."""
    if "constraint" not in run.columns or pd.isna(run["constraint"].iloc[0]):
        return None
    return str(run["constraint"].iloc[0])


def run_unique(run: pd.DataFrame) -> bool:
    """Whether a run was on unique cells (the ``unique_cells`` column a benchmark loaded with
    ``unique=True`` gives its rows; absent, or NaN beside other runs, for all cells)."""
    return "unique_cells" in run.columns and bool(run["unique_cells"].fillna(False).iloc[0])


def front_trajectories(results: pd.DataFrame) -> pd.DataFrame:
    """Per evaluation of every multi-objective run: the incumbent front's size and the scores of
    its test vectors (``hv_regret_roi`` and ``igd_plus_roi`` in the region of interest, the
    default; ``hv_regret`` and ``igd_plus`` over the whole front), with the trajectory columns
    the single-objective analysis reads (so its curve and ECDF helpers take this table with
    ``metric="hv_regret_roi"``), the run's ``problem``, ``constraint`` (None for none) and ``label``."""
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


#: The score columns of :func:`front_trajectories`: the whole front's, then the region's.
SCORES = ("hv_regret", "igd_plus", "hv_regret_roi", "igd_plus_roi")


def _scored_run(run: pd.DataFrame) -> pd.DataFrame:
    benchmark, objectives, constraint = run["benchmark"].iloc[0], run["objectives"].iloc[0], run_constraint(run)
    unique = run_unique(run)
    truths = (true_front(benchmark, objectives, constraint, unique),
              region_front(benchmark, objectives, constraint, unique))
    valid = np.stack(run["valid_objectives"].to_numpy()).astype(float)
    test = np.stack(run["test_objectives"].to_numpy()).astype(float)
    feasible = run["feasible"].to_numpy(dtype=bool)
    front = IncumbentFront()
    scores = np.full((len(run), len(SCORES)), np.nan)
    scores[:, 0::2] = 1.0  # an empty front's regrets; its IGD+ is undefined
    size = np.zeros(len(run), dtype=np.int64)
    for i in range(len(run)):
        if feasible[i] and front.add(tuple(valid[i]), i):
            found = test[front.keys]
            scores[i] = [score for truth in truths
                         for score in (truth.hypervolume_regret(found), truth.igd_plus(found))]
        elif i:
            scores[i] = scores[i - 1]
        size[i] = len(front)
    columns = [*RUN_KEYS, "evaluation", "sim_time", "incumbent_test_regret", "incumbent_valid_accuracy"]
    frame = run[columns].reset_index(drop=True)
    frame[PROBLEM] = problem_name(benchmark, objectives, constraint, unique)
    frame["objectives"], frame["constraint"], frame["front_size"] = objectives, constraint, size
    for k, name in enumerate(SCORES):
        frame[name] = scores[:, k]
    return frame


def final_scores(trajectories: pd.DataFrame) -> pd.DataFrame:
    """One row per run: its last evaluation's scores (:data:`SCORES`) and front size."""
    return trajectories.groupby(RUN_KEYS, sort=True).tail(1).reset_index(drop=True)


def found_fronts(results: pd.DataFrame) -> pd.DataFrame:
    """Every run's final found front: the test vectors of its final incumbent members, one row
    per member (``x``, ``y``: the first two objectives), with ``arch_id``, ``problem``,
    ``constraint`` (None for none) and ``label``."""
    table = multiobjective_rows(results)
    rows = []
    for keys, run in table.groupby(RUN_KEYS, sort=True):
        front = IncumbentFront()
        valid, feasible = run["valid_objectives"].to_numpy(), run["feasible"].to_numpy(dtype=bool)
        for i in range(len(run)):
            if feasible[i]:
                front.add(tuple(valid[i]), i)
        constraint = run_constraint(run)
        problem = problem_name(keys[0], run["objectives"].iloc[0], constraint, run_unique(run))
        for i in front.keys:
            point = run["test_objectives"].iloc[i]
            rows.append((*keys, problem, run["objectives"].iloc[0], constraint, run["arch_id"].iloc[i],
                         float(point[0]), float(point[1])))
    frame = pd.DataFrame(rows, columns=[*RUN_KEYS, PROBLEM, "objectives", "constraint", "arch_id", "x", "y"])
    frame["label"] = problem_labels(frame) if len(frame) else pd.Series(dtype=object)
    return frame


def deployed_regret(results: pd.DataFrame) -> pd.DataFrame:
    """The cross-device study: each final front searched for ``error,latency:A`` deployed on
    every device B that a run of the same benchmark searched: the searched architectures'
    (test error, latency on B) scored against the true front of ``error,latency:B`` (within the
    run's constraint, which its architectures meet wherever they are deployed). One row per
    (run, B) with ``searched`` (A), ``deployed`` (B), ``hv_regret`` and ``hv_regret_roi``; A = B
    is the run's own final regret."""
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
            vectors = {text: objective_vector(bench, arch, None, objectives, "test") for text, arch in archs.items()}
            for keys, run in bench_fronts.groupby([*RUN_KEYS, "searched", "label"], sort=True):
                constraint = run_constraint(run)
                truths = (true_front(bench_name, f"error,latency:{device}", constraint),
                          region_front(bench_name, f"error,latency:{device}", constraint))
                found = np.array([vectors[text] for text in run["arch_id"]])
                rows.append((*keys, device, *(truth.hypervolume_regret(found) for truth in truths)))
    return pd.DataFrame(rows, columns=[*RUN_KEYS, "searched", "label", "deployed", "hv_regret", "hv_regret_roi"])
