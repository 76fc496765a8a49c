"""NAS-Bench-201 benchmarks on CIFAR-10, CIFAR-100 and ImageNet16-120 (embedded real data).

Fidelities are 12 and 200 epochs. The data holds one value per cell and metric (the means over
the benchmark's seeds, as published), so these are single-trial tables. There is no real
training time in the files: cost is a documented model proportional to the exact FLOPs of the
cell's network (see :func:`modelled_cost`) and every result says so.
"""

from __future__ import annotations

import numpy as np

from ..io.packaged import NB201_FILE, load_arrays, read_manifest
from ..spaces.nb201 import NUM_CELLS, Cell201, NB201Space, cell_at, flops, index_of, trainable_parameters
from .protocol import Description, InvalidArchitectureError
from .tabular import METRICS, TabularBenchmark, TabularData

FIDELITIES = (12, 200)
DATASETS = ("cifar10", "cifar100", "imagenet16-120")
TRAINING_IMAGES = {"cifar10": 50_000, "cifar100": 50_000, "imagenet16-120": 151_700}
#: Assumed effective multiply-accumulates per second of the accelerator (forward + backward
#: counted as 3 forward passes); only the order of magnitude matters for budgets.
MACS_PER_SECOND = 1e12


def modelled_cost(cell: Cell201, dataset: str, epochs: int) -> float:
    """Training seconds = epochs x images x 3 x forward MACs / ``MACS_PER_SECOND``."""
    return epochs * TRAINING_IMAGES[dataset] * 3 * flops(cell, dataset) / MACS_PER_SECOND


def row_of_cell(arch) -> int:
    if isinstance(arch, Cell201):
        return index_of(arch)
    if isinstance(arch, str):
        try:
            return index_of(Cell201.from_string(arch))
        except ValueError as error:
            raise InvalidArchitectureError(str(error)) from None
    raise TypeError(f"expected an NB201 Cell201, a cell string or an index, got {type(arch).__name__}")


def load(dataset: str, seed: int = 0) -> TabularBenchmark:
    if dataset not in DATASETS:
        raise ValueError(f"unknown NB201 dataset {dataset!r}; expected one of {', '.join(DATASETS)}")
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
              + " (means over the benchmark's seeds); trainable parameters (exact count)"),
        modelled=(f"training cost: epochs x {TRAINING_IMAGES[dataset]:,} images x 3 x exact forward MACs / "
                  f"{MACS_PER_SECOND:.0e} MAC/s"
                  + ("" if has_final_test else "; no 200-epoch test accuracy exists in the data, so regret is "
                     "measured on the 200-epoch validation accuracy")),
        provenance=read_manifest()[NB201_FILE].provenance,
    )
    return TabularBenchmark(name, "1.0", data, NB201Space(), row_of_cell, description, seed=seed,
                            regret_metric="test_accuracy" if has_final_test else "valid_accuracy")
