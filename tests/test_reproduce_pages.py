"""The generated blocks of hardware.md, nas-bench-101.md, nas-bench-301.md, multi-objective.md and
speed.md: each page prints what its recorded full-scale values render (the page and the record
are one source), and each block's settings say what its page says.

The cheap scale of every block is regenerated and compared with its record in test_reproduce.py;
here nothing runs, the records and pages are read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nasarena.benchmarks import fbnet
from nasarena.benchmarks.nb101_noisy import PAPER_BEST_MEAN
from nasarena.optimizers.base import REGISTRY, optimizer_class
from nasarena.studies.reproduce import (
    darts214_surrogates,
    hardware_latency,
    markers,
    multiobjective_nb201,
    nb101_table,
    recorded,
    speed_claims,
)
from nasarena.studies.reproduce.catalogue import PAGES

DOCS = Path(__file__).resolve().parents[1] / "docs"


def published(page: str, block: str) -> str:
    return markers.block_text((DOCS / PAGES[page].path).read_text(), block, PAGES[page].path)


def full(page: str, block: str) -> tuple[dict, dict]:
    """The recorded full-scale values and timings of a block."""
    record = recorded.read(page)[block][recorded.FULL]
    return record["values"], record["timings"]


def test_hardware_page_prints_its_recorded_kendall_summary_and_fbnet_fit():
    values, _ = full("hardware", "kendall")
    text = published("hardware", "kendall")
    assert f"| `pixel3` / `raspi4` | {values['pixel3/raspi4']:.2f} |" in text
    assert f"| {values['min']:.2f} |" in text and f"| {values['max']:.2f} |" in text
    assert values["min"] < values["median"] < values["max"] <= 1 and values["pairs"] == 27 * 26 / 2
    values, _ = full("hardware", "fbnet-fit")
    assert hardware_latency.fbnet_table(values, fbnet.load().devices) in published("hardware", "fbnet-fit")


def test_nb101_page_prints_its_recorded_optima_and_says_the_noisy_one_is_imposed():
    values, _ = full("nas-bench-101", "optima")
    text = published("nas-bench-101", "optima")
    assert nb101_table.optima_table(values) in text
    assert values["nb101-noisy/optimum"] <= PAPER_BEST_MEAN < values["nb101-lite/optimum"]
    assert "**imposed**" in text and "not comparable" in text  # the lite row has no paper value beside it
    values, _ = full("nas-bench-101", "op-replacement")
    text = published("nas-bench-101", "op-replacement")
    assert (f"| conv3x3 -> conv1x1 | {values['conv3x3->conv1x1/pairs']:,.0f} | "
            f"{values['conv3x3->conv1x1/accuracy_pp']:+.2f} | -1.16 |") in text
    assert f"{values['timed_cells']:,.0f} timed cells" in text


def test_nb301_page_prints_its_recorded_cross_validation():
    values, timings = full("nas-bench-301", "darts214")
    assert darts214_surrogates.table(values, timings, darts214_surrogates.FULL_STUDY) in published(
        "nas-bench-301", "darts214")
    assert values["architectures"] == 214


def test_the_darts_study_refuses_a_missing_file_and_an_unknown_target(tmp_path):
    from nasarena.errors import DataFileError, InvalidSettingError

    with pytest.raises(DataFileError, match="214 DARTS architectures are not at"):
        darts214_surrogates.read("final_epoch_test_acc", tmp_path / "missing.csv")
    if darts214_surrogates.DATA.is_file():
        with pytest.raises(InvalidSettingError, match="unknown target 'valid'"):
            darts214_surrogates.read("valid")


def test_multiobjective_page_prints_its_recorded_comparison_of_every_optimizer():
    values, timings = full("multi-objective", "nb201-latency")
    assert multiobjective_nb201.table(values, timings) in published("multi-objective", "nb201-latency")
    registered = {name for name in REGISTRY if getattr(optimizer_class(name), "multi_objective", False)}
    assert set(multiobjective_nb201.OPTIMIZERS) == registered, "a new multi-objective optimizer: add it and regenerate"
    for device in multiobjective_nb201.DEVICES:
        assert values[f"{device}/seeds"] == len(multiobjective_nb201.SEEDS)
        assert set(multiobjective_nb201.optimizers_of(values, device)) == registered
        assert {f"{device}/{name}/cpu_ms_per_evaluation" for name in registered} <= set(timings)
    assert not any("cpu" in key for key in values)  # times are timings, never compared values


def test_speed_page_prints_its_recorded_measurements_with_their_baselines():
    values, timings = full("speed", "claims")
    assert speed_claims.table(values, timings, speed_claims.FULL_SCALE) in published("speed", "claims")
    assert set(values) == {key for key in values if key.endswith(("/evaluations", "/rows", "/batch", "/seeds"))}
    for new, reference, bench, _ in speed_claims.FULL_SCALE.pairs:
        assert timings[f"pairs/{bench}/{new}/reference_ms"] > 0 and f"`{reference}`" in published("speed", "claims")


def test_optimizers_page_says_what_the_recorded_speed_claims_measured():
    """docs/optimizers.md states the BANANAS and multi-objective costs in words only; the words
    must hold for the numbers the speed page prints."""
    _, timings = full("speed", "claims")
    text = (DOCS / "optimizers.md").read_text()
    assert "an order of magnitude less" in text
    assert timings["bananas/new_ms"] >= 10 * timings["bananas/warm_ms"]
    names, reference, _, _ = speed_claims.FULL_SCALE.multi_objective
    cost = {name: timings[f"multi_objective/{name}_ms"] for name in (*names, reference)}
    assert "`mo-rs`, `nsga2` and `mo-re` cost less than Optuna's NSGA-II" in text
    assert max(cost["mo-rs"], cost["nsga2"], cost["mo-re"]) < cost[reference]
    assert "`parego-smac`\nand `parego-bananas` cost far more" in text
    assert min(cost["parego-smac"], cost["parego-bananas"]) > 5 * cost[reference]
