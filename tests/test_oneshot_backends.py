"""One-shot searches give the same records for a seed on every backend and worker count: a local
process pool of two and Ray tasks (the default one torch thread per search makes CPU sums
identical), at the tiny scale of tests/test_oneshot_optimizers.py on real CIFAR-10."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("ray")

from typer.testing import CliRunner

from nasarena.cli.main import app
from nasarena.errors import DataFileError
from nasarena.oneshot import read_records


def _records(out, optimizer):
    return [{k: v for k, v in r.to_dict().items() if not k.endswith("seconds")}
            for r in read_records(out / optimizer / "seed-0")]


def test_process_pool_and_ray_give_identical_searches(tmp_path):
    from nasarena.training.data import load_cifar10

    try:
        load_cifar10(image_size=16, subset=20)
    except DataFileError as error:
        pytest.skip(f"CIFAR-10 not available: {error}")
    # looked up in nb101-lite: its table loads in a fifth of nb101-noisy's time, in every worker
    common = ["oneshot", "run", "--space", "nb1shot1-1", "--optimizers", "random-ws,gdas", "--quick", "--seeds", "0",
              "--set", "epochs=1", "--set", "cells_per_stack=1", "--set", "subset=20", "--benchmark", "nb101-lite"]
    runner = CliRunner()
    alone = runner.invoke(app, [*common, "--out", str(tmp_path / "alone")])
    assert alone.exit_code == 0, alone.output
    pool = runner.invoke(app, [*common, "--workers", "2", "--out", str(tmp_path / "pool")])
    assert pool.exit_code == 0, pool.output
    ray = runner.invoke(app, [*common, "--workers", "2", "--backend", "ray", "--out", str(tmp_path / "ray")])
    assert ray.exit_code == 0, ray.output
    for optimizer in ("random-ws", "gdas"):
        expected = _records(tmp_path / "alone", optimizer)
        assert len(expected) == 1 and expected[0]["nb101_hash"]
        assert _records(tmp_path / "pool", optimizer) == expected
        assert _records(tmp_path / "ray", optimizer) == expected
    refused = runner.invoke(app, [*common, "--backend", "dask", "--out", str(tmp_path / "x")])
    assert refused.exit_code == 2 and "--backend must be one of process, ray" in refused.output
