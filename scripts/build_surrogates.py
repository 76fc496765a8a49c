"""Fit nasarena's built-in surrogate benchmarks from its embedded real data.

Run: .venv/bin/python scripts/build_surrogates.py [--tabulate-only] [NAME ...]   (default: all of them)
Needs the [surrogates] extra. Writes ``src/nasarena/data/surrogates/NAME.nsa`` and records its
sha256, size and provenance in that folder's manifest; prints the validation metrics, the file
size and the time taken. The recipes (data, model, settings) live in ``nasarena.surrogates.builtin``.

``--tabulate-only`` refits nothing: it loads the shipped artefact, adds the prediction table of
its own models (recipes with ``tabulate=True``; see ``fitting.add_prediction_table``) and
recomputes its validations and optimum from the table, so the models stay byte-identical while
the artefact becomes what a rebuild from the recipe records.
"""

from __future__ import annotations

import sys
import time

from nasarena.benchmarks.surrogate import ARTIFACT_SUFFIX, BUILTIN_DIRECTORY
from nasarena.io.packaged import data_dir, record_in_manifest
from nasarena.studies.builtin_surrogates import training_data
from nasarena.surrogates.artifact import load, save
from nasarena.surrogates.builtin import BUILTINS
from nasarena.surrogates.fitting import add_prediction_table, fit_surrogate


def build(name: str, tabulate_only: bool = False) -> None:
    recipe = BUILTINS[name]
    started = time.perf_counter()
    data, held_out = training_data(name)
    if tabulate_only:
        if not recipe.settings.tabulate:
            print(f"{name}: its recipe does not tabulate; nothing to do")
            return
        shipped = load(data_dir() / BUILTIN_DIRECTORY / (name + ARTIFACT_SUFFIX))
        if shipped.prediction_table is not None:
            print(f"{name}: already tabulated; nothing to do")
            return
        artifact = add_prediction_table(shipped, data, held_out)
    else:
        artifact = fit_surrogate(data, recipe.space, name, recipe.settings, held_out, dataset=recipe.dataset,
                                 source_benchmark=recipe.source_benchmark)
    directory = data_dir() / BUILTIN_DIRECTORY
    directory.mkdir(exist_ok=True)
    path = save(artifact, directory / (name + ARTIFACT_SUFFIX))
    content = path.read_bytes()
    record_in_manifest(path.name, content, description=recipe.summary,
                       provenance=(f"fitted by scripts/build_surrogates.py (nasarena.surrogates.builtin) from "
                                   f"{recipe.source_benchmark}: {data.description}"
                                   + _table_note(artifact, tabulate_only)),
                       directory=directory)
    print(f"{name}: {len(content) / 1e6:.2f} MB in {time.perf_counter() - started:.0f} s; optimum "
          f"{artifact.optimum.value:.5f} over {artifact.optimum.over}")
    for validation in artifact.validations:
        print("  " + validation.to_text())


def _table_note(artifact, tabulate_only: bool) -> str:
    if artifact.prediction_table is None:
        return ""
    return "; every architecture's prediction tabulated" + (" from the same models (--tabulate-only)"
                                                            if tabulate_only else "")


if __name__ == "__main__":
    arguments = sys.argv[1:]
    tabulate_only = "--tabulate-only" in arguments
    names = [a for a in arguments if a != "--tabulate-only"] or list(BUILTINS)
    unknown = [n for n in names if n not in BUILTINS]
    if unknown:
        sys.exit(f"unknown built-in surrogate(s) {', '.join(unknown)}; known: {', '.join(BUILTINS)}")
    for name in names:
        build(name, tabulate_only)
