"""Zero-cost proxies (issue 32): each proxy against a hand-checkable network, the baselines against
the spaces' exact counts, determinism per seed, foreign architectures refused, and the table's
resumption after ``kill -9`` and refusal of other settings."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

from nasarena.errors import InvalidArchitectureError, InvalidSettingError, OutputError, UnknownNameError  # noqa: E402
from nasarena.estimators import PROXIES, Probe, compute_proxies  # noqa: E402
from nasarena.estimators.jacob_cov import K  # noqa: E402
from nasarena.estimators.naswot import hamming_kernel  # noqa: E402
from nasarena.spaces.nb101 import Cell  # noqa: E402
from nasarena.spaces.nb201 import cell_at, flops, trainable_parameters  # noqa: E402
from nasarena.studies.estimator_table import compute_table, read_settings  # noqa: E402

TINY_NB201 = {"channels": 4, "cells_per_stage": 1}
TINY_ARGS = ["--image-size", "8", "--scale", "channels=4", "--scale", "cells_per_stage=1"]
NB101_CELL = Cell([[0, 1, 1, 0, 0, 1, 0], [0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0], [0, 0, 0, 0, 0, 1, 0],
                   [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0]],
                  ["input", "conv3x3-bn-relu", "conv1x1-bn-relu", "maxpool3x3", "conv3x3-bn-relu",
                   "conv3x3-bn-relu", "output"])


def probe_of(network: nn.Module, images: torch.Tensor, labels: torch.Tensor | None = None, *, space: str = "nb201",
             seed: int = 0) -> Probe:
    """A probe whose network is a copy of ``network`` (the proxies change weights)."""
    state = {key: value.clone() for key, value in network.state_dict().items()}

    def build() -> nn.Module:
        network.load_state_dict(state)
        return network.train()

    labels = torch.zeros(len(images), dtype=torch.int64) if labels is None else labels
    return Probe(space=space, build=build, images=images, labels=labels, image_size=images.shape[-1], seed=seed,
                 device=torch.device("cpu"))


def linear_classifier(inputs: int, classes: int, seed: int = 0) -> nn.Sequential:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Flatten(), nn.Linear(inputs, classes, bias=False)).double()


# -- each proxy against what can be worked out by hand ----------------------------------------------

def test_synflow_of_a_two_layer_linear_network_is_twice_its_path_sum():
    """Every weight's |W dR/dW| summed over a layer of a bias-free linear chain is R itself, so the
    two-layer network scores 2 R, R = 1' |W2| |W1| 1 on the all-ones input."""
    torch.manual_seed(3)
    network = nn.Sequential(nn.Flatten(), nn.Linear(3 * 2 * 2, 5, bias=False), nn.Linear(5, 4, bias=False))
    w1, w2 = (layer.weight.detach().double().abs() for layer in (network[1], network[2]))
    path_sum = float(torch.ones(4, dtype=torch.float64) @ w2 @ w1 @ torch.ones(12, dtype=torch.float64))
    score = PROXIES["synflow"].score(probe_of(network, torch.zeros(1, 3, 2, 2)))
    assert score == pytest.approx(2 * path_sum, rel=1e-12)


def test_naswot_kernel_and_score_on_three_inputs_by_hand():
    codes = torch.tensor([[1, 0, 1], [1, 1, 0], [0, 0, 1]])
    assert hamming_kernel(codes).tolist() == [[3, 1, 2], [1, 3, 0], [2, 0, 3]]
    # a one-layer ReLU network with codes [1,0,1], [0,1,1], [0,0,0]: K = 3 on the diagonal, 1 off it
    network = nn.Sequential(nn.Flatten(), nn.Linear(3, 3, bias=False), nn.ReLU())
    with torch.no_grad():
        network[1].weight.copy_(torch.tensor([[1.0, -1, 0], [-1, 1, 0], [1, 1, -3]]))
    images = torch.tensor([[1.0, 0, 0], [0, 1, 0], [1, 1, 1]]).reshape(3, 3, 1, 1)
    assert PROXIES["naswot"].score(probe_of(network, images)) == pytest.approx(math.log(20.0), rel=1e-12)


