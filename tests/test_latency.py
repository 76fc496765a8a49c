"""The embedded latency data (issue 31): NB201 on 27 device settings, the FBNet table, Kendall's tau.

Checked against the real CSVs of ../shared/data/latency (skipped where absent) and against
HW-NAS-Bench's published example (row 0 of the CIFAR-10 network).
"""

import hashlib
import shutil

import numpy as np
import pandas as pd
import pytest

import nasarena
from conftest import SHARED_DATA
from nasarena.analysis.hardware import latency_kendall_matrix
from nasarena.benchmarks.fbnet import load as load_fbnet
from nasarena.benchmarks.latency import device_setting
from nasarena.errors import InvalidArchitectureError, InvalidSettingError
from nasarena.io.packaged import (
    FBNET_LATENCY_FILE,
    NB201_LATENCY_FILE,
    DataIntegrityError,
    data_dir,
    load_arrays,
    read_manifest,
)
from nasarena.spaces.fbnet import FBNetArch
from nasarena.spaces.nb201 import cell_at

LATENCY = SHARED_DATA / "latency"
#: HW-NAS-Bench's README: cell 0 of the CIFAR-10 network (its query_by_index(0, "cifar10")).
HW_NAS_BENCH_CELL0 = {"pixel3": 3.6058499999999998, "raspi4": 10.481976820010459, "eyeriss": 3.645620000000001,
                      "fpga": 2.57296}
#: The additive FBNet model's 5-fold held-out RMSE (ms) measured by scripts/build_latency_data.py,
#: rounded up with a margin of about 25 %: the fitted table must not get worse than this.
FBNET_RMSE_BOUND = {"1080ti_1": 0.3, "titan_rtx_1": 0.06, "titanxp_64": 0.09, "gold_6240": 1.1, "silver_4210r": 0.4,
                    "pixel2": 4.5, "samsung_s7": 15.2}


def _require(path):
    if not path.exists():
        pytest.skip(f"real data not found at {path}")
    return path


@pytest.fixture(scope="module")
def cifar10():
    return nasarena.benchmark("nb201-cifar10")


@pytest.fixture(scope="module")
def nb201_csv():
    return pd.read_csv(_require(LATENCY / "nb201-latency-ms-27devices.csv"))


@pytest.fixture(scope="module")
def fbnet_csv():
    return pd.read_csv(_require(LATENCY / "fbnet-latency-ms-27devices-5000archs.csv"))


def test_cell0_is_hw_nas_bench_cifar10_network(cifar10):
    for device, published in HW_NAS_BENCH_CELL0.items():
        assert cifar10.latency(0, device) == pytest.approx(published, rel=1e-6)
        assert cifar10.latency(cell_at(0), device) == cifar10.latency(cell_at(0).to_string(), device)


def test_every_cell_and_device_equals_the_csv(cifar10, nb201_csv):
    assert nb201_csv["arch_str"].tolist()[:50] == [cell_at(i).to_string() for i in range(50)]
    assert list(cifar10.devices) == [c for c in nb201_csv.columns if c not in ("nb201_index", "arch_str")]
    assert len(cifar10.devices) == 27
    for device in cifar10.devices:
        np.testing.assert_allclose(cifar10.latency_column(device), nb201_csv[device].to_numpy(), rtol=1e-6)
    row = 11000  # a cell HELP's paper reports at 3.9 ms on eyeriss
    assert cifar10.latency(nb201_csv["arch_str"][row], "eyeriss") == pytest.approx(3.89138, rel=1e-6)


