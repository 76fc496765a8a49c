"""NAS-Bench-201 benchmarks on CIFAR-10, CIFAR-100 and ImageNet16-120 (embedded real data).

Fidelities are 12 and 200 epochs. The data holds one value per cell and metric (the means over
the benchmark's seeds, as published), so these are single-trial tables. There is no real
training time in the files: cost is a documented model proportional to the exact FLOPs of the
cell's network (see :func:`modelled_cost`) and every result says so.

Beyond the protocol, each benchmark answers the hardware objectives of issue 31: inference
latency on 27 device settings (:mod:`.latency`; measured on the CIFAR-10 network, which the
CIFAR-100 and ImageNet16-120 benchmarks serve as a modelled stand-in), exact FLOPs and
parameters. They are looked up on demand, so ``query`` stays as fast as before.

Unique architectures (``unique=True``, issue 40): the 15,625 cells fall into 6,466 classes of
cells that compute the same function (:func:`nasarena.spaces.nb201.unique_cells`). Loaded with
``unique=True`` a benchmark answers every cell with its class representative's records and names
the representative as its identity, so a run's cache and evaluation count see one class as one
architecture, and whole-table answers (:func:`.objectives.objective_matrix`, ``best_under``)
cover the representatives only. The default stays all cells: NB201 publishes, and the
literature benchmarks on, all 15,625 cells with their own records (equivalent cells were trained
and measured separately, and their accuracies and latencies differ), so the default keeps
results comparable with published ones and with earlier runs; ``unique=True`` is the choice
where a repeated class should cost nothing, e.g. to compare optimizers on distinct architectures.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import numpy as np

from ..errors import ArchitectureTypeError, InvalidSettingError
from ..io.packaged import NB201_FILE, NB201_LATENCY_FILE, load_arrays, read_manifest
from ..spaces.nb201 import NUM_CELLS, Cell201, NB201Space, cell_at, flops, index_of, trainable_parameters, unique_cells
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


def unique_option(value: object) -> bool:
    """The ``unique`` loader option as a bool: True or False, or their text (``--benchmark-option
    unique=true`` passes text); anything else is an :class:`InvalidSettingError`."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    text = value.strip().lower() if isinstance(value, str) else None
    if text not in ("true", "false"):
        raise InvalidSettingError(f"unique={value!r}: expected true (one architecture per class of equivalent "
                                  f"cells) or false (all {NUM_CELLS:,} cells, the default)")
    return text == "true"


class UniqueNB201Space(NB201Space):
    """The NB201 space whose identity is the cell string of the class's representative: the space
    of a benchmark loaded with ``unique=True``, so that caches and de-duplication (the runner's,
    the optimizers') take equivalent cells for one architecture. Sampling, mutation, rows and
    text forms are NB201's: every cell stays proposable."""

    def identity(self, cell: Cell201) -> str:
        """The cell string of the representative of ``cell``'s class (its smallest row)."""
        return _class_identities()[cell.index]

    def neighbours(self, cell: Cell201) -> list[Cell201]:
        """NB201's neighbours, the first of each class other than ``cell``'s: a neighbour that
        computes the same function is the same architecture here, not a neighbour of it."""
        seen, kept = {self.identity(cell)}, []
        for neighbour in super().neighbours(cell):
            identity = self.identity(neighbour)
            if identity not in seen:
                seen.add(identity)
                kept.append(neighbour)
        return kept


@lru_cache(maxsize=1)
def _class_identities() -> tuple[str, ...]:
    """Per row, the cell string of its class's representative (built once per process)."""
    representatives = unique_cells()
    texts = {row: cell_at(row).to_string() for row in np.unique(representatives).tolist()}
    return tuple(texts[row] for row in representatives.tolist())


class NB201Benchmark(TabularBenchmark):
    """A tabular NB201 benchmark with its hardware objectives, looked up by row on demand, and,
    loaded with ``proxy=NAME``, a zero-cost proxy as fidelity 0 (:mod:`.zero_cost`).

    ``representatives`` (loaded with ``unique=True``): per row, the row of its class's
    representative, whose records the table holds in every row of the class (see the module
    docstring); None where every cell answers with its own records."""

    offers_zero_cost = True

    def __init__(self, dataset: str, *args, representatives: np.ndarray | None = None, **options):
        super().__init__(*args, **options)
        self.dataset = dataset
        self.representatives = representatives
        self._latency: LatencyTable | None = None
        self._flops: np.ndarray | None = None
        self._hardware_description: Description | None = None

    @property
    def unique_rows(self) -> np.ndarray | None:
        """Mask of the rows that are architectures of their own: with ``unique=True`` the
        representatives (the other rows repeat their class's records, so whole-table answers
        leave them out); None without it, where every row is one."""
        if self.representatives is None:
            return None
        return self.representatives == np.arange(len(self.representatives))

    @property
    def latency_table(self) -> LatencyTable:
        """The latency of every cell on every device setting (loaded on first use; with
        ``unique=True`` every cell's is its representative's)."""
        if self._latency is None:
            devices, values = nb201_latencies()
            if self.representatives is not None:
                values = values[self.representatives]
                values.setflags(write=False)
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
        """Every cell's FLOPs in row order (with ``unique=True``, its representative's)."""
        if self._flops is None:
            rows = range(NUM_CELLS) if self.representatives is None else self.representatives.tolist()
            self._flops = np.array([flops(cell_at(i), self.dataset) for i in rows], dtype=np.float64)
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


@lru_cache(maxsize=len(DATASETS))
def _table(dataset: str) -> tuple[np.ndarray, np.ndarray, bool]:
    """(values, trainable parameters, whether 200-epoch test accuracy exists) of ``dataset``,
    built once per process and read-only: the per-cell cost model and parameter counts take
    seconds, and every benchmark object of the dataset shares them."""
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
    values.setflags(write=False)
    parameters.setflags(write=False)
    return values, parameters, f"{dataset}_test_200" in arrays


def load(dataset: str, seed: int = 0, proxy: str | None = None, unique: bool | str = False) -> TabularBenchmark:
    """The NB201 benchmark of ``dataset``; with ``proxy`` (a proxy of the embedded table, e.g.
    synflow) it answers fidelity 0 with that proxy (:mod:`.zero_cost`); with ``unique=True`` one
    architecture per class of equivalent cells (see the module docstring for why the default is
    all cells)."""
    if dataset not in DATASETS:
        raise InvalidSettingError(f"unknown NB201 dataset {dataset!r}; expected one of {', '.join(DATASETS)}")
    representatives = unique_cells() if unique_option(unique) else None
    values, parameters, has_final_test = _table(dataset)
    if representatives is not None:  # every row holds its representative's records
        values, parameters = values[representatives], parameters[representatives]
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
        count_note="" if representatives is None else
        (f"unique=True: {len(np.unique(representatives)):,} classes of equivalent cells, each cell answered with "
         "its class representative's records and identity"),
    )
    if proxy is not None:
        zero_cost = nb201_zero_cost(proxy, dataset)
        description = replace(description, real=f"{description.real}; {zero_cost.describe()}",
                              fidelities=(ZERO_COST, *description.fidelities))
    space = NB201Space() if representatives is None else UniqueNB201Space()
    benchmark = NB201Benchmark(dataset, name, "1.0", data, space, row_of_cell, description, seed=seed,
                               regret_metric="test_accuracy" if has_final_test else "valid_accuracy",
                               representatives=representatives)
    if proxy is not None:
        benchmark.zero_cost = zero_cost
    return benchmark
