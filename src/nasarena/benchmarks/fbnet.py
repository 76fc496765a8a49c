"""FBNet latency for the whole space: an additive model fitted on HW-NAS-Bench-style data.

HW-NAS-Bench builds an FBNet network's latency as the sum of its blocks' measured latencies, so
a table per (layer, block) answers all 9^22 architectures. The data holds 5,000 measured
architectures on 27 device settings; ``scripts/build_latency_data.py`` recovers the table per
device by least squares (intercept plus one term per layer and non-skip block) and records its
5-fold held-out error, which :meth:`FBNetLatency.describe` reports. On HW-NAS-Bench's four
settings (pixel3, raspi4, eyeriss, fpga) the sum is exact; HELP's own devices measured whole
networks, where the sum is an approximation (poor on the phones, R^2 0.2-0.6).

There are no FBNet accuracies: this is a latency-only benchmark (no ``query``); every latency
it gives is modelled.
"""

from __future__ import annotations

import numpy as np

from ..errors import ArchitectureTypeError, InvalidArchitectureError
from ..io.packaged import FBNET_LATENCY_FILE, load_arrays, read_manifest
from ..spaces.fbnet import NUM_LAYERS, SIZE, FBNetArch, FBNetSpace
from .latency import LatencyTable, describe_settings
from .protocol import Description

NAME = "fbnet-latency"


class FBNetLatency:
    """Latency (ms, modelled) of any FBNet architecture on 27 device settings.

    ``latency(arch, device)`` takes an :class:`FBNetArch`, its comma-separated text form or the
    data's dash-separated one (``k5_e6-skip-...``).
    """

    name = NAME
    version = "1.0"
    modelled_objectives = frozenset({"latency"})

    def __init__(self):
        arrays = load_arrays(FBNET_LATENCY_FILE)
        self.devices: tuple[str, ...] = tuple(str(name) for name in arrays["devices"])
        self.intercept_ms = arrays["intercept_ms"]
        self.terms_ms = arrays["terms_ms"]  # (layer, block, device)
        self.held_out = {key: arrays[key] for key in ("cv_rmse_ms", "cv_max_abs_ms", "cv_r2")}
        self.measured_architectures = int(arrays["measured"])
        # a LatencyTable over no rows: only its device check is used
        self._devices = LatencyTable(NAME, self.devices, np.empty((0, len(self.devices)), np.float32), False)
        self._layers = np.arange(NUM_LAYERS)
        self._space = FBNetSpace()

    @property
    def space(self) -> FBNetSpace:
        return self._space

    def arch(self, arch) -> FBNetArch:
        """``arch`` as an :class:`FBNetArch` (from either text form)."""
        if isinstance(arch, FBNetArch):
            return arch
        if isinstance(arch, str):
            try:
                return FBNetArch.from_text(arch.replace("-", ",") if "," not in arch else arch)
            except ValueError as error:
                raise InvalidArchitectureError(str(error)) from None
        raise ArchitectureTypeError(f"expected an FBNetArch or its text form, got {type(arch).__name__} {arch!r:.80}")

    def latency(self, arch, device: str) -> float:
        """Modelled inference latency in ms: intercept plus the term of each layer's block."""
        column = self._devices.column_index(device)
        blocks = self.arch(arch).block_indices
        return float(self.intercept_ms[column] + self.terms_ms[self._layers, blocks, column].sum())

    def latency_batch(self, archs, device: str) -> np.ndarray:
        """:meth:`latency` of many architectures at once."""
        column = self._devices.column_index(device)
        if isinstance(archs, (str, bytes)) or not hasattr(archs, "__iter__"):
            raise ArchitectureTypeError(f"latency_batch takes a sequence of architectures, got {type(archs).__name__}")
        blocks = np.array([self.arch(a).block_indices for a in archs], dtype=np.int64).reshape(-1, NUM_LAYERS)
        return self.intercept_ms[column] + self.terms_ms[self._layers, blocks, column].sum(axis=1)

    def describe(self) -> Description:
        errors = "; ".join(
            f"{device} RMSE {rmse:.3g} ms, max {worst:.3g} ms, R^2 {r2:.3f}" for device, rmse, worst, r2 in
            zip(self.devices, self.held_out["cv_rmse_ms"], self.held_out["cv_max_abs_ms"], self.held_out["cv_r2"]))
        return Description(
            name=NAME, version=self.version, num_architectures=SIZE, fidelities=(), trials=0,
            metrics=("latency_ms",),
            real="none: FBNet has no accuracies in the data (a latency-only benchmark; fit an accuracy surrogate "
                 "yourself to search on accuracy)",
            modelled=(f"inference latency in ms on {describe_settings(self.devices)}: per device, an intercept plus "
                      f"one term per (layer, block), least squares on {self.measured_architectures:,} measured "
                      f"architectures (exact on HW-NAS-Bench's pixel3, raspi4, eyeriss, fpga, which sum per-block "
                      f"measurements; approximate on HELP's devices, measured end to end). 5-fold held-out error: "
                      f"{errors}"),
            provenance=read_manifest()[FBNET_LATENCY_FILE].provenance,
        )

    def __repr__(self) -> str:
        return f"<FBNetLatency {NAME}: {len(self.devices)} device settings, latency only>"


def load() -> FBNetLatency:
    """The FBNet latency benchmark (a 22 x 9 x 27 table: cheap to load)."""
    return FBNetLatency()
