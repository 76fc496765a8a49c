"""NAS-Bench-201 benchmarks on CIFAR-10, CIFAR-100 and ImageNet16-120 (embedded real data).

Fidelities are 12 and 200 epochs. The data holds one value per cell and metric (the means over
the benchmark's seeds, as published), so these are single-trial tables. There is no real
training time in the files: cost is a documented model proportional to the exact FLOPs of the
cell's network (see :func:`modelled_cost`) and every result says so.

Beyond the protocol, each benchmark answers the hardware objectives of issue 31: inference
latency on 27 device settings (:mod:`.latency`; measured on the CIFAR-10 network, which the
CIFAR-100 and ImageNet16-120 benchmarks serve as a modelled stand-in), exact FLOPs and
parameters. They are looked up on demand, so ``query`` stays as fast as before.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import ArchitectureTypeError, InvalidSettingError
from ..io.packaged import NB201_FILE, NB201_LATENCY_FILE, load_arrays, read_manifest
from ..spaces.nb201 import NUM_CELLS, Cell201, NB201Space, cell_at, flops, index_of, trainable_parameters
from .latency import LatencyTable, describe_settings, nb201_latencies
from .protocol import Description, InvalidArchitectureError
from .tabular import METRICS, TabularBenchmark, TabularData
from .zero_cost import ZERO_COST, nb201_zero_cost

FIDELITIES = (12, 200)
DATASETS = ("cifar10", "cifar100", "imagenet16-120")
TRAINING_IMAGES = {"cifar10": 50_000, "cifar100": 50_000, "imagenet16-120": 151_700}
#: Assumed effective multiply-accumulates per second of the accelerator (forward + backward
#: counted as 3 forward passes); only the order of magnitude matters for budgets.
MACS_PER_SECOND = 1e12


def modelled_cost(cell: Cell201, dataset: str, epochs: int) -> float:
    """Training seconds = epochs x images x 3 x forward MACs / ``MACS_PER_SECOND``."""
    return epochs * TRAINING_IMAGES[dataset] * 3 * flops(cell, dataset) / MACS_PER_SECOND


#: Why a benchmark serves the CIFAR-10 network's latency as a modelled stand-in for its own.
LATENCY_STAND_IN = {
    "cifar100": ("the data measures the CIFAR-10 network; the CIFAR-100 network differs only in its classifier "
                 "(64 x 100 instead of 64 x 10 weights), so its latency is served as the CIFAR-10 network's"),
    "imagenet16-120": ("the data measures the CIFAR-10 network (32x32 input); the ImageNet16-120 network takes 16x16 "
                       "input and has 120 classes, and its latency was not measured, so the CIFAR-10 network's is "
                       "served: it overstates the absolute latency (the CIFAR-10 network has 4x its MACs)"),
}


class NB201Benchmark(TabularBenchmark):
    """A tabular NB201 benchmark with its hardware objectives, looked up by row on demand, and,
    loaded with ``proxy=NAME``, a zero-cost proxy as fidelity 0 (:mod:`.zero_cost`)."""

    offers_zero_cost = True

    def __init__(self, dataset: str, *args, **options):
        super().__init__(*args, **options)
        self.dataset = dataset
        self._latency: LatencyTable | None = None
        self._flops: np.ndarray | None = None
        self._hardware_description: Description | None = None

    @property
    def latency_table(self) -> LatencyTable:
        """The latency of every cell on every device setting (loaded on first use)."""
        if self._latency is None:
            devices, values = nb201_latencies()
            self._latency = LatencyTable(self.name, devices, values, measured=self.dataset == "cifar10",
                                         note=LATENCY_STAND_IN.get(self.dataset, ""))
        return self._latency

    @property
    def modelled_objectives(self) -> frozenset[str]:
        """The objective kinds this benchmark serves from a model rather than its own measurement
        (``Result.modelled``'s contract for what is not a Result field): latency except on CIFAR-10."""
        return frozenset() if self.dataset == "cifar10" else frozenset({"latency"})

    @property
    def devices(self) -> tuple[str, ...]:
        """The device settings :meth:`latency` takes (``pixel3``, ``titanx_32``, ...)."""
        return self.latency_table.devices

    def latency(self, arch, device: str) -> float:
        """Inference latency in ms of ``arch`` (a cell, its string or a row) on ``device``:
        measured for nb201-cifar10, the CIFAR-10 network's (modelled) for the other two."""
        return self.latency_table.value(self.row(arch), device)

    def latency_column(self, device: str) -> np.ndarray:
        """Every cell's latency on ``device``, in row order."""
        return self.latency_table.column(device)

    def flops(self, arch) -> float:
        """Multiply-accumulates of one forward pass of one image of this dataset's network."""
        return float(self.flops_column()[self.row(arch)])

    def flops_column(self) -> np.ndarray:
        if self._flops is None:
            self._flops = np.array([flops(cell_at(i), self.dataset) for i in range(NUM_CELLS)], dtype=np.float64)
            self._flops.setflags(write=False)
        return self._flops

    def arch_at(self, row: int) -> Cell201:
        return cell_at(row)

    def __getstate__(self) -> dict:
        """Pickled without the caches of the shared latency table and FLOPs (a process rebuilds them)."""
        return {**self.__dict__, "_latency": None, "_flops": None, "_hardware_description": None}

    def describe(self) -> Description:
        """The tabular description plus what the latency data measures (read on first call, so
        loading the benchmark does not decompress the latency file)."""
        if self._hardware_description is None:
            base = self._description
            settings = describe_settings(self.devices)
            if self.latency_table.measured:
                base = replace(base, real=f"{base.real}; inference latency in ms (benchmark.latency(arch, device)) "
                                          f"of this CIFAR-10 network on {settings}")
            else:
                base = replace(base, modelled=f"{base.modelled}; inference latency in ms (benchmark.latency(arch, "
                                              f"device)) on {settings}: {self.latency_table.note}")
            self._hardware_description = base
        return self._hardware_description


def row_of_cell(arch) -> int:
    """Row of an NB201 cell given as a ``Cell201`` or its string (a row index never gets here:
    ``TabularBenchmark.row`` takes it); anything else is an :class:`ArchitectureTypeError`."""
    if isinstance(arch, Cell201):
        return index_of(arch)
    if isinstance(arch, str):
        try:
            return index_of(Cell201.from_string(arch))
        except ValueError as error:
            raise InvalidArchitectureError(str(error)) from None
    raise ArchitectureTypeError(f"expected an NB201 Cell201, a cell string or a row index (a whole number), got "
                                f"{type(arch).__name__} {arch!r:.80}")


def load(dataset: str, seed: int = 0, proxy: str | None = None) -> TabularBenchmark:
    """The NB201 benchmark of ``dataset``; with ``proxy`` (a proxy of the embedded table, e.g.
    synflow) it answers fidelity 0 with that proxy (:mod:`.zero_cost`)."""
    if dataset not in DATASETS:
        raise InvalidSettingError(f"unknown NB201 dataset {dataset!r}; expected one of {', '.join(DATASETS)}")
    arrays = load_arrays(NB201_FILE)
    cells = [cell_at(i) for i in range(NUM_CELLS)]
    # float64: the data's precision (float32 would merge distinct accuracies of different cells)
    values = np.full((NUM_CELLS, len(FIDELITIES), 1, 1, len(METRICS)), np.nan, dtype=np.float64)
    for f, epochs in enumerate(FIDELITIES):
        values[:, f, 0, 0, 1] = arrays[f"{dataset}_valid_{epochs}"]
        test = arrays.get(f"{dataset}_test_{epochs}")
        if test is not None:
            values[:, f, 0, 0, 2] = test
        values[:, f, 0, 0, 3] = [modelled_cost(c, dataset, epochs) for c in cells]
    parameters = np.array([trainable_parameters(c, dataset) for c in cells], dtype=np.int64)
    has_final_test = f"{dataset}_test_200" in arrays
    manifest = read_manifest()
    data = TabularData(values, FIDELITIES, parameters, {"cost_seconds": np.ones(NUM_CELLS, dtype=bool)})
    name = f"nb201-{dataset}"
    description = Description(
        name=name,
        version="1.0",
        num_architectures=NUM_CELLS,
        fidelities=FIDELITIES,
        trials=1,
        metrics=("valid_accuracy", "test_accuracy", "cost_seconds", "trainable_parameters"),
        real=("validation and test accuracy after 12 epochs; validation accuracy after 200 epochs"
              + ("; test accuracy after 200 epochs" if has_final_test else "")
              + " (means over the benchmark's seeds); trainable parameters and FLOPs (exact counts)"),
        modelled=(f"training cost: epochs x {TRAINING_IMAGES[dataset]:,} images x 3 x exact forward MACs / "
                  f"{MACS_PER_SECOND:.0e} MAC/s"
                  + ("" if has_final_test else "; no 200-epoch test accuracy exists in the data, so regret is "
                     "measured on the 200-epoch validation accuracy")
),
        provenance="; ".join(f"{label}: {manifest[file].provenance}" for label, file in
                             (("accuracies", NB201_FILE), ("latency", NB201_LATENCY_FILE))),
    )
    if proxy is not None:
        zero_cost = nb201_zero_cost(proxy, dataset)
        description = replace(description, real=f"{description.real}; {zero_cost.describe()}",
                              fidelities=(ZERO_COST, *description.fidelities))
    benchmark = NB201Benchmark(dataset, name, "1.0", data, NB201Space(), row_of_cell, description, seed=seed,
                               regret_metric="test_accuracy" if has_final_test else "valid_accuracy")
    if proxy is not None:
        benchmark.zero_cost = zero_cost
    return benchmark
