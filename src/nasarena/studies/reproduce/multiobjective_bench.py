"""The bench comparisons of ``docs/multi-objective.md``: MO-ASHA and EHVI with random forests
against single-fidelity multi-objective search (:mod:`..multiobjective_bench`), the tables that
``bench/bench_multiobjective_fidelity.py`` and ``bench/bench_multiobjective_ehvi.py`` print.

Full scale: the benches' defaults, both comparisons from one set of runs (``mo-asha``, ``mo-rs``,
``mo-re``, ``nsga2``, ``ehvi-rf``, ``parego-smac``), 20 seeds, 3e5 simulated seconds a run, both
devices. Cheap scale: the MO-ASHA comparison alone (``ehvi-rf`` and ``parego-smac`` fit forests,
whose sums may round otherwise on another CPU and then choose other architectures; MO-ASHA's
promotions, like NSGA-II's survivors, are Pareto ranks and crowding distances, elementwise
arithmetic that rounds the same everywhere), three seeds, 2.5e5 s (about 150 evaluations): past
mo-re's random initial population of 100 (at 1.5e5 s its fronts are still mo-rs's) and NSGA-II's
of 50, and MO-ASHA promotes to 200 epochs.
"""

from __future__ import annotations

from pathlib import Path

from .. import multiobjective_bench as study
from ..latency_problems import cpu_per_evaluation
from .common import configurations, run_specs, seeds
from .pages import Generated
from .recorded import CHEAP, FULL

STUDIES = {FULL: study.Study(), CHEAP: study.Study(comparisons=(study.FIDELITY,), seeds=3, seconds=2.5e5)}


def generate(scale: str, results: Path, jobs: int) -> Generated:
    chosen = STUDIES[scale]
    planned = study.specs(chosen)
    values = study.summarise(run_specs(planned, results, jobs), chosen)
    timings = cpu_per_evaluation(results, planned)
    return Generated(study.markdown(values, timings, chosen), values, configurations(planned), seeds(planned), timings)
