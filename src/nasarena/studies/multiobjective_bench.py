"""MO-ASHA (multi-fidelity) and EHVI with random forests against single-fidelity multi-objective
search, at equal simulated time on NB201 x measured latency.

The problems are those of the main comparison of ``docs/multi-objective.md``
(:mod:`.latency_problems`): ``nb201-cifar10`` with error and latency on a Pixel 3
(``pixel3``) and on a Raspberry Pi 4 (``raspi4``). Every optimizer gets the same simulated time;
MO-ASHA spends it on 12-epoch trainings and promotes the best third of them, by Pareto rank and
crowding, to 200 epochs, while the others train every architecture for 200 epochs. Each run's
final found front is scored against the exact true front (:mod:`nasarena.analysis.multiobjective`).

Two comparisons (:class:`Comparison`) read one set of runs: a run is determined by its settings
and seed, so ``mo-rs``, ``mo-re`` and ``nsga2`` are the same runs in both. :func:`summarise`
reads, per problem and optimizer:

- the median and quartiles of the final hypervolume regret in the region of interest
  (``region``, ``hv_regret_roi``, the default score) of the run's front as ``nasarena run``
  scores it: the non-dominated set of every evaluation's validation vector, whatever its
  fidelity (a 12-epoch evaluation may sit on it, scored by its test error after 200 epochs);
- the same for the front of the top-fidelity evaluations alone (``region_top``: what a user who
  deploys only fully trained networks gets; the same front for a single-fidelity optimizer),
  and on how many runs the two differ, in the region and over the whole front;
- on how many runs a lower-fidelity evaluation stays on the final front;
- the whole front's regret (``full``, ``hv_regret``);
- the median evaluations per run at each fidelity and the median latency of the evaluated
  architectures (where on the front a search spends its time);
- against ``mo-rs``, paired by seed, in the region and over the whole front: the seeds with the
  lower regret and the Wilcoxon signed-rank p.

The optimizer's CPU per evaluation is a timing, measured as the main comparison measures it
(:func:`.latency_problems.cpu_per_evaluation`: recorded, never compared). :func:`markdown`
prints one table per comparison and problem and a verdict computed from the values. ``docs/multi-objective.md`` publishes both comparisons at the defaults
(``nasarena reproduce multi-objective``, block ``bench``); ``bench/bench_multiobjective_fidelity.py``
and ``bench/bench_multiobjective_ehvi.py`` print them at any size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..analysis.multiobjective import PROBLEM, final_scores, front_trajectories, problem_name
from ..errors import InvalidSettingError
from ..runner.experiment import RunSpec
from ..runner.front import IncumbentFront
from .latency_problems import BASELINE, BENCHMARK, DEVICES, against_baseline, objectives
from .latency_problems import specs as problem_specs
from .reproduce.common import p_value

#: The p below which a paired difference counts as shown in the verdicts.
SIGNIFICANCE = 0.05


@dataclass(frozen=True)
class Comparison:
    """One table: ``optimizers`` with the one its verdict is about first; ``BASELINE`` among them."""

    title: str
    optimizers: tuple[str, ...]
    #: The script that prints it at any size.
    bench: str

    @property
    def subject(self) -> str:
        return self.optimizers[0]


FIDELITY = Comparison("MO-ASHA against single-fidelity search at equal simulated time",
                      ("mo-asha", "mo-rs", "mo-re", "nsga2"), "bench/bench_multiobjective_fidelity.py")
EHVI = Comparison("EHVI with random forests against the other multi-objective optimizers",
                  ("ehvi-rf", "mo-rs", "mo-re", "nsga2", "parego-smac"), "bench/bench_multiobjective_ehvi.py")


@dataclass(frozen=True)
class Study:
    """The comparisons printed, seeds ``0..seeds-1``, simulated seconds a run and the devices."""

    comparisons: tuple[Comparison, ...] = (FIDELITY, EHVI)
    seeds: int = 20
    seconds: float = 3e5
    devices: tuple[str, ...] = DEVICES

    def __post_init__(self) -> None:
        for comparison in self.comparisons:
            if BASELINE not in comparison.optimizers:
                raise InvalidSettingError(f"the comparison {comparison.title!r} needs {BASELINE}, its baseline, "
                                          f"among its optimizers, got {', '.join(comparison.optimizers)}")

    @property
    def optimizers(self) -> tuple[str, ...]:
        """Every comparison's optimizers, each once: what runs."""
        return tuple(dict.fromkeys(name for comparison in self.comparisons for name in comparison.optimizers))


def specs(study: Study) -> list[RunSpec]:
    """Every optimizer of the study on every problem and seed."""
    return problem_specs(study.optimizers, range(study.seeds), study.seconds, study.devices)


