"""Measured inference latency: the device settings of the embedded data and their latency tables.

The data (``../shared/data/latency``, from HELP, Lee et al. 2021, which carries HW-NAS-Bench's
measurements, Li et al. 2021) names 27 *device settings*: a device, and for desktop GPUs a batch
size. Four come from HW-NAS-Bench, measured (pixel3, raspi4) or estimated by simulators
(eyeriss, fpga); the rest were measured by the HELP authors. Only the GPU settings record a
batch size. The NB201
latencies are those of the CIFAR-10 network (32x32 input, 10 classes): row 0 on pixel3, raspi4,
eyeriss and fpga equals HW-NAS-Bench's published CIFAR-10 example to the last digit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..io.packaged import NB201_LATENCY_FILE, load_arrays
from .objectives import unknown_device


@dataclass(frozen=True)
class DeviceSetting:
    """One column of the latency data: which hardware, how it was obtained, at which batch size."""

    name: str
    hardware: str
    kind: str
    #: images per forward pass; None where the data does not say
    batch_size: int | None
    #: "HW-NAS-Bench" or "HELP": who measured (or simulated) it
    source: str
    #: an estimate of a simulator, not a measurement
    simulated: bool


#: device name (without a GPU's batch suffix) -> (hardware, kind, source, simulated)
_DEVICES = {
    "1080ti": ("NVIDIA GeForce GTX 1080 Ti", "desktop GPU", "HELP", False),
    "2080ti": ("NVIDIA GeForce RTX 2080 Ti", "desktop GPU", "HELP", False),
    "titan_rtx": ("NVIDIA Titan RTX", "desktop GPU", "HELP", False),
    "titanx": ("NVIDIA Titan X", "desktop GPU", "HELP", False),
    "titanxp": ("NVIDIA Titan Xp", "desktop GPU", "HELP", False),
    "gold_6226": ("Intel Xeon Gold 6226", "server CPU", "HELP", False),
    "gold_6240": ("Intel Xeon Gold 6240", "server CPU", "HELP", False),
    "silver_4114": ("Intel Xeon Silver 4114", "server CPU", "HELP", False),
    "silver_4210r": ("Intel Xeon Silver 4210R", "server CPU", "HELP", False),
    "pixel2": ("Google Pixel 2", "phone", "HELP", False),
    "samsung_a50": ("Samsung Galaxy A50", "phone", "HELP", False),
    "samsung_s7": ("Samsung Galaxy S7", "phone", "HELP", False),
    "essential_ph_1": ("Essential PH-1", "phone", "HELP", False),
    "pixel3": ("Google Pixel 3", "phone", "HW-NAS-Bench", False),
    "raspi4": ("Raspberry Pi 4", "edge device", "HW-NAS-Bench", False),
    "eyeriss": ("Eyeriss ASIC (simulator estimate)", "ASIC simulator", "HW-NAS-Bench", True),
    "fpga": ("FPGA accelerator (simulator estimate)", "FPGA simulator", "HW-NAS-Bench", True),
    # NAS-Bench-Graph's own measurement (benchmarks.nbgraph): the package does not name the hardware
    "nbgraph": ("the NAS-Bench-Graph authors' hardware (not named)", "unnamed hardware", "NAS-Bench-Graph", False),
}


def device_setting(name: str) -> DeviceSetting:
    """The setting of a column name: ``titanx_32`` is a Titan X at batch 32; the other settings
    do not record a batch size."""
    base, _, suffix = name.rpartition("_")
    if base in _DEVICES and suffix.isdigit() and _DEVICES[base][1] == "desktop GPU":
        hardware, kind, source, simulated = _DEVICES[base]
        return DeviceSetting(name, hardware, kind, int(suffix), source, simulated)
    hardware, kind, source, simulated = _DEVICES[name]
    return DeviceSetting(name, hardware, kind, None, source, simulated)


def describe_settings(devices: tuple[str, ...]) -> str:
    """One sentence on what the device settings are, for ``describe()``."""
    settings = [device_setting(name) for name in devices]
    gpus = sorted({s.name.rpartition("_")[0] for s in settings if s.kind == "desktop GPU"})
    batches = sorted({s.batch_size for s in settings if s.kind == "desktop GPU"})
    def names(kind: str) -> str:
        return ", ".join(s.name for s in settings if s.kind == kind)
    return (f"{len(settings)} device settings: desktop GPUs {', '.join(gpus)} at batch "
            f"{'/'.join(map(str, batches))} and server CPUs {names('server CPU')} (measured by HELP); phones "
            f"{names('phone')} (pixel3 measured by HW-NAS-Bench, the others by HELP in whole milliseconds); "
            f"raspi4 (HW-NAS-Bench); eyeriss and fpga are simulator estimates (HW-NAS-Bench); only the GPU "
            "settings record a batch size")


class LatencyTable:
    """Latency (ms) of every row of a finite benchmark on its device settings.

    ``measured`` says whether the numbers were measured on this benchmark's own network; where
    not (NB201 CIFAR-100 and ImageNet16-120 serve the CIFAR-10 network's), ``note`` says why.
    """

    def __init__(self, owner: str, devices: tuple[str, ...], values: np.ndarray, measured: bool, note: str = ""):
        self.owner = owner
        self.devices = devices
        self.values = values
        self.measured = measured
        self.note = note
        self._column_of = {name: i for i, name in enumerate(devices)}

    def column_index(self, device: str) -> int:
        """The column of ``device``; an :class:`InvalidSettingError` with close matches otherwise."""
        index = self._column_of.get(device) if isinstance(device, str) else None
        if index is None:
            raise unknown_device(self.owner, device, self.devices)
        return index

    def column(self, device: str) -> np.ndarray:
        """Every row's latency on ``device`` (a read-only view)."""
        return self.values[:, self.column_index(device)]

    def value(self, row: int, device: str) -> float:
        return self.values.item(row, self.column_index(device))


@lru_cache(maxsize=1)
def nb201_latencies() -> tuple[tuple[str, ...], np.ndarray]:
    """(device names, latency (cells, devices) float64) of the NB201 CIFAR-10 networks, loaded
    once per process (the three NB201 benchmarks share it). Float64 holds exactly the source's
    values as parsed, so a bound equal to a published latency admits its cell (float32 rounded
    some values up) and distinct latencies stay distinct (no ties for rank statistics)."""
    arrays = load_arrays(NB201_LATENCY_FILE)
    values = arrays["latency_ms"]
    values.setflags(write=False)
    return tuple(str(name) for name in arrays["devices"]), values
