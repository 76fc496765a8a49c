"""``docs/reproduce/nas-bench-1shot1.md``'s one-shot optimizers table (Sec. 5.1): what the six
one-shot optimizers cost on a CPU (:mod:`nasarena.studies.oneshot_speed`; ``bench/bench_oneshot.py``
prints the same).

Full scale: every optimizer on ``nb1shot1-3``, seed 0, torch on one thread: a quick search
(:func:`~nasarena.oneshot.quick_settings`, 2 epochs on CIFAR-10) for its final test regret in
``nb101-lite`` and its seconds per epoch, and the paper configuration's epoch time extrapolated
from 3 timed steps after a warm-up. Cheap scale: the same plans, and Random-WS's epoch
extrapolated from 1 timed step at the quick configuration on seeded noise (no CIFAR-10: a few
seconds, most of them importing torch and loading the space's table). As every block's runs, the
quick searches resume in the results folder: a search found complete there is read back, its
regret and epoch times included.

Compared values (the same on every machine): what the epochs consist of, from the settings alone
(batch sizes, steps and end-of-epoch forward passes per epoch, images, channels, epochs, the
screening's samples), the number of timed steps, and the optimum of space 3 in ``nb101-lite`` that
the regrets are measured against (a table value).

Recorded but never compared (``Generated.timings``): every time, the load average, and the quick
regrets. A quick regret is the NB101 test accuracy of the architecture that a search trained in
float32 on this CPU returns, and that training is not bit-reproducible across CPUs: torch and
oneDNN pick their kernels by the CPU (AVX-512, AVX2 or none), which sum in other orders, so the
weights differ by rounding from the first step on, and a close argmax (DARTS, PC-DARTS, GDAS) or
a close one-shot screening (Random-WS, ENAS) can then return another cell. Measured: the quick
searches run again on the same machine with torch's and oneDNN's AVX-512 kernels turned off
(``ATEN_CPU_CAPABILITY=default ONEDNN_MAX_CPU_ISA=AVX2``) returned other architectures for every
optimizer and another final regret for five of the six (Random-WS 0.0212 -> 0.0981, DARTS-2nd
0.1108 -> 0.1219; only DARTS' stayed, 0.0137), while rerunning them with the default kernels
reproduced every regret bit for bit. So the page prints the regrets as measured on the machine
named under the table, and the test suite does not compare them.
"""

from __future__ import annotations

import os
from pathlib import Path

from ...oneshot import OPTIMIZERS, SearchSettings, paper_settings, quick_settings
from ...training.threads import one_thread
from ..oneshot_speed import BENCHMARK, SCREENING, SPACE, epoch_plan, finalists, quick_run, time_epoch
from .pages import Generated
from .recorded import CHEAP, FULL

SEED = 0
#: The configurations by name: the paper's (Appendix C) and the CPU one (``--quick``).
CONFIGURATIONS = {"quick": quick_settings, "paper": paper_settings}
#: Per scale: the configuration whose epoch is timed, its optimizers, and the timed steps of each.
TIMED = {FULL: ("paper", tuple(OPTIMIZERS), 3), CHEAP: ("quick", ("random-ws",), 1)}
#: The unit of an epoch's time in the table, per timed configuration.
UNITS = {"paper": ("h", 3600.0), "quick": ("s", 1.0)}


def settings(configuration: str, optimizer: str) -> SearchSettings:
    """``optimizer``'s settings at ``configuration`` on :data:`SPACE`, looked up in :data:`BENCHMARK`."""
    return CONFIGURATIONS[configuration](optimizer, SPACE, benchmark=BENCHMARK)


def plans() -> dict[str, float]:
    """The compared values that follow from the settings alone (see the module docstring)."""
    values: dict[str, float] = {}
    for configuration in CONFIGURATIONS:
        first = settings(configuration, "darts")
        plan = epoch_plan(first)
        values.update({f"{configuration}/channels": first.channels, f"{configuration}/image_size": first.image_size,
                       f"{configuration}/epochs": first.epochs, f"{configuration}/train_images": plan.train_images,
                       f"{configuration}/valid_images": plan.valid_images})
        if first.subset is not None:
            values[f"{configuration}/subset"] = first.subset
        for optimizer in OPTIMIZERS:
            chosen = settings(configuration, optimizer)
            plan = epoch_plan(chosen)
            key = f"{configuration}/{optimizer}"
            values.update({f"{key}/batch": plan.batch_size, f"{key}/steps": plan.steps,
                           f"{key}/valid_batches": plan.valid_batches, f"{key}/forwards": plan.forwards})
            if optimizer in SCREENING:
                values.update({f"{key}/samples": chosen.samples, f"{key}/screen_batches": chosen.screen_batches,
                               f"{key}/finalists": finalists(chosen)})
    return {key: float(value) for key, value in values.items()}