def low_fidelity_members(results: pd.DataFrame, top: float) -> pd.Series:
    """Per run (``objectives``, ``optimizer``, ``seed``): the evaluations below fidelity ``top`` on
    its final front, replayed as the runner keeps it (feasible validation vectors, in order)."""
    counts = {}
    for keys, run in results.sort_values("evaluation").groupby(["objectives", "optimizer", "seed"]):
        front = IncumbentFront()
        for i, (vector, feasible) in enumerate(zip(run["valid_objectives"], run["feasible"])):
            if feasible:
                front.add(tuple(float(v) for v in vector), i)
        fidelity = run["fidelity"].to_numpy()
        counts[keys] = float(sum(fidelity[i] < top for i in front.keys))
    return pd.Series(counts)


def _quartiles(scores: pd.Series, key: str) -> dict[str, float]:
    low, middle, high = np.percentile(scores, [25, 50, 75])
    return {f"{key}_q25": float(low), f"{key}_median": float(middle), f"{key}_q75": float(high)}


def summarise(results: pd.DataFrame, study: Study) -> dict[str, float]:
    """The study's values (see the module docstring), keyed ``DEVICE/OPTIMIZER/...``: ``region``,
    ``region_top`` and ``full`` quartiles (``_q25``, ``_median``, ``_q75``), ``region_top_differs``
    and ``full_top_differs`` (runs whose top-fidelity front scores otherwise),
    ``fronts_with_low_fidelity``, ``evaluations@FIDELITY``, ``latency_median``, and against
    ``BASELINE`` ``wins``, ``same``, ``p_vs_baseline`` (region) and ``full/wins``, ``full/same``,
    ``full/p_vs_baseline``; ``DEVICE/seeds`` (seeds with every optimizer's run) and
    ``top_fidelity``."""
    top = float(results["fidelity"].max())
    fidelities = sorted(float(f) for f in results["fidelity"].unique())
    every = final_scores(front_trajectories(results))
    trained = final_scores(front_trajectories(results[results["fidelity"] == top]))
    low = low_fidelity_members(results, top)
    counts = results.groupby(["objectives", "optimizer", "seed", "fidelity"]).size()
    values: dict[str, float] = {"top_fidelity": top}
    for device in study.devices:
        labels = objectives(device)
        problem = problem_name(BENCHMARK, labels)
        scores = {name: table[table[PROBLEM] == problem].pivot_table(index="seed", columns="optimizer", values=score)
                  for name, table, score in (("region", every, "hv_regret_roi"), ("full", every, "hv_regret"),
                                             ("region_top", trained, "hv_regret_roi"),
                                             ("full_top", trained, "hv_regret"))}
        seeds = scores["region"].dropna().index
        scores = {name: table.loc[seeds] for name, table in scores.items()}
        values[f"{device}/seeds"] = float(len(seeds))
        mine = results[results["objectives"] == labels]
        for name in study.optimizers:
            key = f"{device}/{name}"
            for score in ("region", "region_top", "full"):
                values.update(_quartiles(scores[score][name], f"{key}/{score}"))
            for score in ("region", "full"):
                differs = ~np.isclose(scores[f"{score}_top"][name], scores[score][name], rtol=1e-9, atol=1e-12)
                values[f"{key}/{score}_top_differs"] = float(differs.sum())
            values[f"{key}/fronts_with_low_fidelity"] = float(sum(low[labels, name, seed] > 0 for seed in seeds))
            per_run = counts.loc[labels, name].unstack("fidelity", fill_value=0).reindex(seeds, fill_value=0)
            for fidelity in fidelities:
                column = per_run[fidelity] if fidelity in per_run.columns else pd.Series(0, index=seeds)
                values[f"{key}/evaluations@{fidelity:g}"] = float(column.median())
            latencies = [vector[1] for vector in mine.loc[mine["optimizer"] == name, "valid_objectives"]]
            values[f"{key}/latency_median"] = float(np.median(latencies))
            if name != BASELINE:
                values.update(against_baseline(scores["region"][name], scores["region"][BASELINE], key))
                values.update(against_baseline(scores["full"][name], scores["full"][BASELINE], f"{key}/full"))
    return values


def fidelities_of(values: dict[str, float], comparison: Comparison, devices: Sequence[str]) -> list[float]:
    """The fidelities some optimizer of ``comparison`` evaluated, lowest first."""
    found = {float(key.rsplit("@", 1)[1]) for key in values if "/evaluations@" in key}
    return sorted(f for f in found if any(values[f"{device}/{name}/evaluations@{f:g}"] > 0
                                          for device in devices for name in comparison.optimizers))


