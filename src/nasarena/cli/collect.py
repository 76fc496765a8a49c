"""``nasarena collect``: train architectures that random search and optimizers propose, for surrogates.

The output is the file ``nasarena surrogate fit`` reads; a second call with the same settings
resumes (every trained architecture is in the live benchmark's store) or extends it; a smaller
``--n`` is refused (rows already collected are never dropped), and so is a second collection
with other settings into a file another one is writing (see :mod:`nasarena.studies.collection`).
"""

from __future__ import annotations

from pathlib import Path

import typer

from . import vocabulary
from .train import parse_scale


def collect_command(
    space: str = typer.Option(..., help="Space: nb101, nb201 or darts."),
    strategies: str = typer.Option("rs,re,bananas", help="Strategies, comma-separated: rs (random samples) and "
                                                          "single-fidelity optimizers (see `nasarena optimizers`)."),
    old_strategy: list[str] = typer.Option([], "--strategy", hidden=True, help="Old name of --strategies."),
    n: int = typer.Option(..., help="Architectures to train, shared evenly over the strategies (an existing "
                                    "--out's n may grow, never shrink)."),
    out: Path = typer.Option(..., help="Parquet file to write (the columns `nasarena surrogate fit` reads), in a "
                                       "writable folder."),
    trajectory: int = typer.Option(100, help="Evaluations per optimizer run (longer shares run as several)."),
    epochs: int = typer.Option(None, help="Epochs each architecture trains (default: the protocol's)."),
    data: Path = typer.Option(None, help="CIFAR-10 folder or tarball (default: $NASARENA_CIFAR10, then the shared "
                                         "tarball)."),
    store: Path = typer.Option(None, help="The live benchmark's result store (default: ~/.cache/nasarena/live)."),
    protocol_name: str = typer.Option(None, "--protocol", help="nb101, nb201, nb301 or quick (default: the "
                                                               "space's)."),
    settings: list[str] = typer.Option([], "--set", help="Protocol setting [PROTOCOL.]KEY=VALUE (repeatable), e.g. "
                                                         "batch_size=64 (PROTOCOL. may name the one in use)."),
    scale: list[str] = typer.Option([], "--scale", help="Network scale knob KNOB=VALUE (repeatable), e.g. "
                                                        "channels=16, layers=8 for NB301's network."),
    image_size: int = typer.Option(32, help="Image side (16: area resize, for quick runs)."),
    subset: int = typer.Option(None, help="Images per class in each split (quick runs)."),
    seed: int = typer.Option(0, help="Seed of the strategies' streams."),
    training_seed: int = typer.Option(0, help="Seed of every architecture's training."),
    device: str = typer.Option("auto", help="auto, cpu, cuda, cuda:N or mps."),
    jobs: int = typer.Option(1, help="Parallel processes, or Ray tasks (0: all cores)."),
    backend: str = typer.Option("process", help="process or ray (a GPU per task where Ray sees GPUs)."),
) -> None:
    """Collect surrogate training data: random samples plus optimizer trajectories, trained for real."""
    from ..studies.collection import collect
    from ..training.protocols import SPACE_PROTOCOLS

    names = vocabulary.split(vocabulary.plural(strategies, old_strategy, "--strategy", "--strategies", "strategies",
                                                     "rs,re"))
    processes = vocabulary.processes(jobs, None)
    protocol_settings = vocabulary.own_settings(settings, protocol_name or SPACE_PROTOCOLS.get(space, space),
                                                "protocol", "batch_size=64")
    options = {"space": space, "data": data, "store": store, "protocol": protocol_name,
               "settings": tuple(protocol_settings),
               "image_size": image_size, "subset": subset, "seed": training_seed, "device": device,
               "fidelities": None if epochs is None else (epochs,), **parse_scale(scale)}

    def report(stream, rows: int) -> None:
        typer.echo(f"{stream.name}: {stream.count} evaluations done; {rows:,} architectures in {out}", err=True)

    frame = collect({k: v for k, v in options.items() if v is not None}, names, n, out, seed=seed,
                    trajectory=trajectory, jobs=processes, backend=backend, on_stream=report)
    by_source = frame.groupby("source")["valid_accuracy"].agg(["count", "mean", "max"])
    for source, row in by_source.iterrows():
        typer.echo(f"{source:10s} {int(row['count']):6d} architectures, validation accuracy mean {row['mean']:.4f}, "
                   f"best {row['max']:.4f}")
    typer.echo(f"{len(frame):,} architectures -> {out}; fit a surrogate: nasarena surrogate fit {out} --space {space} "
               f"--name {space}-xgb-v1.0 --out {space}.nasarena")
