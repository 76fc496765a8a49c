"""Issue 40, points 6 and 7: MO-ASHA (multi-fidelity multi-objective) and EHVI with random forests.

Both are registered and conform, are deterministic per seed, are told validation vectors only,
keep the ask/tell contract with several workers, run through ``nasarena run``, and find better
fronts than random search on a small NB201 budget; MO-ASHA evaluates the low fidelity and
promotes by non-dominated rank (a hand-made rung); the EHVI formula is checked on hand-made
fronts against the plain hypervolume improvement and a seeded Monte-Carlo estimate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import nasarena
from nasarena.analysis.multiobjective import final_scores, front_trajectories
from nasarena.analysis.pareto import hypervolume
from nasarena.cli.main import app
from nasarena.errors import InvalidSettingError
from nasarena.optimizers import Observation, make
from nasarena.optimizers.base import available
from nasarena.optimizers.ehvi import expected_hypervolume_improvement, nondominated_boxes
from nasarena.runner import Budget, RunSettings, run
from nasarena.runner.experiment import load_results
from nasarena.testing import check_optimizer

NEW = ("mo-asha", "ehvi-rf")
SETTINGS = RunSettings(objectives=("error", "latency:pixel3"))


@pytest.fixture(scope="module")
def cifar10():
    return nasarena.benchmark("nb201-cifar10")


def _make(name, benchmark, seed, **settings):
    if name == "mo-asha":
        settings.setdefault("fidelities", benchmark.fidelities)
    return make(name, benchmark.space, seed=seed, **settings)


def _run(benchmark, name, seed, budget, settings=SETTINGS, **options):
    return run(benchmark, _make(name, benchmark, seed, **options), budget, seed=seed, settings=settings)


@pytest.mark.parametrize("name", NEW)
def test_registered_as_multi_objective_and_conforming(cifar10, name):
    """Registered (so test_conformance.py checks them too), multi-objective; MO-ASHA multi-fidelity."""
    registered = {cls.name: cls for cls in available()}
    assert registered[name].multi_objective
    assert registered[name].multi_fidelity == (name == "mo-asha")
    check_optimizer(name, cifar10)


def test_mo_asha_needs_several_fidelities(cifar10):
    with pytest.raises(InvalidSettingError, match="several fidelities"):
        make("mo-asha", cifar10.space)
    with pytest.raises(InvalidSettingError, match="several fidelities"):
        make("mo-asha", cifar10.space, fidelities=[200])


@pytest.mark.parametrize("name", NEW)
def test_the_same_seed_gives_the_same_trajectory_and_another_seed_another(cifar10, name):
    def trials(seed):
        frame = _run(cifar10, name, seed, Budget(evaluations=40))
        return list(zip(frame["arch_id"], frame["fidelity"]))

    first = trials(3)
    assert first == trials(3)
    assert first != trials(4)


@pytest.mark.parametrize("name", NEW)
def test_told_validation_vectors_only(cifar10, name):
    optimizer = _make(name, cifar10, 1)
    told = {}
    tell = optimizer.tell

    def spying(trial, observation):
        told[trial.number] = observation.objectives
        tell(trial, observation)

    optimizer.tell = spying
    frame = run(cifar10, optimizer, Budget(evaluations=40), seed=1, settings=SETTINGS)
    assert [told[number] for number in range(len(frame))] == [tuple(v) for v in frame["valid_objectives"]]
    assert any(v[0] != t[0] for v, t in zip(frame["valid_objectives"], frame["test_objectives"]))


def test_mo_asha_evaluates_the_low_fidelity_and_promotes_only_what_it_evaluated_there(cifar10):
    frame = _run(cifar10, "mo-asha", 0, Budget(seconds=1e5))
    fidelities = frame["fidelity"].value_counts().to_dict()
    assert set(fidelities) == {12, 200} and fidelities[12] > 2 * fidelities[200]
    seen_low: set[str] = set()
    for arch, fidelity in zip(frame["arch_id"], frame["fidelity"]):  # one worker: rows in ask order
        if fidelity == 12:
            seen_low.add(arch)
        else:
            assert arch in seen_low


def _hand_made_rung(feasible_first: bool):
    """MO-ASHA with eta 3 told six 12-epoch results: (error, latency) vectors where the two most
    accurate (A, C) are not the two best by Pareto rank and crowding (A and B, the front's ends)."""
    bench = nasarena.benchmark("nb201-cifar10")
    optimizer = make("mo-asha", bench.space, seed=0, fidelities=[12, 200], eta=3)
    vectors = {"A": (0.10, 10.0), "B": (0.20, 1.0), "C": (0.15, 5.0), "D": (0.30, 20.0), "E": (0.40, 30.0),
               "F": (0.50, 40.0)}
    trials = {label: optimizer.ask() for label in vectors}
    assert {trial.fidelity for trial in trials.values()} == {12}
    for label, trial in trials.items():
        optimizer.tell(trial, Observation(1 - vectors[label][0], 1.0, True, vectors[label],
                                          feasible=feasible_first or label != "A"))
    names = {bench.space.identity(trial.arch): label for label, trial in trials.items()}
    return optimizer, names, bench.space.identity


def test_mo_asha_promotes_the_top_third_by_pareto_rank_and_crowding_not_accuracy():
    optimizer, names, identity = _hand_made_rung(feasible_first=True)
    promoted = [optimizer.ask() for _ in range(3)]  # asked before any 200-epoch result is told
    assert [(names.get(identity(t.arch)), t.fidelity) for t in promoted[:2]] == [("A", 200), ("B", 200)]
    assert promoted[2].fidelity == 12 and identity(promoted[2].arch) not in names  # quota 2 used: a new one
    optimizer, names, identity = _hand_made_rung(feasible_first=False)  # A breaks the constraint: ranked last
    assert {names[identity(optimizer.ask().arch)] for _ in range(2)} == {"B", "C"}


@pytest.mark.parametrize("name", NEW)
def test_several_workers_never_evaluate_a_trial_twice(cifar10, name):
    """Four workers ask before earlier trials are told: MO-ASHA promotes a 12-epoch result once
    (its new configurations are random samples, with replacement as in ASHA and ``hb``, so an
    architecture drawn twice may be promoted twice, never more often than it was drawn); EHVI
    never proposes a told or pending configuration."""
    frame = _run(cifar10, name, 2, Budget(seconds=3e4), settings=RunSettings(n_workers=4,
                                                                              objectives=SETTINGS.objectives))
    if name == "mo-asha":
        counts = frame.groupby(["arch_id", "fidelity"]).size().unstack(fill_value=0)
        assert counts[200].sum() > 20 and (counts[200] <= counts[12]).all()
    else:
        assert len(frame) > 20 and frame["arch_id"].is_unique


def test_a_small_budget_finds_better_fronts_than_random_search(cifar10):
    """nb201-cifar10, error and pixel3 latency, 5e4 simulated seconds (about 35 full trainings),
    seeds 0-4. Measured 2026-12-01, median final hypervolume regret: mo-rs 0.096, mo-asha 0.025,
    ehvi-rf 0.028; each new median must be below random search's, every front non-empty."""
    frames = [_run(cifar10, name, seed, Budget(seconds=5e4)) for name in ("mo-rs", *NEW) for seed in range(5)]
    final = final_scores(front_trajectories(pd.concat(frames, ignore_index=True)))
    assert (final["front_size"] > 0).all()
    medians = final.groupby("optimizer")["hv_regret"].median()
    assert medians["mo-asha"] < medians["mo-rs"] and medians["ehvi-rf"] < medians["mo-rs"], medians.to_dict()


def test_nasarena_run_takes_both(tmp_path):
    out = tmp_path / "results"
    result = CliRunner().invoke(app, ["run", "--benchmarks", "nb201-cifar10", "--objectives", "error,latency:pixel3",
                                      "--optimizers", "mo-asha,ehvi-rf", "--seeds", "0", "--budget", "2e4", "--jobs",
                                      "1", "--out", str(out)], env={"NASARENA_PROGRESS": "0"})
    assert result.exit_code == 0, result.output
    results = load_results(out)
    assert set(results["optimizer"]) == set(NEW)
    assert set(results.loc[results["optimizer"] == "mo-asha", "fidelity"]) == {12, 200}


# -- the EHVI formula --------------------------------------------------------------------------------

FRONT = np.array([[0.2, 0.8], [0.5, 0.5], [0.8, 0.2]])
REFERENCE = np.array([1.1, 1.1])


def _improvement(front, point, reference):
    return hypervolume(np.vstack([front, point]), reference) - hypervolume(front, reference)


@pytest.mark.parametrize("front, reference", [
    (FRONT, REFERENCE),
    (np.random.default_rng(0).random((7, 3)), np.full(3, 1.1)),
])
def test_zero_variance_ehvi_is_the_hypervolume_improvement(front, reference):
    """Points inside the box, dominated ones, one on the front, ones beyond the reference."""
    rng = np.random.default_rng(1)
    points = np.vstack([rng.random((30, len(reference))) * 1.3 - 0.1, front[:1], reference + 0.05])
    ehvi = expected_hypervolume_improvement(points, np.zeros_like(points), front, reference)
    np.testing.assert_allclose(ehvi, [_improvement(front, p, reference) for p in points], atol=1e-12)
    assert ehvi[-2] == 0 and ehvi[-1] == 0


def test_the_boxes_cover_exactly_the_non_dominated_region():
    lower, upper = nondominated_boxes(FRONT, REFERENCE)
    assert len(lower) == len(FRONT) + 1
    area = np.prod(upper - np.maximum(lower, 0.0), axis=1).sum()  # the region within [0, r]
    assert area == pytest.approx(np.prod(REFERENCE) - hypervolume(FRONT, REFERENCE))


def test_a_candidate_dominating_more_area_has_the_larger_ehvi():
    means = np.array([[0.3, 0.3], [0.45, 0.45], [0.6, 0.6], [0.9, 0.9]])
    ehvi = expected_hypervolume_improvement(means, np.full_like(means, 0.05), FRONT, REFERENCE)
    assert ehvi[0] > ehvi[1] > ehvi[2] > ehvi[3] >= 0
    assert ehvi[3] < 1e-6  # dominated, far from the front: almost no chance of improving it
    wider = expected_hypervolume_improvement(means[3:], np.full((1, 2), 0.3), FRONT, REFERENCE)
    assert wider[0] > ehvi[3]  # uncertainty about a dominated point is worth something


def test_ehvi_is_the_mean_improvement_of_gaussian_samples():
    """Seeded Monte Carlo: 20,000 samples of independent Gaussians, within 4 standard errors."""
    rng = np.random.default_rng(2)
    mean, std = np.array([0.45, 0.4]), np.array([0.2, 0.1])
    samples = rng.normal(mean, std, size=(20_000, 2))
    improvements = expected_hypervolume_improvement(samples, np.zeros_like(samples), FRONT, REFERENCE)
    exact = expected_hypervolume_improvement(mean[None], std[None], FRONT, REFERENCE)[0]
    assert exact == pytest.approx(improvements.mean(), abs=4 * improvements.std() / np.sqrt(len(samples)))
