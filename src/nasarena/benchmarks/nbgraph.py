"""NAS-Bench-Graph (Qin et al., NeurIPS 2022) as tabular benchmarks: ``nbgraph-<dataset>``.

Every network of the space (26,206; 2,021 on proteins, whose space has 5 operations) was trained
on nine node-classification datasets; the ``nas-bench-graph`` package ships, per dataset and
network, the validation and test performance, the inference latency and the parameter count,
embedded here as package data (:mod:`nasarena.spaces.nbgraph.keys`).

What is real and what is not:

- validation and test performance are the package's values: accuracy on the eight datasets
  other than proteins (they are fractions of the split's nodes); on ogbn-proteins the test values
  are no fractions of nodes, consistent with ROC-AUC, that dataset's standard (OGB) metric. They
  are served as ``valid_accuracy`` and ``test_accuracy``; regret is on the test value;
- latency is the package's measurement of the network's inference (seconds, served in ms) on
  the authors' hardware, which the package does not name: the device setting
  :data:`DEVICE` (objective ``latency:nbgraph``);
- parameters are the package's counts (millions, served as a whole number: on physics some are
  not whole in the package and are rounded, which ``describe()`` counts);
- there is no training time and no epoch count in the package (its light files hold the end of
  training only; per-epoch curves are in the full data on figshare, not embedded). The one
  fidelity, :data:`FIDELITY` epochs, is nominal (the package's hyperparameter search draws from
  200-500 epochs, :data:`EPOCH_CHOICES`; the count chosen per dataset is not in the package),
  and the cost is a stated model: ``FIDELITY x 3 x latency`` (full-batch training, an epoch
  being a forward and a backward pass, counted as 3 forward passes), flagged as modelled in
  every result. Multi-fidelity optimizers (Hyperband, BOHB, MO-ASHA) need several fidelities and
  refuse these benchmarks.
"""

from __future__ import annotations

import numpy as np

from ..errors import ArchitectureTypeError, InvalidSettingError
from ..io.packaged import read_manifest
from ..spaces.nbgraph import NBGRAPH_FILE, GraphArch, NBGraphProteinsSpace, NBGraphSpace, embedded_arrays
from .latency import LatencyTable
from .protocol import Description
from .tabular import METRICS, TabularBenchmark, TabularData

#: The datasets, in the package's order, and what each one is.
DATASET_NAMES = {
    "cora": "Cora", "citeseer": "CiteSeer", "pubmed": "PubMed", "cs": "Coauthor-CS", "physics": "Coauthor-Physics",
    "photo": "Amazon-Photo", "computers": "Amazon-Computers", "arxiv": "ogbn-arxiv", "proteins": "ogbn-proteins",
}
DATASETS = tuple(DATASET_NAMES)
#: The dataset measured on the 5-operation space.
PROTEINS = "proteins"
#: The nominal fidelity in epochs (see the module): the package holds the end of training only.
FIDELITY = 200
#: The epoch counts the package's hyperparameter search draws from (``architecture.random_hp``).
EPOCH_CHOICES = (200, 300, 400, 500)
#: Forward passes a training epoch costs (a forward and a backward pass) in the cost model.
PASSES_PER_EPOCH = 3
#: The device setting of the package's latency: the authors' hardware, which it does not name.
DEVICE = "nbgraph"


def metric_of(dataset: str) -> str:
    """The metric of a dataset's performance values (see the module)."""
    return "ROC-AUC" if dataset == PROTEINS else "accuracy"


class NBGraphBenchmark(TabularBenchmark):
    """A tabular NAS-Bench-Graph benchmark with its latency (ms) on :data:`DEVICE`."""

    modelled_objectives: frozenset[str] = frozenset()  # the latency is this network's own measurement

    def __init__(self, dataset: str, latency_ms: np.ndarray, *args, **options):
        super().__init__(*args, **options)
        self.dataset = dataset
        #: What the accuracies it serves measure (``analysis.regret_basis`` names it): ROC-AUC on proteins.
        self.performance_measure = metric_of(dataset)
        self.latency_table = LatencyTable(self.name, (DEVICE,), latency_ms.reshape(-1, 1), measured=True)
        self.devices = self.latency_table.devices

    def latency(self, arch, device: str) -> float:
        """Inference latency in ms of ``arch`` (an architecture, its text, its key's text or a row)."""
        return self.latency_table.value(self.row(arch), device)

    def latency_column(self, device: str) -> np.ndarray:
        """Every network's latency in ms on ``device``, in row order."""
        return self.latency_table.column(device)

    def arch_at(self, row: int) -> GraphArch:
        return self.space.at_row(row)


