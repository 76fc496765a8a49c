"""``nasarena query BENCHMARK ARCH``: one architecture's metrics, like ``benchmark.query`` in Python."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ..analysis.regret_basis import MODELLED, regret_basis
from ..errors import InvalidArchitectureError, InvalidSettingError
from .run_arguments import MAX_SEED, check_benchmarks


def parse_architecture(text: str, space_name: str):
    """A row number (digits), an NB101 cell as JSON ``{"matrix": ..., "ops": ...}``, or the text
    form the benchmark takes (NB101 module hash, NB201 cell string, DARTS/FBNet genotype)."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if text.startswith("{"):
        try:
            entry = json.loads(text)
            if space_name != "nb101" or not isinstance(entry, dict):
                raise ValueError("a JSON architecture is an NB101 cell {\"matrix\": [[...]], \"ops\": [...]}")
            from ..spaces.nb101 import Cell

            missing = [key for key in ("matrix", "ops") if key not in entry]
            if missing:
                raise ValueError(f"no {' and no '.join(map(repr, missing))} key")
            return Cell(entry["matrix"], entry["ops"])
        except (ValueError, TypeError) as error:
            raise InvalidArchitectureError(f"bad architecture {text!r}: {error}") from None
    return text


def query_command(
    benchmark: str = typer.Argument(..., help="Benchmark name (see `nasarena benchmarks`)."),
    arch: str = typer.Argument(..., help="Architecture: a row number, its text form (NB101 module hash, NB201 cell "
                                         "string such as '|nor_conv_3x3~0|+|...|', a genotype) or, for NB101, JSON "
                                         "{\"matrix\": [[...]], \"ops\": [...]}."),
    fidelity: int = typer.Option(None, help="Epochs (default: the highest)."),
    path: Path = typer.Option(None, help="Store directory (nb101) or artefact file (surrogate)."),
    seed: int = typer.Option(0, help="Seed of the trial drawn (benchmarks with several trials) and of modelled noise."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
) -> None:
    """Print one architecture's metrics at one fidelity: accuracies, cost, parameters, which are modelled."""
    import numpy as np

    from ..benchmarks import benchmark as load_benchmark
    from .progress import spinner

    if not 0 <= seed <= MAX_SEED:
        raise InvalidSettingError(f"--seed {seed} is outside 0..2^63-1")
    options = check_benchmarks([benchmark], path)  # a known name, --path where (and only where) one is needed
    with spinner(f"loading {benchmark}"):
        bench = load_benchmark(benchmark, **options)
    if fidelity is not None and fidelity not in bench.fidelities:
        raise InvalidSettingError(f"--fidelity {fidelity}: {bench.name} has fidelities (epochs) "
                                  f"{', '.join(map(str, bench.fidelities))}")
    architecture = parse_architecture(arch, getattr(bench.space, "name", ""))
    size = bench.describe().num_architectures
    if isinstance(architecture, int) and not architecture < size:
        raise InvalidArchitectureError(f"row {architecture} is outside {bench.name}'s rows 0..{size - 1:,}")
    try:
        result = bench.query(architecture, fidelity, rng=np.random.default_rng(seed))
        final = float(bench.final_test_accuracy(architecture))
    except (ValueError, TypeError, LookupError) as error:  # the benchmark's own word on a bad architecture
        raise InvalidArchitectureError(f"{bench.name} cannot query {arch!r}: {error}") from None
    values = {**result.to_dict(), "final_accuracy": final}
    if as_json:
        typer.echo(json.dumps({"benchmark": bench.name, "architecture": arch, **values}))
        return
    typer.echo(f"{bench.name}, architecture {arch}")
    for name, value in values.items():
        typer.echo(f"  {name:22s} {'n/a (not in the data)' if value is None else value}")
    basis = regret_basis(bench.name)
    how = "noise-free" if basis == MODELLED else "averaged over trials"
    typer.echo(f"  (accuracies are fractions; final_accuracy is what regret is measured on: the {basis} at the highest "
               f"fidelity, {how})")
