"""``nasarena query BENCHMARK ARCH``: one architecture's metrics, like ``benchmark.query`` in Python.

``--device D`` adds the architecture's latency on that device setting; ``nasarena query
BENCHMARK --best-under L --device D`` instead answers the constrained question exactly from the
table: the most accurate architecture whose latency on D is at most L ms
(:func:`nasarena.benchmarks.objectives.best_under`).

The text and the ``--json`` output flag the same values as modelled: the result's own
``modelled`` fields, ``final_accuracy`` on a surrogate, and the latency a benchmark serves as a
stand-in (nb201-cifar100 and -imagenet16-120 serve the CIFAR-10 network's), with the reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ..analysis.regret_basis import MODELLED, regret_basis
from ..errors import InvalidArchitectureError, InvalidSettingError
from .run_arguments import MAX_SEED, check_benchmarks


def parse_architecture(text: str, space):
    """A row number (digits), a JSON object for a space with ``from_mapping``
    (:mod:`nasarena.spaces.protocol`; an NB101 cell ``{"matrix": ..., "ops": ...}``), or the text
    form the benchmark takes (NB101 module hash, NB201 cell string, DARTS/FBNet genotype)."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    if text.startswith("{"):
        try:
            entry = json.loads(text)
            from_mapping = getattr(space, "from_mapping", None)
            if from_mapping is None or not isinstance(entry, dict):
                raise ValueError("a JSON architecture is an NB101 cell {\"matrix\": [[...]], \"ops\": [...]}")
            return from_mapping(entry)
        except (ValueError, TypeError) as error:
            raise InvalidArchitectureError(f"bad architecture {text!r}: {error}") from None
    return text


def query_command(
    benchmark: str = typer.Argument(..., help="Benchmark name (see `nasarena benchmarks`)."),
    arch: str = typer.Argument(None, help="Architecture: a row number, its text form (NB101 module hash, NB201 cell "
                                          "string such as '|nor_conv_3x3~0|+|...|', a genotype) or, for NB101, JSON "
                                          "{\"matrix\": [[...]], \"ops\": [...]}. Leave out with --best-under."),
    fidelity: int = typer.Option(None, help="Epochs (default: the highest)."),
    path: Path = typer.Option(None, help="Store directory (nb101) or artefact file (surrogate)."),
    seed: int = typer.Option(0, help="Seed of the trial drawn (benchmarks with several trials) and of modelled noise."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
    device: str = typer.Option(None, help="Device setting (e.g. pixel3, titanx_32; NB201 benchmarks): also print "
                                          "the latency on it; the device of --best-under."),
    best_under: float = typer.Option(None, "--best-under", help="Latency bound in ms: print the most accurate "
                                                                "architecture whose latency on --device is at most it "
                                                                "(exact, from the table) instead of querying ARCH."),
) -> None:
    """Print one architecture's metrics at one fidelity: accuracies, cost, parameters, which are modelled;
    or, with --best-under, the best architecture under a latency bound on a device."""
    import numpy as np

    from ..benchmarks import benchmark as load_benchmark
    from ..benchmarks.objectives import Objective, check_objectives
    from .progress import spinner

    if not 0 <= seed <= MAX_SEED:
        raise InvalidSettingError(f"--seed {seed} is outside 0..2^63-1")
    if best_under is not None and arch is not None:
        raise InvalidSettingError("--best-under answers from the whole table: give no ARCH with it")
    if best_under is None and arch is None:
        raise InvalidSettingError("missing ARCH: name an architecture to query, or ask --best-under L --device D")
    if best_under is not None and device is None:
        raise InvalidSettingError("--best-under needs --device: the device setting the latency bound is for")
    options = check_benchmarks([benchmark], path)  # a known name, --path where (and only where) one is needed
    with spinner(f"loading {benchmark}"):
        bench = load_benchmark(benchmark, **options)
    if device is not None:
        check_objectives(bench, (Objective("latency", device),))
    if best_under is not None:
        _print_best_under(bench, device, best_under, fidelity, as_json)
        return
    if fidelity is not None and fidelity not in bench.fidelities:
        raise InvalidSettingError(f"--fidelity {fidelity}: {bench.name} has fidelities (epochs) "
                                  f"{', '.join(map(str, bench.fidelities))}")
    architecture = parse_architecture(arch, getattr(bench, "space", None))
    size = bench.describe().num_architectures
    if isinstance(architecture, int) and not architecture < size:
        raise InvalidArchitectureError(f"row {architecture} is outside {bench.name}'s rows 0..{size - 1:,}")
    try:
        result = bench.query(architecture, fidelity, rng=np.random.default_rng(seed))
        final = float(bench.final_test_accuracy(architecture))
    except (ValueError, TypeError, LookupError) as error:  # the benchmark's own word on a bad architecture
        raise InvalidArchitectureError(f"{bench.name} cannot query {arch!r}: {error}") from None
    values = {**result.to_dict(), "final_accuracy": final}
    basis = regret_basis(bench.name)
    modelled = set(result.modelled) | ({"final_accuracy"} if basis == MODELLED else set())
    latency_note = None
    if device is not None:
        latency = f"latency_ms_{device}"
        values[latency] = bench.latency(architecture, device)
        latency_note = _modelled_latency_note(bench)
        if latency_note is not None:
            modelled.add(latency)
    values["modelled"] = sorted(modelled)  # one list for the text and the JSON, so neither says less
    if as_json:  # with what the text's closing lines say: the regret basis, why latency is modelled
        notes = {"final_accuracy_basis": basis}
        if device is not None:
            notes["latency_modelled"] = latency_note is not None
        if latency_note is not None:
            notes["latency_note"] = latency_note
        typer.echo(json.dumps({"benchmark": bench.name, "architecture": arch, **values, **notes}))
        return
    typer.echo(f"{bench.name}, architecture {arch}")
    for name, value in values.items():
        typer.echo(f"  {name:22s} {'n/a (not in the data)' if value is None else value}")
    how = "noise-free" if basis == MODELLED else "averaged over trials"
    typer.echo(f"  (accuracies are fractions; final_accuracy is what regret is measured on: the {basis} at the highest "
               f"fidelity, {how})")
    if latency_note is not None:
        typer.echo(f"  (latency modelled: {latency_note})")


def _modelled_latency_note(bench) -> str | None:
    """Why ``bench`` serves a modelled latency (its latency table's note: nb201-cifar100 and
    -imagenet16-120 serve the CIFAR-10 network's); None where latency is measured or absent."""
    if "latency" not in getattr(bench, "modelled_objectives", ()):
        return None
    return bench.latency_table.note


def _print_best_under(bench, device: str, bound: float, fidelity: int | None, as_json: bool) -> None:
    """The answer of ``--best-under``: the most accurate architecture within ``bound`` ms on ``device``."""
    from ..benchmarks.objectives import best_under

    if fidelity is not None:
        raise InvalidSettingError("--best-under ranks by the final accuracy at the highest fidelity: give no "
                                  "--fidelity with it")
    best = best_under(bench, device, bound)
    latency_note = _modelled_latency_note(bench)
    text = bench.space.to_text(best.arch)
    values = {"benchmark": bench.name, "device": device, "max_latency_ms": best.max_latency_ms,
              "architecture": text, "row": best.row, "metric": best.metric, "accuracy": best.accuracy,
              "latency_ms": best.latency_ms, "feasible_architectures": best.feasible,
              "latency_modelled": latency_note is not None}
    if as_json:
        typer.echo(json.dumps(values if latency_note is None else {**values, "latency_note": latency_note}))
        return
    typer.echo(f"{bench.name}: the best of {best.feasible:,} architectures within {bound:g} ms on {device}")
    typer.echo(f"  architecture {text} (row {best.row})")
    typer.echo(f"  {best.metric} {best.accuracy:.4f} (mean at the highest fidelity); latency {best.latency_ms:.4g} ms")
    if latency_note is not None:
        typer.echo(f"  (latency modelled: {latency_note})")
