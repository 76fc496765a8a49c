"""Fit nasarena's built-in surrogate benchmarks from its embedded real data.

Run: .venv/bin/python scripts/build_surrogates.py [NAME ...]   (default: all of them)
Needs the [surrogates] extra. Writes ``src/nasarena/data/surrogates/NAME.nsa`` and records its
sha256, size and provenance in that folder's manifest; prints the validation metrics, the file
size and the time taken. The recipes (data, model, settings) live in ``nasarena.surrogates.builtin``.
"""

from __future__ import annotations

import sys
import time

from nasarena.benchmarks.surrogate import ARTIFACT_SUFFIX, BUILTIN_DIRECTORY
from nasarena.io.packaged import data_dir, record_in_manifest
from nasarena.surrogates.artifact import save
from nasarena.surrogates.builtin import BUILTINS
from nasarena.surrogates.fitting import fit_surrogate


def build(name: str) -> None:
    recipe = BUILTINS[name]
    started = time.perf_counter()
    data, held_out = recipe.data()
    artifact = fit_surrogate(data, recipe.space, name, recipe.settings, held_out, dataset=recipe.dataset,
                             source_benchmark=recipe.source_benchmark)
    directory = data_dir() / BUILTIN_DIRECTORY
    directory.mkdir(exist_ok=True)
    path = save(artifact, directory / (name + ARTIFACT_SUFFIX))
    content = path.read_bytes()
    record_in_manifest(path.name, content, description=recipe.summary,
                       provenance=(f"fitted by scripts/build_surrogates.py (nasarena.surrogates.builtin) from "
                                   f"{recipe.source_benchmark}: {data.description}"),
                       directory=directory)
    print(f"{name}: {len(content) / 1e6:.2f} MB in {time.perf_counter() - started:.0f} s; optimum "
          f"{artifact.optimum.value:.5f} over {artifact.optimum.over}")
    for validation in artifact.validations:
        print("  " + validation.to_text())


if __name__ == "__main__":
    names = sys.argv[1:] or list(BUILTINS)
    unknown = [n for n in names if n not in BUILTINS]
    if unknown:
        sys.exit(f"unknown built-in surrogate(s) {', '.join(unknown)}; known: {', '.join(BUILTINS)}")
    for name in names:
        build(name)
