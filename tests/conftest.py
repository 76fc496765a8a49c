"""Shared fixtures: the real benchmark data in ../shared/data (see its README)."""

import json
from pathlib import Path

import numpy as np
import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
NB101_SLICES = {"nb101-slice-0-20000.json": 0, "nb101-slice-36202-46201.json": 36202}


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
