"""Build the embedded NAS-Bench-Graph data from the installed ``nas-bench-graph`` package, once.

    pip install 'nasarena[nbgraph-build]'      # nas-bench-graph==1.4.0, for this script only
    python scripts/build_nbgraph_data.py

The package ships its measurements as pickles (``nas_bench_graph/light/<dataset>.bench``: a dict
from the package's key of a network to its ``valid_perf``, ``perf`` (test), ``latency``
(seconds) and ``para`` (millions of parameters)). This script is the only place they are
unpickled: it checks the package's operations and link patterns against
:mod:`nasarena.spaces.nbgraph.vocabulary`, that the eight 9-operation datasets measure the same
networks and proteins a subset, and that every key names a drawing whose package key is that key
(so :func:`nasarena.spaces.nbgraph.decode` gives representatives), asks the package for the key of
every one of the 157,464 drawings, and writes two files with their sha256 and provenance in the
manifest: ``nbgraph-space.npz.xz`` (the keys and the row of every drawing's key) and
``nbgraph.npz.xz`` (the measurements, float64: the package's values exactly). The package is
never needed at run time.
"""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

import numpy as np

from nasarena.benchmarks.nbgraph import DATASETS, PROTEINS
from nasarena.io.packaged import save_arrays
from nasarena.spaces.nbgraph.keys import NBGRAPH_FILE, NO_NETWORK, NUM_DRAWINGS, SPACE_FILE, decode, drawing_index
from nasarena.spaces.nbgraph.vocabulary import LINK_PATTERNS, NUM_NODES, OPERATIONS, PROTEINS_OPERATIONS

VERSION = "1.4.0"
#: The package's field of each embedded array (per dataset ``<dataset>_<suffix>``).
FIELDS = {"valid": "valid_perf", "test": "perf", "latency_s": "latency", "params_millions": "para"}


def read_package():
    """The package's module, its benches by dataset and the digest of the files they come from."""
    try:
        import nas_bench_graph
        from nas_bench_graph import architecture
    except ImportError:
        raise SystemExit(f"this script reads the package: pip install nas-bench-graph=={VERSION}") from None
    from importlib.metadata import version

    if version("nas-bench-graph") != VERSION:
        raise SystemExit(f"nas-bench-graph {version('nas-bench-graph')} is installed; this script reads {VERSION}")
    assert tuple(architecture.gnn_list) == OPERATIONS, architecture.gnn_list
    assert tuple(architecture.gnn_list_proteins) == PROTEINS_OPERATIONS, architecture.gnn_list_proteins
    assert tuple(map(tuple, architecture.link_list)) == LINK_PATTERNS, architecture.link_list
    folder = Path(nas_bench_graph.__file__).parent / "light"
    digest = hashlib.sha256()
    for dataset in DATASETS:
        digest.update((folder / f"{dataset}.bench").read_bytes())
    benches = {dataset: nas_bench_graph.light_read(dataset) for dataset in DATASETS}
    return architecture, benches, digest.hexdigest()


def drawing_rows(architecture, keys: list[int]) -> np.ndarray:
    """The package's key of every drawing, as the row of that key (``NO_NETWORK`` where unmeasured)."""
    row_of = {key: row for row, key in enumerate(keys)}
    rows = np.full(NUM_DRAWINGS, NO_NETWORK, dtype=np.uint16)
    inputs = itertools.product(*(range(node) for node in range(2, NUM_NODES + 1)))
    for links in ((0, *chosen) for chosen in inputs):
        for ops in itertools.product(OPERATIONS, repeat=NUM_NODES):
            key = architecture.Arch(list(links), list(ops)).valid_hash()
            rows[drawing_index(links, ops)] = row_of.get(key, NO_NETWORK)
    unmeasured = int((rows == NO_NETWORK).sum())
    assert unmeasured == 24, f"{unmeasured} drawings have no measured key (expected the 24 all-skip ones)"
    return rows


def build() -> None:
    architecture, benches, digest = read_package()
    keys = sorted(benches[DATASETS[0]])
    for dataset in DATASETS:
        if dataset != PROTEINS:
            assert sorted(benches[dataset]) == keys, f"{dataset} measures other networks than {DATASETS[0]}"
    proteins_keys = sorted(benches[PROTEINS])
    assert set(proteins_keys) <= set(keys), "proteins measures networks the other datasets do not"
    for key in keys:
        links, ops = decode(key)
        assert architecture.Arch(list(links), list(ops)).valid_hash() == key, f"key {key} is no representative"
    provenance = (f"nas-bench-graph {VERSION} from PyPI (THUMNLab/NAS-Bench-Graph, Apache-2.0), "
                  f"nas_bench_graph/light/<dataset>.bench (sha256 of the {len(DATASETS)} files in dataset order: "
                  f"{digest[:16]}...) and architecture.py; Qin et al., NAS-Bench-Graph: Benchmarking Graph Neural "
                  "Architecture Search, NeurIPS 2022 Datasets and Benchmarks; built by scripts/build_nbgraph_data.py")
    space = {"keys": np.array(keys, dtype=np.int32), "proteins_keys": np.array(proteins_keys, dtype=np.int32),
             "rows": drawing_rows(architecture, keys)}
    entry = save_arrays(
        SPACE_FILE, space,
        description=(f"NAS-Bench-Graph space: the package keys (Arch.valid_hash) of its {len(keys):,} measured GNNs in "
                     f"ascending order (proteins: {len(proteins_keys):,}), and for each of the {NUM_DRAWINGS:,} "
                     f"drawings (inputs of nodes 2-4, operations of nodes 1-4) the row of its key ({NO_NETWORK}: the "
                     "all-skip drawings, which have no network)"),
        provenance=provenance)
    print(f"wrote {SPACE_FILE}: {entry.size:,} bytes, sha256 {entry.sha256}")
    measurements = {}
    for dataset in DATASETS:
        rows = proteins_keys if dataset == PROTEINS else keys
        for suffix, field in FIELDS.items():
            values = np.array([float(benches[dataset][key][field]) for key in rows], dtype=np.float64)
            assert np.isfinite(values).all(), f"{dataset} {field} has missing values"
            measurements[f"{dataset}_{suffix}"] = values
    entry = save_arrays(
        NBGRAPH_FILE, measurements,
        description=(f"NAS-Bench-Graph measurements per dataset ({', '.join(DATASETS)}) in the row order of "
                     f"{SPACE_FILE}'s keys (proteins: proteins_keys): each network's validation and test performance, "
                     "inference latency (seconds) and parameters (millions) as the package gives them (float64)"),
        provenance=provenance)
    print(f"wrote {NBGRAPH_FILE}: {entry.size:,} bytes, sha256 {entry.sha256}")


if __name__ == "__main__":
    build()
