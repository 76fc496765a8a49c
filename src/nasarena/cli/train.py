"""``nasarena train``: train one architecture of a space on CIFAR-10 under a benchmark's protocol.

The checkpoint after every epoch goes to ``--out`` and a second call with the same settings
resumes it (a finished run just prints its record); ``record.json`` there holds the records.
``--out`` must be a new or empty folder, or one of this run: a file, a folder of other files or
of another run is refused before training, as are scale knobs the data cannot train (a
num_classes other than CIFAR-10's 10) and networks too large for the device's memory (checked
before the network is built).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ..errors import InvalidSettingError
from .values import parse_assignment, parse_value


def parse_scale(items: list[str]) -> dict:
    """``["stem_channels=16", "auxiliary=false"]`` as knob values (whole numbers or true/false)."""
    knobs: dict[str, object] = {}
    for item in items:
        key, text = parse_assignment(item, "--scale", "stem_channels=16", typed=False, form="KNOB=VALUE")
        value = parse_value(str(text).lower())
        if not (isinstance(value, bool) or (isinstance(value, int) and value >= 0)):
            raise InvalidSettingError(f"--scale {item!r}: a knob's value is a whole number or true/false")
        knobs[key] = value
    return knobs


def train_command(
    space: str = typer.Option(..., help="Space: nb101, nb201 or darts."),
    arch: str = typer.Option(..., help="Architecture in the space's text form: NB101 JSON {\"matrix\": ..., \"ops\": "
                                       "...} or module hash, NB201 cell string, DARTS genotype."),
    epochs: int = typer.Option(None, help="Epoch budget (default: the protocol's; the schedule spans it)."),
    data: Path = typer.Option(None, help="CIFAR-10: a cifar-10-batches-py folder, a JPEG tree or its tarball "
                                         "(default: $NASARENA_CIFAR10, then the shared tarball)."),
    out: Path = typer.Option(None, help="Folder for the per-epoch checkpoint and record.json (resumable)."),
    protocol_name: str = typer.Option(None, "--protocol", help="nb101, nb201, nb301 or quick (default: the space's "
                                                               "benchmark: nb101, nb201, nb301 for darts)."),
    settings: list[str] = typer.Option([], "--set", help="Protocol setting [PROTOCOL.]KEY=VALUE (repeatable), e.g. "
                                                         "learning_rate=0.1 (PROTOCOL. may name the one in use)."),
    scale: list[str] = typer.Option([], "--scale", help="Network scale knob KNOB=VALUE (repeatable): nb101 "
                                                        "stem_channels, stacks, cells_per_stack; nb201 channels, "
                                                        "cells_per_stage; darts channels, layers, auxiliary."),
    image_size: int = typer.Option(32, help="Image side (16: area resize, for quick runs)."),
    subset: int = typer.Option(None, help="Images per class in each split (quick runs)."),
    seed: int = typer.Option(0, help="Seed of the initial weights and of every random stream."),
    device: str = typer.Option("auto", help="auto (cuda, then mps, then cpu), cpu, cuda, cuda:N or mps."),
    deterministic: bool = typer.Option(True, help="Deterministic kernels on GPUs (CPUs always are)."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole record as JSON."),
) -> None:
    """Train an architecture for real and print per-epoch accuracy, loss and speed."""
    from ..training import build_network, load_cifar10
    from ..training.device import pick_device
    from ..training.loop import seeded_network, train
    from ..training.preflight import check_before_building
    from ..training.protocols import SPACE_PROTOCOLS, protocol
    from .progress import progress_wanted, spinner
    from .vocabulary import own_settings

    base = protocol(protocol_name or SPACE_PROTOCOLS.get(space, "nb101"))
    chosen = base.with_settings(own_settings(settings, base.name, "protocol", "learning_rate=0.1"))
    knobs = parse_scale(scale)
    check_before_building(space, arch, knobs, chosen, pick_device(device))
    network = seeded_network(lambda: build_network(space, arch, **knobs), seed)
    with spinner("reading CIFAR-10"):
        dataset = load_cifar10(data, image_size=image_size, subset=subset)
    record = train(network, dataset, chosen, seed=seed, epochs=epochs, out_dir=out, device=device,
                   deterministic=deterministic, progress=progress_wanted())
    if as_json:
        typer.echo(json.dumps(record.to_dict(), indent=1))
        return
    typer.echo(f"{space} network {dict(network.scale)}: {record.parameters:,} parameters, {record.flops:,} "
               f"multiply-adds per {dataset.image_size}x{dataset.image_size} image; protocol {chosen.name} "
               f"({record.budget} epochs), seed {seed}, device {record.device}")
    sizes = [len(split.labels) for split in (dataset.train, dataset.valid, dataset.test)]
    typer.echo(f"data {dataset.source}: {' / '.join(f'{size:,}' for size in sizes)} train / valid / test images"
               f"{f' (subset={subset} per class)' if subset is not None else ''}")
    typer.echo(f"{'epoch':>5} {'lr':>9} {'train acc':>9} {'valid acc':>9} {'test acc':>9} {'train loss':>10} "
               f"{'seconds':>8} {'images/s':>9}")
    for e in record.epochs:
        typer.echo(f"{e.epoch:>5} {e.learning_rate:>9.5f} {e.train_accuracy:>9.4f} {e.valid_accuracy:>9.4f} "
                   f"{e.test_accuracy:>9.4f} {e.train_loss:>10.4f} {e.wall_seconds:>8.1f} "
                   f"{e.images_per_second:>9.0f}")
    where = f"; records in {out / 'record.json'}" if out else ""
    typer.echo(f"training time {record.training_seconds:.1f} s{where}")