def test_table_is_checksummed_and_a_corrupt_copy_refused(tmp_path):
    for name in (NB201_LATENCY_FILE, FBNET_LATENCY_FILE):
        entry = read_manifest()[name]
        assert hashlib.sha256((data_dir() / name).read_bytes()).hexdigest() == entry.sha256
        assert "HELP" in entry.provenance and "HW-NAS-Bench" in entry.provenance
    for name in ("manifest.json", NB201_LATENCY_FILE):
        shutil.copy(data_dir() / name, tmp_path / name)
    content = bytearray((tmp_path / NB201_LATENCY_FILE).read_bytes())
    content[len(content) // 2] ^= 0xFF
    (tmp_path / NB201_LATENCY_FILE).write_bytes(bytes(content))
    with pytest.raises(DataIntegrityError, match="corrupted"):
        load_arrays(NB201_LATENCY_FILE, tmp_path)


def test_unknown_device_names_the_close_ones_and_all(cifar10):
    with pytest.raises(InvalidSettingError, match=r"unknown device 'pixel4'.*did you mean pixel3.*available: 1080ti_1"):
        cifar10.latency(0, "pixel4")
    with pytest.raises(InvalidSettingError, match="unknown device"):
        cifar10.latency_column("titanx_64")  # a batch size of the FBNet data, not of NB201's


def test_other_datasets_serve_the_cifar10_latency_as_modelled(cifar10):
    assert cifar10.modelled_objectives == frozenset()
    described = cifar10.describe()
    assert "CIFAR-10 network" in described.real and "simulator estimates" in described.real
    assert "batch 1/32/256" in described.real and "latency" not in described.modelled
    for dataset in ("cifar100", "imagenet16-120"):
        other = nasarena.benchmark(f"nb201-{dataset}")
        assert other.modelled_objectives == frozenset({"latency"})
        assert other.latency(123, "raspi4") == cifar10.latency(123, "raspi4")
        assert "CIFAR-10 network" in other.describe().modelled and "latency" not in other.describe().real
    assert "16x16" in other.describe().modelled


def test_device_settings_say_batch_and_source():
    assert device_setting("titanx_32").batch_size == 32 and device_setting("titanx_32").kind == "desktop GPU"
    assert device_setting("essential_ph_1").kind == "phone" and device_setting("essential_ph_1").batch_size is None
    assert device_setting("eyeriss").simulated and device_setting("fpga").simulated
    assert not device_setting("pixel3").simulated and device_setting("pixel3").source == "HW-NAS-Bench"
    assert device_setting("titan_rtx_256").batch_size == 256 and device_setting("pixel3").batch_size is None


def test_fbnet_table_is_exact_on_hw_nas_bench_devices_and_bounded_elsewhere(fbnet_csv):
    fbnet = load_fbnet()
    archs = [fbnet.arch(text) for text in fbnet_csv["arch_str"]]  # parsed once, queried per device
    assert list(fbnet.devices) == [c for c in fbnet_csv.columns if c not in ("idx", "arch_str", "op_idx_list")]
    for device in HW_NAS_BENCH_CELL0:  # HW-NAS-Bench sums per-block measurements: the sum is exact
        np.testing.assert_allclose(fbnet.latency_batch(archs, device), fbnet_csv[device], atol=1e-6)
    rmse = dict(zip(fbnet.devices, fbnet.held_out["cv_rmse_ms"]))
    for device, bound in FBNET_RMSE_BOUND.items():
        error = fbnet.latency_batch(archs, device) - fbnet_csv[device].to_numpy()
        in_sample = float(np.sqrt(np.mean(error ** 2)))
        assert in_sample <= rmse[device] + 1e-9 and rmse[device] < bound, device
    assert fbnet.latency(fbnet_csv["arch_str"][0], "pixel3") == pytest.approx(fbnet_csv["pixel3"][0], abs=1e-9)


def test_fbnet_takes_both_text_forms_and_refuses_bad_input():
    fbnet = load_fbnet()
    arch = FBNetArch(("k3_e1",) * 11 + ("skip",) * 11)
    assert fbnet.latency(arch.to_text(), "pixel3") == fbnet.latency("-".join(arch.blocks), "pixel3") \
        == fbnet.latency(arch, "pixel3")
    assert fbnet.latency(arch, "pixel3") < fbnet.latency(FBNetArch(("k5_e6",) * 22), "pixel3")
    with pytest.raises(InvalidArchitectureError, match="k9_e9"):
        fbnet.latency("-".join(["k9_e9"] * 22), "pixel3")
    with pytest.raises(InvalidSettingError, match="did you mean titanx_64"):
        fbnet.latency(arch, "titanx_256")
    assert "no accuracies" in fbnet.describe().real and "held-out" in fbnet.describe().modelled


class _Devices:
    """The real NB201 table restricted to a few device settings (the full matrix takes seconds)."""

    def __init__(self, benchmark, devices):
        self.name, self.devices, self.latency_column = benchmark.name, devices, benchmark.latency_column


def test_kendall_matrix_groups_like_devices(cifar10):
    devices, tau = latency_kendall_matrix(_Devices(cifar10, ("titanx_256", "titanxp_256", "pixel3", "raspi4",
                                                             "eyeriss")))
    assert devices[0] == "titanx_256" and tau.shape == (5, 5)
    np.testing.assert_array_equal(tau, tau.T)
    assert np.all(np.diag(tau) == 1) and np.all(np.abs(tau) <= 1)
    assert tau[0, 1] > 0.9 and tau[2, 3] > 0.8  # the same GPU family at one batch; two small edge devices
    assert tau[0, 1] > tau[0, 2] + 0.3  # a GPU ranks cells far more like its sibling than like a phone
    with pytest.raises(InvalidSettingError, match="no latency table"):
        latency_kendall_matrix(cifar10.space)
