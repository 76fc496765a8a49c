"""The measured numbers of ``docs/hardware.md``: how alike the device settings rank NB201 cells by
latency, and how well the additive FBNet latency model fits each device.

Both are deterministic computations on package data, seconds each, so the cheap scale is the
full scale: the Kendall block computes Kendall's tau-b between the latencies of every pair of
the 27 device settings over all 15,625 NB201 cells (``analysis.hardware.latency_kendall_matrix``);
the FBNet block reads the 5-fold held-out errors that ``scripts/build_latency_data.py`` stored
beside the fitted table (``fbnet-latency-table.npz``, checked against the manifest's sha256 on
load), per device, and prints them by group of devices: the fit is exact where HW-NAS-Bench
summed per-block measurements and approximate where HELP measured whole networks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...analysis.hardware import latency_kendall_matrix
from ...benchmarks import fbnet
from ...benchmarks.latency import device_setting
from ...benchmarks.registry import benchmark
from ...io.packaged import FBNET_LATENCY_FILE, NB201_LATENCY_FILE
from .common import data_key
from .pages import Generated

BENCHMARK = "nb201-cifar10"
#: The pair the page singles out: HW-NAS-Bench's two measured (not simulated) devices.
PAIR = ("pixel3", "raspi4")


def generate_kendall(scale: str, results: Path, jobs: int) -> Generated:
    """Kendall's tau-b of latency between device settings over every cell (``scale`` changes nothing)."""
    nb201 = benchmark(BENCHMARK)
    devices, tau = latency_kendall_matrix(nb201)
    values = kendall_values(devices, tau, len(nb201))
    return Generated(kendall_table(values, devices, tau), values, (data_key(NB201_LATENCY_FILE),), ())


def kendall_values(devices: tuple[str, ...], tau: np.ndarray, cells: int) -> dict[str, float]:
    upper = tau[np.triu_indices(len(devices), 1)]
    first, second = (devices.index(name) for name in PAIR)
    return {"cells": float(cells), "settings": float(len(devices)), "pairs": float(len(upper)),
            "min": float(upper.min()), "median": float(np.median(upper)), "max": float(upper.max()),
            f"{PAIR[0]}/{PAIR[1]}": float(tau[first, second])}


def _extreme_pair(devices: tuple[str, ...], tau: np.ndarray, lowest: bool) -> str:
    off_diagonal = np.where(np.eye(len(devices), dtype=bool), np.inf if lowest else -np.inf, tau)
    i, j = np.unravel_index(np.argmin(off_diagonal) if lowest else np.argmax(off_diagonal), tau.shape)
    return f"`{devices[i]}` / `{devices[j]}`"


def kendall_table(values: dict[str, float], devices: tuple[str, ...], tau: np.ndarray) -> str:
    lines = [f"Kendall's tau-b of latency over all {values['cells']:,.0f} cells, "
             f"{values['pairs']:.0f} pairs of the {values['settings']:.0f} device settings:", "",
             "| pair | device settings | tau-b |", "|---|---|---|",
             f"| least alike | {_extreme_pair(devices, tau, True)} | {values['min']:.2f} |",
             f"| median pair | | {values['median']:.2f} |",
             f"| most alike | {_extreme_pair(devices, tau, False)} | {values['max']:.2f} |",
             f"| HW-NAS-Bench's measured devices | `{PAIR[0]}` / `{PAIR[1]}` | "
             f"{values[f'{PAIR[0]}/{PAIR[1]}']:.2f} |"]
    return "\n".join(lines)


#: A held-out error below this (ms) is float64 rounding: the model reproduces the data exactly.
EXACT = 1e-9
#: The device groups of the FBNet fit, in the page's order: (label, test on a DeviceSetting).
GROUPS = (
    ("HW-NAS-Bench's, per-block sums", lambda s: s.source == "HW-NAS-Bench"),
    ("HELP desktop GPUs", lambda s: s.source == "HELP" and s.kind == "desktop GPU"),
    ("HELP server CPUs", lambda s: s.source == "HELP" and s.kind == "server CPU"),
    ("HELP phones (whole milliseconds)", lambda s: s.source == "HELP" and s.kind == "phone"),
)


def generate_fbnet(scale: str, results: Path, jobs: int) -> Generated:
    """The FBNet model's held-out error per device, from the embedded table (``scale`` changes nothing)."""
    model = fbnet.load()
    values = {"measured": float(model.measured_architectures)}
    for position, device in enumerate(model.devices):
        for key, column in (("rmse_ms", "cv_rmse_ms"), ("max_abs_ms", "cv_max_abs_ms"), ("r2", "cv_r2")):
            values[f"{device}/{key}"] = float(model.held_out[column][position])
    return Generated(fbnet_table(values, model.devices), values, (data_key(FBNET_LATENCY_FILE),), ())


def _span(numbers: list[float], digits: str) -> str:
    low, high = min(numbers), max(numbers)
    return f"{low:{digits}}" if f"{low:{digits}}" == f"{high:{digits}}" else f"{low:{digits}}-{high:{digits}}"


def fbnet_table(values: dict[str, float], devices: tuple[str, ...]) -> str:
    """One row per device group: held-out RMSE, largest error and R^2 (ranges over the group)."""
    lines = [f"5-fold held-out error of the least-squares fit on the {values['measured']:,.0f} measured "
             "architectures, ranges over each group's device settings:", "",
             "| devices | settings | RMSE (ms) | largest error (ms) | R^2 |", "|---|---|---|---|---|"]
    for label, member in GROUPS:
        names = [name for name in devices if member(device_setting(name))]
        rmse = [values[f"{name}/rmse_ms"] for name in names]
        worst = [values[f"{name}/max_abs_ms"] for name in names]
        r2 = [values[f"{name}/r2"] for name in names]
        settings = ", ".join(f"`{name}`" for name in names) if len(names) <= 4 else f"{len(names)} settings"
        if max(worst) < EXACT:  # the data's own values up to float64 rounding
            bound = f"{EXACT:.0e}".replace("e-0", "e-")
            lines.append(f"| {label} | {settings} | exact: every error below {bound} ms | | {_span(r2, '.3f')} |")
        else:
            lines.append(f"| {label} | {settings} | {_span(rmse, '.2g')} | {_span(worst, '.2g')} | "
                         f"{_span(r2, '.2f')} |")
    return "\n".join(lines)