def _row_of(space: NBGraphSpace):
    def row_of(arch) -> int:
        """The row of an architecture, its text form or its key's text (a row index never gets
        here: ``TabularBenchmark.row`` takes it)."""
        if isinstance(arch, GraphArch):
            return space.row(arch)
        if isinstance(arch, str):
            return space.row(space.from_text(arch))
        raise ArchitectureTypeError(f"expected a NAS-Bench-Graph GraphArch, its text such as "
                                    f"'gcn(0),gin(1),fc(2),cheb(1)', a key or a row index, got {type(arch).__name__} "
                                    f"{arch!r:.80}")

    return row_of


def load(dataset: str, seed: int = 0) -> NBGraphBenchmark:
    """The NAS-Bench-Graph benchmark of ``dataset`` (one of :data:`DATASETS`); ``seed`` seeds
    the benchmark's own stream (its tables have one value per network, so answers do not depend on it)."""
    if dataset not in DATASETS:
        raise InvalidSettingError(f"unknown NAS-Bench-Graph dataset {dataset!r}; expected one of {', '.join(DATASETS)}")
    arrays = embedded_arrays()
    space = NBGraphProteinsSpace() if dataset == PROTEINS else NBGraphSpace()
    latency_s = arrays[f"{dataset}_latency_s"]
    values = np.full((len(latency_s), 1, 1, 1, len(METRICS)), np.nan, dtype=np.float64)
    values[:, 0, 0, 0, METRICS.index("valid_accuracy")] = arrays[f"{dataset}_valid"]
    values[:, 0, 0, 0, METRICS.index("test_accuracy")] = arrays[f"{dataset}_test"]
    values[:, 0, 0, 0, METRICS.index("cost_seconds")] = FIDELITY * PASSES_PER_EPOCH * latency_s
    parameters = arrays[f"{dataset}_params_millions"] * 1e6
    whole = np.rint(parameters)
    rounded = int((np.abs(parameters - whole) > 1e-3).sum())
    data = TabularData(values, (FIDELITY,), whole.astype(np.int64), {"cost_seconds": np.ones(len(values), dtype=bool)})
    name = f"nbgraph-{dataset}"
    metric = metric_of(dataset)
    description = Description(
        name=name,
        version="1.0",
        num_architectures=len(values),
        fidelities=(FIDELITY,),
        trials=1,
        metrics=("valid_accuracy", "test_accuracy", "cost_seconds", "trainable_parameters"),
        real=(f"{DATASET_NAMES[dataset]}: validation and test {metric} of every network as the nas-bench-graph "
              f"package gives them (served as valid_accuracy and test_accuracy; regret on the test {metric}"
              + ("; the package does not name its metric: ROC-AUC is OGB's for ogbn-proteins, and its test values "
                 "are no fractions of nodes" if dataset == PROTEINS else "") + "); "
              f"inference latency in ms as the authors measured it (benchmark.latency(arch, {DEVICE!r}), objective "
              f"latency:{DEVICE}; the package does not name the hardware); trainable parameters"
              + (f" ({rounded:,} counts are not whole numbers in the package and are rounded)" if rounded else "")),
        modelled=(f"training cost: {FIDELITY} epochs x {PASSES_PER_EPOCH} x the measured inference latency (the "
                  "package holds no training time; full-batch training assumed, an epoch a forward and a backward "
                  f"pass); the fidelity {FIDELITY} is nominal: the package holds the end of training only, not the "
                  f"number of epochs (its hyperparameter search draws from {', '.join(map(str, EPOCH_CHOICES))})"),
        provenance=read_manifest()[NBGRAPH_FILE].provenance,
        count_note=("" if dataset != PROTEINS else
                    f"the paper's 26,206 networks are those of 9 operations; proteins was measured on the "
                    f"{len(space.operations)}-operation space ({', '.join(space.operations)})"),
    )
    latency_ms = latency_s * 1000.0
    latency_ms.setflags(write=False)
    return NBGraphBenchmark(dataset, latency_ms, name, "1.0", data, space, _row_of(space), description, seed=seed)
