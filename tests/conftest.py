"""Shared fixtures: the real benchmark data in ../shared/data (see its README)."""

import json
import signal
from pathlib import Path

import numpy as np
import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
NB101_SLICES = {"nb101-slice-0-20000.json": 0, "nb101-slice-36202-46201.json": 36202}

# The Ctrl-C tests send SIGINT to the processes they start. A shell without job control starts
# background jobs with SIGINT ignored, and an ignored signal stays ignored across exec, so a suite
# launched that way (``bash .ci/run &``) would see its commands ignore Ctrl-C. Python's own handler
# here makes every process a test starts begin with SIGINT at its default, whatever the launcher did.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"real data not found at {path}")
    return path


@pytest.fixture(scope="session")
def nb101_slices() -> list[tuple[int, dict]]:
    """(first sorted-hash position, columns) of the two real NB101 slices."""
    return [
        (start, json.loads(_require(SHARED_DATA / "nb101" / name).read_text()))
        for name, start in NB101_SLICES.items()
    ]


@pytest.fixture()
def rng() -> np.random.Generator:
    return np.random.default_rng(20191)


@pytest.fixture(scope="session")
def lite():
    """The embedded nb101-lite benchmark, loaded once for the whole session."""
    import nasarena

    return nasarena.benchmark("nb101-lite")


@pytest.fixture(scope="session")
def nb201():
    """The embedded NB201 CIFAR-10 benchmark, loaded once for the whole session."""
    import nasarena

    return nasarena.benchmark("nb201-cifar10")


@pytest.fixture(scope="session")
def nb201_paths(nb201) -> tuple[np.ndarray, np.ndarray]:
    """Path encodings (float32) and validation accuracies of 700 distinct random NB201 cells
    (seed 7): the data of BANANAS' predictor tests."""
    rng = np.random.default_rng(7)
    chosen: dict = {}
    while len(chosen) < 700:
        cell = nb201.space.sample(rng)
        chosen.setdefault(nb201.space.identity(cell), cell)
    cells = list(chosen.values())
    x = np.stack([nb201.space.encode(c, "path") for c in cells]).astype(np.float32)
    return x, np.array([nb201.query(c).valid_accuracy for c in cells])


def write_batches_folder(root: Path) -> Path:
    """A tiny synthetic ``cifar-10-batches-py`` folder in the official pickles' layout: 5 training
    batches and a test batch of 50 images each (5 per class); what the training tests read where
    real images are not needed (reader layout, resumption, stores)."""
    import pickle

    folder = root / "cifar-10-batches-py"
    folder.mkdir()
    rng = np.random.default_rng(0)
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        labels = np.tile(np.arange(10), 5)
        images = rng.integers(0, 256, size=(50, 3 * 32 * 32), dtype=np.uint8)
        with open(folder / name, "wb") as stream:
            pickle.dump({b"labels": labels.tolist(), b"data": images}, stream)
    return folder


@pytest.fixture(scope="module")
def cifar_folder(tmp_path_factory) -> Path:
    """:func:`write_batches_folder` once per test module: 200 train, 50 valid, 50 test images."""
    return write_batches_folder(tmp_path_factory.mktemp("cifar"))