def judgement(values: dict[str, float], device: str, name: str, part: str = "") -> str:
    """How ``name`` compares with ``BASELINE`` on one device (``part``: ``""`` the region,
    ``"full/"`` the whole front): ``better than`` (``worse than``) where p is below
    :data:`SIGNIFICANCE` and its regret is the lower on more (fewer) than half the seeds, else
    ``not significantly different from``; ``the same as`` where the fronts are the same."""
    key = f"{device}/{name}/{part}"
    if values[f"{key}same"]:
        return "the same as"
    wins, seeds = values[f"{key}wins"], values[f"{device}/seeds"]
    if values[f"{key}p_vs_baseline"] < SIGNIFICANCE and 2 * wins != seeds:
        return "better than" if 2 * wins > seeds else "worse than"
    return "not significantly different from"


def _where(devices: list[str], every: list[str]) -> str:
    """Devices named as a verdict says them: ``both devices``, ``pixel3 only``, ``neither device``."""
    if len(devices) == len(every):
        return {1: every[0], 2: "both devices"}.get(len(every), "every device")
    if not devices:
        return "neither device" if len(every) == 2 else "no device"
    return " and ".join(devices) + " only"


def _paired(values: dict[str, float], study: Study, name: str, part: str, what: str) -> str:
    """One sentence: on how many seeds ``name``'s ``what`` regret is below ``BASELINE``'s, the
    p-values and the judgement, per device or for all at once where they agree."""
    devices = list(study.devices)
    wins = {d: (values[f"{d}/{name}/{part}wins"], values[f"{d}/seeds"]) for d in devices}
    if all(won == seeds for won, seeds in wins.values()):
        counted = f"on every seed on {_where(devices, devices)}"
    else:
        counted = "on " + " and ".join(f"{won:.0f} of {seeds:.0f}{' seeds' if i == 0 else ''} on {d}"
                                       for i, (d, (won, seeds)) in enumerate(wins.items()))
    ps = ", ".join(("same fronts" if values[f"{d}/{name}/{part}same"] else
                    f"{p_value(values[f'{d}/{name}/{part}p_vs_baseline'])}") + f" on {d}" for d in devices)
    verdicts = {d: judgement(values, d, name, part) for d in devices}
    if len(set(verdicts.values())) == 1:
        said = f"{verdicts[devices[0]]} {BASELINE} on {_where(devices, devices)}"
    else:
        said = ", ".join(f"{verdict} {BASELINE} on {d}" for d, verdict in verdicts.items())
    return f"{name}'s {what} regret is below {BASELINE}'s {counted} (Wilcoxon p {ps}): {said}."


def _lowest(values: dict[str, float], study: Study, comparison: Comparison) -> str:
    """Which optimizer has the lowest median region regret per device (said once where it is the
    same on every device), and the subject's median as a multiple of it where it is another."""
    devices = list(study.devices)
    best = {}
    for device in devices:
        medians = {name: values[f"{device}/{name}/region_median"] for name in comparison.optimizers}
        best[device] = min(medians, key=lambda name: (medians[name], name))
    if len(set(best.values())) == 1:
        found = f"{best[devices[0]]}'s on {_where(devices, devices)}"
    else:
        found = " and ".join(f"{winner}'s on {device}" for device, winner in best.items())
    subject = comparison.subject
    ratios = [f"{values[f'{d}/{subject}/region_median'] / values[f'{d}/{best[d]}/region_median']:.2f} times "
              f"{best[d]}'s on {d}" for d in devices if best[d] != subject]
    return (f"The lowest median region regret of the table is {found}"
            + (f"; {subject}'s is {' and '.join(ratios)}." if ratios else "."))


def _fidelity(values: dict[str, float], study: Study, name: str) -> str:
    """What the lower-fidelity evaluations do to ``name``'s fronts: how many final fronts hold one,
    and on how many runs scoring the top-fidelity evaluations alone moves a regret."""
    top = values["top_fidelity"]
    runs = sum(values[f"{d}/seeds"] for d in study.devices)
    held = sum(values[f"{d}/{name}/fronts_with_low_fidelity"] for d in study.devices)
    region = sum(values[f"{d}/{name}/region_top_differs"] for d in study.devices)
    full = sum(values[f"{d}/{name}/full_top_differs"] for d in study.devices)
    stay = f"Evaluations of fewer than {top:g} epochs stay on {held:.0f} of {name}'s {runs:.0f} final fronts"
    if region == full == 0:
        return (f"{stay}; scoring its {top:g}-epoch evaluations alone changes neither the region nor the whole-front "
                f"regret of any run (region@{top:g} equals region): they add nothing to its scores.")
    return (f"{stay}; scoring its {top:g}-epoch evaluations alone changes the region regret of {region:.0f} runs "
            f"and the whole-front regret of {full:.0f}.")


