"""analysis.rank_transfer on NAS-Bench-Graph's real tables: pairs matched by identity key."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import nasarena
from nasarena.analysis.rank_transfer import by_identity, rank_transfer, self_agreement
from nasarena.errors import InvalidSettingError


@pytest.fixture(scope="module")
def tables():
    return {name: by_identity(nasarena.benchmark(f"nbgraph-{name}")) for name in ("cora", "citeseer", "proteins")}


def test_pairs_are_matched_by_key_and_symmetric(tables):
    transfer = rank_transfer(tables)
    assert transfer.common.tolist() == [[26206, 26206, 2021], [26206, 26206, 2021], [2021, 2021, 2021]]
    assert np.array_equal(transfer.spearman, transfer.spearman.T) and np.array_equal(transfer.kendall, transfer.kendall.T)
    # proteins' networks are a subset of cora's: the pair is computed on exactly those, whatever the order
    shared = sorted(tables["proteins"])
    expected = stats.spearmanr([tables["cora"][k] for k in shared], [tables["proteins"][k] for k in shared]).statistic
    assert transfer.pair("proteins", "cora")[0] == pytest.approx(expected, abs=1e-12)
    # the citation graphs agree far more than either does with proteins
    assert transfer.pair("cora", "citeseer")[0] > 0.6 > 0.2 > abs(transfer.pair("cora", "proteins")[0])


def test_validation_ranks_test_better_on_citeseer_than_on_proteins():
    citeseer = self_agreement(nasarena.benchmark("nbgraph-citeseer"))
    proteins = self_agreement(nasarena.benchmark("nbgraph-proteins"))
    assert citeseer[0] > 0.9 and 0.3 < proteins[0] < 0.7 and citeseer[1] < citeseer[0]


def test_refusals(tables):
    with pytest.raises(InvalidSettingError, match="two tables or more"):
        rank_transfer({"cora": tables["cora"]})
    with pytest.raises(InvalidSettingError, match="share 1 architectures"):
        rank_transfer({"a": {"x": 1.0, "y": 2.0}, "b": {"x": 1.0, "z": 3.0}})
