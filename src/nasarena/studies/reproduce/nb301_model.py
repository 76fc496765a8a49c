"""``docs/reproduce/nas-bench-301.md``'s validation of the ``nb301`` benchmark
(:mod:`nasarena.studies.nb301_validation`): rank agreement with the 214 real DARTS
architectures, the shape of its learning curves, its (absent) noise and its query speed.

Full: speed over 10,000 drawn architectures (seed 0), curves of the first 1,000, the noise check
on 200, the bootstrap with seed 0. Cheap: 500 / 100 / 20. Speeds are timings (recorded, never
compared); every other value is deterministic.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...benchmarks.nb301_yahpo import MODEL_FILE, NB301Benchmark
from .. import nb301_validation as check
from .common import data_key
from .pages import Generated
from .recorded import CHEAP

SEED = 0
#: (architectures timed, curves drawn, noise checked) per scale
SIZES = {"full": (10_000, 1_000, 200), CHEAP: (500, 100, 20)}
TARGET_NAMES = {"final_epoch_test_acc": "after epoch 600", "best_test_acc": "best of the 600 epochs",
                "test_acc_epoch450": "after epoch 450", "test_acc_epoch300": "after epoch 300"}


def generate(scale: str, results: Path, jobs: int) -> Generated:
    """The model checks at ``scale`` (``results`` and ``jobs`` unused: nothing is run)."""
    timed, curves, noise = SIZES[scale]
    benchmark = NB301Benchmark(threads=1)
    archs = check.drawn(benchmark, timed, SEED)
    values = {f"rank/{key}": value for key, value in check.rank_agreement(benchmark, SEED).items()}
    values.update({f"curves/{key}": value for key, value in check.curve_shape(benchmark, archs[:curves]).items()})
    values["noise/bit_identical"] = float(check.deterministic(benchmark, archs[:noise]))
    values["optimum"] = benchmark.optimum()
    values["best_drawn"] = float(np.max(benchmark.query_batch(archs).valid_accuracy))
    values["drawn"] = float(timed)
    timings = check.speed(benchmark, archs)
    return Generated(markdown(values, timings), values, (data_key(MODEL_FILE),), (SEED,), timings)


def markdown(values: dict[str, float], timings: dict[str, float]) -> str:
    rank = lambda key: values[f"rank/{key}"]  # noqa: E731
    lines = [f"Rank agreement with the {rank('architectures'):.0f} real DARTS architectures (the model's validation "
             "accuracy at epoch 98 against their CIFAR-10 test accuracy; their protocol differs, see above):", "",
             "| their test accuracy | Kendall tau | Spearman |", "|---|---:|---:|"]
    lines += [f"| {name} | {rank(f'{target}/kendall'):.3f} | {rank(f'{target}/spearman'):.3f} |"
              for target, name in TARGET_NAMES.items()]
    lines += ["", f"Kendall tau after epoch 600: 95 % bootstrap interval {rank('bootstrap_low'):.2f}-"
                  f"{rank('bootstrap_high'):.2f} ({check.BOOTSTRAP:,} resamples, seed {SEED}). Control: the edge "
                  f"columns fed in the encoding file's alphabetical key order give tau {rank('control_kendall'):.3f}.",
              ""]
    curve = lambda key: values[f"curves/{key}"]  # noqa: E731
    lines += [f"Learning curves of {curve('curves'):,.0f} drawn architectures, mean validation accuracy by epoch:", "",
              "| epoch | " + " | ".join(str(e) for e in check.SHOWN_EPOCHS) + " |",
              "|---|" + "---:|" * len(check.SHOWN_EPOCHS),
              "| accuracy | " + " | ".join(f"{curve(f'mean_at_{e}'):.3f}" for e in check.SHOWN_EPOCHS) + " |", ""]
    for name, unit, form in (("valid", "validation accuracy", ".4f"), ("runtime", "cumulative runtime (s)", ".1f")):
        text = f"{unit}: never decreases in {100 * curve(f'{name}/monotone_share'):.1f} % of the curves"
        if curve(f"{name}/largest_drop") > 0:
            text += (f"; the largest drop {curve(f'{name}/largest_drop'):{form}}, the earliest at epoch "
                     f"{curve(f'{name}/first_drop_epoch'):.0f}")
        lines.append(f"- {text}.")
    lines.append("- Spearman of each Hyperband rung (eta 3) with epoch 98: "
                 + ", ".join(f"epoch {e} {curve(f'rung_{e}/spearman'):.2f}" for e in check.RUNGS) + ".")
    lines.append("- noise: repeated and batched queries are bit-identical" if values["noise/bit_identical"] else
                 "- noise: repeated or batched queries differ")
    lines.append(f"- optimum (optimum.json, found by local searches): {values['optimum']:.4f}; the best of the "
                 f"{values['drawn']:,.0f} drawn architectures: {values['best_drawn']:.4f}.")
    lines += ["", f"Speed on one thread, {values['drawn']:,.0f} architectures, encoding included: `query_batch` "
                  f"{timings['batch']:,.0f} queries/s against {timings['plain']:,.0f}/s for one plain onnxruntime call "
                  f"per architecture ({timings['batch_over_plain']:.1f}x), `query` per architecture "
                  f"{timings['single']:,.0f}/s."]
    return "\n".join(lines)