def _where_it_searches(values: dict[str, float], study: Study, comparison: Comparison) -> str:
    """For a single-fidelity table, where the subject's evaluations go: the devices on which its
    evaluated architectures have the table's lowest median latency, and on which it makes the most
    evaluations (fast cells train fast, so the two go together)."""
    top, name, devices = values["top_fidelity"], comparison.subject, list(study.devices)

    def extreme(field: str, sign: float) -> list[str]:
        """The devices where ``name``'s ``field`` times ``sign`` is strictly below every other's."""
        return [d for d in devices if all(sign * values[f"{d}/{name}/{field}"] < sign * values[f"{d}/{other}/{field}"]
                                          for other in comparison.optimizers if other != name)]

    return (f"{name}'s evaluated architectures have the table's lowest median latency on "
            f"{_where(extreme('latency_median', 1), devices)}, and it makes the most {top:g}-epoch evaluations on "
            f"{_where(extreme(f'evaluations@{top:g}', -1), devices)}.")


def verdict(values: dict[str, float], study: Study, comparison: Comparison) -> str:
    """What a table shows of its subject, in words computed from the values."""
    name = comparison.subject
    sentences = [_paired(values, study, name, "", "region"), _paired(values, study, name, "full/", "whole-front"),
                 _lowest(values, study, comparison)]
    top = values["top_fidelity"]
    if any(values[f"{d}/{name}/evaluations@{f:g}"] > 0 for d in study.devices
           for f in fidelities_of(values, comparison, study.devices) if f < top):
        sentences.append(_fidelity(values, study, name))
    else:
        sentences.append(_where_it_searches(values, study, comparison))
    return " ".join(sentences)


def _cell(values: dict[str, float], key: str) -> str:
    """A median with its interquartile range in brackets."""
    return f"{values[f'{key}_median']:.4f} ({values[f'{key}_q75'] - values[f'{key}_q25']:.4f})"


def _versus(values: dict[str, float], key: str, seeds: float) -> tuple[str, str]:
    if values[f"{key}/same"]:
        return f"0/{seeds:.0f}", "same fronts"
    return f"{values[f'{key}/wins']:.0f}/{seeds:.0f}", p_value(values[f"{key}/p_vs_baseline"])


def comparison_markdown(values: dict[str, float], timings: dict[str, float], study: Study,
                        comparison: Comparison) -> str:
    """A comparison's caption, one table per problem and its verdict."""
    fidelities = fidelities_of(values, comparison, study.devices)
    top = values["top_fidelity"]
    several = len(fidelities) > 1  # then the top-fidelity front differs from the run's
    scores = [("region", "region")] + ([("region_top", f"region@{top:g}")] if several else []) + [
        ("full", "whole front")]
    headings = ([label for _, label in scores] + [f"evaluations@{f:g}" for f in fidelities]
                + ["median latency (ms)", "CPU ms / evaluation", f"seeds below {BASELINE}", f"Wilcoxon p vs {BASELINE}"])
    lines = [f"**{comparison.title}** (`{comparison.bench}`): {BENCHMARK}, seeds 0-{study.seeds - 1}, "
             f"{study.seconds:g} simulated seconds a run; final hypervolume regret, median (interquartile range), "
             f"in the region of interest and over the whole front" + (
                 f", and in the region for the front of the {top:g}-epoch evaluations alone" if several else "")
             + f"; evaluations per run (the median over the seeds, .5 where it falls between two); against {BASELINE}, the region regret paired by seed.", ""]
    for device in study.devices:
        seeds = values[f"{device}/seeds"]
        lines += [f"*{BENCHMARK} x {device}*", "", "| optimizer | " + " | ".join(headings) + " |",
                  "|---|" + "---:|" * len(headings)]
        for name in comparison.optimizers:
            key = f"{device}/{name}"
            wins, p = ("", "") if name == BASELINE else _versus(values, key, seeds)
            cells = ([_cell(values, f"{key}/{score}") for score, _ in scores]
                     + [f"{values[f'{key}/evaluations@{f:g}']:g}" for f in fidelities]
                     + [f"{values[f'{key}/latency_median']:.2f}",
                        f"{timings.get(f'{key}/cpu_ms_per_evaluation', float('nan')):.2f}", wins, p])
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    lines.append(verdict(values, study, comparison))
    return "\n".join(lines)


def markdown(values: dict[str, float], timings: dict[str, float], study: Study) -> str:
    """Every comparison of the study, in order."""
    return "\n\n".join(comparison_markdown(values, timings, study, comparison) for comparison in study.comparisons)