def measure(scale: str, results: Path) -> tuple[dict[str, float], dict[str, float], tuple[str, ...]]:
    """(values, timings, configurations) at ``scale``; quick searches run (or resume) in ``results``."""
    from ...oneshot.lookup import Nb101Lookup

    load = os.getloadavg()[0]
    values = plans()
    timings: dict[str, float] = {}
    ran = []
    configuration, timed, steps = TIMED[scale]
    values["timed_steps"] = float(steps)
    with one_thread():
        lookup = Nb101Lookup(SPACE, BENCHMARK)
        values["optimum"] = lookup.optimum
        if scale == FULL:
            from ...training.data import load_cifar10

            quick = settings("quick", "darts")
            data = load_cifar10(image_size=quick.image_size, subset=quick.subset)
            for optimizer in OPTIMIZERS:
                chosen = settings("quick", optimizer)
                run = quick_run(chosen, data, lookup, SEED, results / optimizer / f"seed-{SEED}")
                timings[f"search/{optimizer}/regret"] = run.test_regret
                timings[f"search/{optimizer}/seconds_per_epoch"] = run.seconds_per_epoch
                ran.append(f"{SPACE}/{optimizer}/quick search/{chosen.fingerprint()[:16]}")
        for optimizer in timed:
            chosen = settings(configuration, optimizer)
            epoch = time_epoch(chosen, lookup, steps, SEED)
            key = f"timed/{optimizer}"
            timings.update({f"{key}/seconds_per_step": epoch.seconds_per_step,
                            f"{key}/seconds_per_forward": epoch.seconds_per_forward,
                            f"{key}/seconds_per_epoch": epoch.seconds})
            ran.append(f"{SPACE}/{optimizer}/{configuration} timed {steps} steps/{chosen.fingerprint()[:16]}")
    timings.update({"load_average/start": load, "load_average/end": os.getloadavg()[0],
                    "cores": float(os.cpu_count()), "threads": 1.0})
    return values, timings, tuple(ran)


def generate(scale: str, results: Path, jobs: int) -> Generated:
    """The table at ``scale`` (``jobs`` unused: the measurement is one process on one thread)."""
    values, timings, ran = measure(scale, results)
    return Generated(markdown(values, timings, TIMED[scale][0]), values, ran, (SEED,), timings)


def _count(number: float, thing: str) -> str:
    return f"{number:.0f} {thing}{'' if number == 1 else 's'}"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def markdown(values: dict[str, float], timings: dict[str, float], configuration: str) -> str:
    """The paragraph saying what ran, the table (``configuration``: the one whose epoch was timed;
    ``-`` where a scale did not measure) and the range of the extrapolated epochs."""
    q = lambda key: values[f"quick/{key}"]  # noqa: E731
    p = lambda key: values[f"paper/{key}"]  # noqa: E731
    unit, per = UNITS[configuration]
    lines = [
        f"Seed {SEED} on {SPACE}, torch on one thread, load average {timings['load_average/start']:.1f} at the start "
        f"and {timings['load_average/end']:.1f} at the end on {timings['cores']:.0f} cores (the machine is named "
        f"below). Quick: {q('channels'):.0f} channels, {q('image_size'):.0f} x {q('image_size'):.0f} images, "
        f"{q('subset'):.0f} images per class ({q('train_images'):,.0f} training images: {q('darts/steps'):.0f} steps "
        f"of batch {q('darts/batch'):.0f} an epoch), {q('epochs'):.0f} epochs; its regret is the last epoch's "
        f"architecture's test regret in {BENCHMARK} (one real draw per cell, not the page's default nb101-noisy) "
        f"against the space's best cell, {values['optimum']:.4f}. Paper configuration: {p('channels'):.0f} "
        f"channels, {p('image_size'):.0f} x {p('image_size'):.0f} images, {p('train_images'):,.0f} training and "
        f"{p('valid_images'):,.0f} validation images, batch {p('darts/batch'):.0f} (Random-WS "
        f"{p('random-ws/batch'):.0f}), {p('epochs'):.0f} epochs. An epoch's time is extrapolated: "
        f"{_count(values['timed_steps'], 'timed training step')} after a warm-up, times the epoch's steps, plus the "
        f"end-of-epoch forward passes, each as long as a timed one: the one-shot validation pass over the "
        f"validation split, and the choice of the architecture (Random-WS: {p('random-ws/samples'):.0f} samples on "
        f"{p('random-ws/screen_batches'):.0f} batches, then {p('random-ws/finalists'):.0f} finalists on the whole "
        f"split; ENAS: {p('enas/samples'):.0f} samples on {p('enas/screen_batches'):.0f} batches).", "",
        f"| optimizer | quick regret | quick s/epoch | {configuration} configuration: batch | steps per epoch | "
        f"s/step | end-of-epoch forwards | s/forward | {unit}/epoch (extrapolated) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    epochs = []
    for optimizer in OPTIMIZERS:
        plan, search, timed = f"{configuration}/{optimizer}", f"search/{optimizer}", f"timed/{optimizer}"
        regret = timings.get(f"{search}/regret")
        search_seconds = timings.get(f"{search}/seconds_per_epoch")
        step = timings.get(f"{timed}/seconds_per_step")
        cells = [optimizer, "-" if regret is None else f"{regret:.4f}",
                 "-" if search_seconds is None else f"{search_seconds:.1f}",
                 f"{values[f'{plan}/batch']:.0f}", f"{values[f'{plan}/steps']:,.0f}",
                 "-" if step is None else f"{step:.2f}", f"{values[f'{plan}/forwards']:,.0f}"]
        if step is None:
            cells += ["-", "-"]
        else:
            epoch = timings[f"{timed}/seconds_per_epoch"]
            epochs.append(epoch)
            cells += [f"{timings[f'{timed}/seconds_per_forward']:.3f}", f"{epoch / per:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    count = values[f"{configuration}/epochs"]
    lines += ["", f"An epoch at the {configuration} configuration takes {_duration(min(epochs))} to "
                  f"{_duration(max(epochs))} on one thread of this machine (extrapolated), a search of its "
                  f"{count:.0f} epochs {_duration(min(epochs) * count)} to {_duration(max(epochs) * count)}. "
                  "Two quick epochs are far too few for the regrets to rank the optimizers; they show the pipeline. "
                  "The regrets come from float training on this CPU, which another CPU rounds differently, so they "
                  "are printed but not compared when the page is checked."]
    return "\n".join(lines)