def test_snip_grad_norm_and_fisher_of_a_linear_classifier_by_its_closed_form_gradient():
    """For logits a = W x and the mean cross-entropy, dL/da = (softmax(a) - onehot(y)) / N and
    dL/dW = dL/da' x."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 3 * 2 * 2))
    y = np.array([0, 1, 2, 3, 0, 1])
    network = linear_classifier(12, 4)
    w = network[1].weight.detach().numpy().copy()
    a = x @ w.T
    p = np.exp(a - a.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    da = (p - np.eye(4)[y]) / len(x)
    dw = da.T @ x
    probe = probe_of(network, torch.from_numpy(x).reshape(6, 3, 2, 2), torch.from_numpy(y))
    assert PROXIES["snip"].score(probe) == pytest.approx(np.abs(w * dw).sum(), rel=1e-9)
    assert PROXIES["grad_norm"].score(probe) == pytest.approx(np.linalg.norm(dw), rel=1e-9)
    # the linear layer's fan-in (12 weights per output) weights each channel (the reference code's spread)
    assert PROXIES["fisher"].score(probe) == pytest.approx(12 * (0.5 * (a * da) ** 2).mean(axis=0).sum(), rel=1e-9)


def test_grasp_of_a_linear_classifier_equals_minus_w_times_the_full_hessian_times_g():
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.normal(size=(5, 3, 1, 1)))
    y = torch.tensor([0, 1, 2, 0, 1])
    network = linear_classifier(3, 3, seed=2)
    w = network[1].weight.detach().clone()

    def loss(flat: torch.Tensor) -> torch.Tensor:
        return nn.functional.cross_entropy(x.flatten(1) @ flat.reshape(3, 3).T, y)

    flat = w.flatten().requires_grad_()
    gradient = torch.autograd.grad(loss(flat), flat)[0]
    hessian = torch.autograd.functional.hessian(loss, w.flatten())
    expected = float(-(w.flatten() * (hessian @ gradient)).sum())
    assert PROXIES["grasp"].score(probe_of(network, x, y)) == pytest.approx(expected, rel=1e-9)


def test_jacob_cov_of_a_linear_network_whose_jacobians_are_all_equal():
    """Every image's Jacobian of a linear map is the column sums of W: the correlation matrix is
    all ones, with eigenvalues N and N - 1 zeros."""
    network = linear_classifier(12, 4)
    images = torch.from_numpy(np.random.default_rng(2).normal(size=(5, 3, 2, 2)))
    n = 5
    expected = -((math.log(n + K) + 1 / (n + K)) + (n - 1) * (math.log(K) + 1 / K))
    assert PROXIES["jacob_cov"].score(probe_of(network, images)) == pytest.approx(expected, rel=1e-6)


def test_zen_of_a_network_whose_features_are_its_input_is_the_log_mean_perturbation_distance():
    """With f(x) = x and no batch norm, zen = log mean_i sum |0.01 eps_i| (the reference code's L1)
    and zen_paper = log mean_i ||0.01 eps_i||_F (the paper's): the draws are the generator's
    (seeded by the probe), images first, then eps."""

    class Passthrough(nn.Module):
        def __init__(self):
            super().__init__()
            self.last = nn.Identity()

        def forward(self, x):
            return self.last(x).mean(dim=(2, 3))

    generator = torch.Generator().manual_seed(11)
    torch.randn((64, 3, 4, 4), generator=generator)
    eps = torch.randn((64, 3, 4, 4), generator=generator).double()
    probe = probe_of(Passthrough(), torch.zeros(1, 3, 4, 4), seed=11)
    assert PROXIES["zen"].score(probe) == pytest.approx(
        math.log(float((0.01 * eps).abs().flatten(1).sum(dim=1).mean())), rel=1e-5)
    assert PROXIES["zen_paper"].score(probe) == pytest.approx(
        math.log(float((0.01 * eps).flatten(1).norm(dim=1).mean())), rel=1e-5)


def test_zen_adds_the_log_running_deviation_after_two_passes_and_is_nan_only_without_input():
    """One BN on the identity: its running variance after the passes of x and x + 0.01 eps is
    0.81 + 0.09 var(x) + 0.1 var(x + 0.01 eps) (momentum 0.1, unbiased batch variances), the
    reference code's scaling. A network whose features ignore the input has zen NaN, not -inf."""

    class Normalised(nn.Module):
        def __init__(self):
            super().__init__()
            self.last = nn.BatchNorm2d(3)

        def forward(self, x):
            return self.last(x).mean(dim=(2, 3))

    generator = torch.Generator().manual_seed(3)
    x = torch.randn((64, 3, 4, 4), generator=generator)
    noisy = x + 0.01 * torch.randn((64, 3, 4, 4), generator=generator)
    network = Normalised().train()
    reference = Normalised().train()
    with torch.no_grad():
        first, second = reference.last(x).double(), reference.last(noisy).double()
    running = 0.81 + 0.09 * x.var(dim=(0, 2, 3), unbiased=True) + 0.1 * noisy.var(dim=(0, 2, 3), unbiased=True)
    expected = (math.log(float((first - second).abs().flatten(1).sum(dim=1).mean()))
                + math.log(math.sqrt(float(running.double().mean()))))
    assert PROXIES["zen"].score(probe_of(network, torch.zeros(1, 3, 4, 4), seed=3)) == pytest.approx(expected, rel=1e-4)

    class Constant(nn.Module):
        def __init__(self):
            super().__init__()
            self.last = nn.Identity()

        def forward(self, x):
            return self.last(x * 0).mean(dim=(2, 3))

    assert math.isnan(PROXIES["zen"].score(probe_of(Constant(), torch.zeros(1, 3, 4, 4))))
    assert math.isnan(PROXIES["zen_paper"].score(probe_of(Constant(), torch.zeros(1, 3, 4, 4))))


def test_fisher_weights_each_channel_by_its_fan_in_as_the_reference_code():
    """A 1x1 conv from 3 to 2 channels then a linear layer: fisher is the sum over both layers of
    the per-channel values times the weights per output channel (3 for the conv, 2 for the linear)."""
    torch.manual_seed(0)
    conv, linear = nn.Conv2d(3, 2, 1, bias=False).double(), nn.Linear(2, 4, bias=False).double()

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.linear = conv, linear

        def forward(self, x):
            return self.linear(self.conv(x).mean(dim=(2, 3)))

    images = torch.from_numpy(np.random.default_rng(4).normal(size=(5, 3, 2, 2)))
    labels = torch.tensor([0, 1, 2, 3, 0])
    a1 = conv(images).detach().requires_grad_()
    a2 = linear(a1.mean(dim=(2, 3)))
    a2.retain_grad()
    nn.functional.cross_entropy(a2, labels).backward()
    channel1 = 0.5 * ((a1.detach() * a1.grad).sum(dim=(2, 3)) ** 2).mean(dim=0)
    channel2 = 0.5 * ((a2.detach() * a2.grad) ** 2).mean(dim=0)
    expected = float(channel1.sum() * 3 + channel2.sum() * 2)
    assert PROXIES["fisher"].score(probe_of(Net(), images, labels)) == pytest.approx(expected, rel=1e-9)


def test_params_and_flops_equal_the_nb201_and_nb101_exact_counts():
    from nasarena.spaces.nb101.parameters import trainable_parameters as nb101_parameters

    for row in (0, 1462, 15624):
        cell = cell_at(row)
        result = compute_proxies("nb201", cell, ["params", "flops"])
        assert result.values["params"] == trainable_parameters(cell)
        assert result.values["flops"] == flops(cell)
        assert set(result.seconds) == {"params", "flops"} and all(s > 0 for s in result.seconds.values())
    result = compute_proxies("nb101", NB101_CELL, ["params"], scale={"stem_channels": 16})
    assert result.values["params"] == nb101_parameters(NB101_CELL, stem_channels=16)


# -- the exact networks: determinism, every space, refusals ------------------------------------------

def tiny_batch(seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(128, 3, 8, 8, generator=generator), torch.randint(0, 10, (128,), generator=generator)


def test_every_proxy_is_deterministic_per_seed_and_changes_with_it():
    images, labels = tiny_batch()
    names = list(PROXIES)
    changing = ["snip", "grad_norm", "naswot", "zen", "synflow"]
    runs = [compute_proxies("nb201", cell_at(1462), chosen, images=images, labels=labels, seed=seed, scale=TINY_NB201)
            for seed, chosen in ((5, names), (5, names), (6, changing))]
    for name in names:
        assert runs[0].values[name] == pytest.approx(runs[1].values[name], rel=1e-9, abs=1e-12), name
        assert np.isfinite(runs[0].values[name]), name
    assert all(runs[0].values[name] != pytest.approx(runs[2].values[name], rel=1e-6) for name in changing)
    assert set(runs[0].seconds) == set(names)


def test_nb101_and_darts_networks_give_finite_proxies():
    images, labels = tiny_batch(1)
    darts = ("Genotype(normal=[('sep_conv_3x3', 0), ('skip_connect', 1), ('dil_conv_3x3', 0), ('max_pool_3x3', 1), "
             "('sep_conv_5x5', 2), ('avg_pool_3x3', 0), ('skip_connect', 3), ('dil_conv_5x5', 2)], "
             "normal_concat=[2, 3, 4, 5], reduce=[('max_pool_3x3', 0), ('sep_conv_3x3', 1), ('skip_connect', 2), "
             "('avg_pool_3x3', 1), ('dil_conv_3x3', 0), ('sep_conv_5x5', 2), ('skip_connect', 2), "
             "('max_pool_3x3', 1)], reduce_concat=[2, 3, 4, 5])")
    for space, arch, scale in (("nb101", NB101_CELL, {"stem_channels": 4, "stacks": 2, "cells_per_stack": 1}),
                               ("darts", darts, {"channels": 4, "layers": 3})):
        result = compute_proxies(space, arch, list(PROXIES), images=images, labels=labels, scale=scale)
        assert all(np.isfinite(value) for value in result.values.values()), (space, dict(result.values))


def test_an_architecture_of_another_space_is_refused_naming_both():
    with pytest.raises(InvalidArchitectureError, match="nb201 proxies score nb201 .* nb101"):
        compute_proxies("nb201", NB101_CELL, ["params"])
    with pytest.raises(InvalidArchitectureError, match="does not parse"):
        compute_proxies("nb101", cell_at(0).to_string(), ["params"])
    with pytest.raises(UnknownNameError, match="zero-cost proxy"):
        compute_proxies("nb201", cell_at(0), ["synflo"])
    with pytest.raises(InvalidSettingError, match="read 64 images"):
        compute_proxies("nb201", cell_at(0), ["snip"])


# -- the table: resumption after kill -9, other settings refused ---------------------------------------

def test_compute_resumes_after_kill_9_and_refuses_other_settings(tmp_path, cifar_folder):
    out = tmp_path / "proxies.parquet"
    command = [sys.executable, "-m", "nasarena.cli.main", "estimators", "compute", "--space", "nb201", "--proxies",
               "params,naswot", "--out", str(out), "--sample", "24", "--seed", "3", "--data",
               str(cifar_folder), "--device", "cpu", *TINY_ARGS]
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "NASARENA_PROGRESS": "0"}
    process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not out.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
    finally:
        process.wait()
    import pandas as pd

    before = pd.read_parquet(out)
    assert 0 < len(before) < 24 and read_settings(out)["complete"] is False, "killed before the first chunk or after all"
    frame = compute_table("nb201", ["params", "naswot"], out, sample=24, seed=3, device="cpu",
                          data=cifar_folder, image_size=8, scale=TINY_NB201)
    assert len(frame) == 24 and frame["arch"].is_unique and read_settings(out)["complete"] is True
    assert frame["row"].is_monotonic_increasing and read_settings(out)["provenance"]["torch"] == torch.__version__
    kept = frame.set_index("arch").loc[before["arch"]]
    # the rows written before the kill were read back, not computed again (their measured seconds stay)
    assert np.array_equal(kept["naswot_seconds"].to_numpy(), before["naswot_seconds"].to_numpy())
    content = out.read_bytes()
    with pytest.raises(OutputError, match="other settings .*seed"):
        compute_table("nb201", ["params", "naswot"], out, sample=24, seed=4, device="cpu",
                      data=cifar_folder, image_size=8, scale=TINY_NB201)
    assert out.read_bytes() == content


def test_a_table_stopped_and_resumed_holds_the_architectures_of_one_that_ran_on(tmp_path):
    """The seeded order is the plan's: stops between chunks do not change which architectures the
    first chunks are, so a table stopped early many times is the same sample as one stopped once."""
    import pandas as pd

    class Stop(Exception):
        pass

    def stop_after(chunks):
        seen = []

        def on_chunk(done, planned):
            seen.append(done)
            if len(seen) == chunks:
                raise Stop
        return on_chunk

    options = dict(sample=40, seed=7, device="cpu", image_size=8, scale=TINY_NB201)
    with pytest.raises(Stop):
        compute_table("nb201", ["params"], tmp_path / "once.parquet", on_chunk=stop_after(3), **options)
    for _ in range(3):
        with pytest.raises(Stop):
            compute_table("nb201", ["params"], tmp_path / "thrice.parquet", on_chunk=stop_after(1), **options)
    once, thrice = pd.read_parquet(tmp_path / "once.parquet"), pd.read_parquet(tmp_path / "thrice.parquet")
    assert len(once) == 24 and once["arch"].tolist() == thrice["arch"].tolist()


def test_a_table_beside_another_computes_only_what_the_other_lacks_and_together_they_are_the_plan(tmp_path):
    """--beside: the architectures of a table of the same settings (computed elsewhere) are left out,
    the values of the rest are those of one table computed alone, and a table of other settings,
    no table, or --out itself is refused."""
    import pandas as pd

    from nasarena.errors import DataFileError, InvalidSettingError
    from nasarena.io.settings_parquet import write_with_settings
    from nasarena.studies.estimator_table import METADATA_KEY

    options = dict(sample=12, seed=5, device="cpu", image_size=8, scale=TINY_NB201)
    whole = compute_table("nb201", ["params", "synflow"], tmp_path / "whole.parquet", **options)
    elsewhere = tmp_path / "elsewhere.parquet"
    held = whole.iloc[::3]
    write_with_settings(elsewhere, held, {**read_settings(tmp_path / "whole.parquet"), "complete": False},
                        METADATA_KEY)
    share = compute_table("nb201", ["params", "synflow"], tmp_path / "share.parquet", beside=elsewhere, **options)
    assert set(share["arch"]).isdisjoint(held["arch"]) and len(share) + len(held) == 12
    assert read_settings(tmp_path / "share.parquet")["complete"] is True
    together = pd.concat([share, held]).set_index("arch").loc[whole["arch"]].reset_index()
    columns = ["arch", "row", "params", "synflow"]
    pd.testing.assert_frame_equal(together[columns], whole[columns], check_exact=True)
    other = tmp_path / "other.parquet"
    write_with_settings(other, held, {**read_settings(elsewhere), "seed": 6}, METADATA_KEY)
    with pytest.raises(DataFileError, match="other settings .*seed"):
        compute_table("nb201", ["params", "synflow"], tmp_path / "x.parquet", beside=other, **options)
    with pytest.raises(DataFileError, match="is not a file"):
        compute_table("nb201", ["params", "synflow"], tmp_path / "x.parquet", beside=tmp_path / "none", **options)
    with pytest.raises(InvalidSettingError, match="is --out itself"):
        compute_table("nb201", ["params", "synflow"], tmp_path / "share.parquet", beside=tmp_path / "share.parquet",
                      **options)
    assert not (tmp_path / "x.parquet").exists()


def test_cli_refuses_an_unknown_proxy_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from nasarena.cli.main import app

    result = CliRunner().invoke(app, ["estimators", "compute", "--space", "nb201", "--proxies", "synflow,naswt",
                                      "--out", str(tmp_path / "t.parquet"), "--sample", "2"])
    assert result.exit_code == 2 and "error: unknown zero-cost proxy 'naswt'" in result.output
    assert not (tmp_path / "t.parquet").exists()


# -- evaluation: the supernet metrics on a computed table ---------------------------------------------

def test_evaluate_a_computed_table_against_nb201(tmp_path):
    from scipy import stats
    from typer.testing import CliRunner

    from nasarena.cli.main import app
    from nasarena.studies.estimator_evaluation import benchmark_truth, evaluate_proxies, ranked_values

    out = tmp_path / "table.parquet"
    frame = compute_table("nb201", ["params", "synflow"], out, sample=30, seed=2, device="cpu", image_size=8,
                          scale=TINY_NB201)
    truth = benchmark_truth("nb201-cifar10", frame, "nb201")
    metrics = evaluate_proxies(frame, truth, [3, 30]).set_index("proxy")
    for proxy in ("params", "synflow"):
        assert metrics.loc[proxy, "spearman"] == pytest.approx(stats.spearmanr(truth, frame[proxy]).statistic)
        assert metrics.loc[proxy, "a1@30"] == pytest.approx(1.0)  # k = N: every architecture is in both sets
        assert metrics.loc[proxy, "random@3"] == pytest.approx(3 / 30)
        assert metrics.loc[proxy, "seconds"] == pytest.approx(frame[f"{proxy}_seconds"].mean())
    assert ranked_values([2.0, float("nan"), -float("inf"), 1.0]).tolist() == [2.0, 0.0, 0.0, 1.0]
    result = CliRunner().invoke(app, ["estimators", "evaluate", "--table", str(out), "--ks", "3,10", "--no-surrogate"])
    assert result.exit_code == 0, result.output
    assert "nb201-cifar10:" in result.output and "synflow" in result.output and "train-12ep" in result.output


# -- one torch thread per architecture: the same table for every worker count ------------------------

def test_jobs_1_and_2_give_the_same_table_and_the_callers_threads_are_restored(tmp_path, cifar_folder):
    """``--jobs 1`` computes in this process, which here runs 2 torch threads; the table is
    computed on one thread anyway, so its values are the same bits as 2 workers' (a table resumed
    with another --jobs stays one table)."""
    import pandas as pd

    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        options = dict(sample=6, seed=1, device="cpu", data=cifar_folder, image_size=8, scale=TINY_NB201)
        here = compute_table("nb201", ["synflow", "grad_norm"], tmp_path / "one.parquet", jobs=1, **options)
        assert torch.get_num_threads() == 2
        workers = compute_table("nb201", ["synflow", "grad_norm"], tmp_path / "two.parquet", jobs=2, **options)
    finally:
        torch.set_num_threads(threads)
    columns = ["arch", "row", "synflow", "grad_norm"]
    pd.testing.assert_frame_equal(here[columns], workers[columns], check_exact=True)


def test_unique_sample_draws_one_cell_per_class_of_the_benchmarks_deduplication():
    from nasarena.spaces.nb201 import NUM_UNIQUE, unique_cells
    from nasarena.studies.estimator_table import plan

    representatives = unique_cells()
    drawn = plan("nb201", 400, 5, unique=True)
    rows = [row for _, row in drawn]
    assert len(set(rows)) == 400 and all(representatives[row] == row for row in rows)
    # without --unique, 400 draws of the 15,625 cells hit some non-representatives
    assert any(representatives[row] != row for _, row in plan("nb201", 400, 5))
    assert len(plan("nb201", None, 0, unique=True)) == NUM_UNIQUE
    with pytest.raises(InvalidSettingError, match="larger than the unique architectures"):
        plan("nb201", NUM_UNIQUE + 1, 0, unique=True)
    with pytest.raises(InvalidSettingError, match="no benchmark de-duplication"):
        plan("nb101", 5, 0, unique=True)


# -- the embedded table: checksum, provenance, reproduced rows; the side-by-side evaluation -------------

def test_embedded_table_matches_its_manifest_and_three_rows_recompute():
    import hashlib

    from nasarena.estimators import embedded_table
    from nasarena.io.packaged import NB201_PROXIES_FILE, data_dir, read_manifest
    from nasarena.spaces.nb201 import unique_cells

    entry = read_manifest()[NB201_PROXIES_FILE]
    assert hashlib.sha256((data_dir() / NB201_PROXIES_FILE).read_bytes()).hexdigest() == entry.sha256
    assert "torch" in entry.provenance and "commit" in entry.provenance and "seed 0" in entry.provenance
    frame = embedded_table("nb201")
    settings = frame.attrs["settings"]
    assert settings["unique"] and settings["sample"] is None and settings["proxies"] == ["params", "flops", "synflow"]
    assert len(frame) == 6466  # every unique NB201 architecture
    rows = frame["row"].to_numpy(dtype=np.int64)
    assert np.all(unique_cells()[rows] == rows) and np.all(np.diff(rows) > 0)
    picked = np.random.default_rng(0).choice(len(frame), size=3, replace=False)
    for position in picked:
        stored = frame.iloc[position]
        result = compute_proxies("nb201", stored["arch"], settings["proxies"], seed=settings["seed"],
                                 image_size=settings["image_size"])
        assert result.values["params"] == stored["params"] and result.values["flops"] == stored["flops"]
        # float64 sums over ~1M weights: another CPU may order them differently
        assert result.values["synflow"] == pytest.approx(stored["synflow"], rel=1e-9)


def test_evaluate_puts_every_estimator_side_by_side_on_the_embedded_table(tmp_path):
    import pandas as pd
    from scipy import stats
    from typer.testing import CliRunner

    import nasarena
    from nasarena.cli.main import app
    from nasarena.estimators import embedded_table

    out = tmp_path / "report"
    result = CliRunner().invoke(app, ["estimators", "evaluate", "--benchmarks", "nb201-cifar100", "--no-surrogate",
                                      "--ks", "10,50", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "train-12ep" in result.output and "gdas-supernet@249" in result.output and "other labels" in result.output
    metrics = pd.read_csv(out / "metrics.csv").set_index("estimator")
    assert list(metrics.index) == ["params", "flops", "synflow", "train-12ep", "gdas-supernet@249"]
    frame = embedded_table("nb201")
    bench = nasarena.benchmark("nb201-cifar100")
    rows = frame["row"].to_numpy(dtype=np.int64)
    truth = np.asarray(bench.mean_over_trials("valid_accuracy"))[rows]
    short = np.asarray(bench.mean_over_trials("valid_accuracy", 12))[rows]
    assert metrics.loc["train-12ep", "spearman"] == pytest.approx(stats.spearmanr(truth, short).statistic)
    assert metrics.loc["train-12ep", "seconds"] == pytest.approx(
        np.mean(np.asarray(bench.mean_over_trials("cost_seconds", 12))[rows]))
    assert metrics.loc["synflow", "seconds"] == pytest.approx(frame["synflow_seconds"].mean())
    assert np.isnan(metrics.loc["gdas-supernet@249", "seconds"]) and (metrics["n"] == len(frame)).all()
    assert metrics.loc["params", "random@50"] == pytest.approx(50 / len(frame))
    page = (out / "report.html").read_text()
    assert "Quality against cost" in page and "data:image/png;base64," in page
    assert (out / "figures" / "quality-vs-cost.pdf").is_file()
    refused = CliRunner().invoke(app, ["estimators", "evaluate", "--benchmarks", "nb201-cifar10,nb101-lite",
                                       "--no-surrogate"])
    assert refused.exit_code == 2 and "error:" in refused.output
    # alone, an NB101 benchmark judges the embedded NB101 table, beside its lower fidelities where it has them
    nb101 = CliRunner().invoke(app, ["estimators", "evaluate", "--benchmarks", "nb101-slice", "--ks", "10"])
    assert nb101.exit_code == 0, nb101.output
    assert "500 architectures of nb101 (the embedded table" in nb101.output and "train-36ep" in nb101.output
