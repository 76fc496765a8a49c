"""Regression tests of issue 11 at the API level (data loss, silent wrong results, hangs, errors).

Each test is named after the issue's point it guards."""

from __future__ import annotations

import numpy as np
import pytest

from nasarena.benchmarks.nb101_store import RecordImportError, convert, load_store
from nasarena.errors import DataFileError, OutputError
from nasarena.io.nb101_records import EvaluationData, ModelMetrics, NB101Record, serialize_record
from nasarena.io.tfrecord import write_records
from nasarena.spaces.nb101 import unique_cells
from process_helpers import gone_within, kill_all


def _records(rows=(0, 7), budgets=(108,), trials=3):
    table = unique_cells()
    for row in rows:
        cell = table.cell(row)
        for budget in budgets:
            for _ in range(trials):
                evaluations = (EvaluationData(0, 0, 0.1, 0.1, 0.1), EvaluationData(budget / 2, 5.0, 0.5, 0.5, 0.5),
                               EvaluationData(budget, 10.0, 0.9, 0.9, 0.9))
                yield serialize_record(NB101Record(table.hashes[row], budget, cell.matrix, cell.ops,
                                                   ModelMetrics(evaluations, 1000, 1.0)))


@pytest.fixture()
def source(tmp_path):
    path = tmp_path / "src" / "only108.tfrecord"
    path.parent.mkdir()
    write_records(path, _records())
    return path


def test_point01_import_refuses_foreign_folder(tmp_path, source):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("precious")
    with pytest.raises(OutputError, match="not an NB101 store"):
        convert(source, foreign)
    assert (foreign / "thesis.tex").read_text() == "precious"
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep")
    with pytest.raises(OutputError, match="not an NB101 store"):
        convert(source, a_file)
    assert a_file.read_text() == "keep"


def test_point01_import_refuses_to_replace_its_source(source):
    with pytest.raises(OutputError, match="holds the source"):
        convert(source, source.parent)
    with pytest.raises(OutputError, match="holds the source"):
        convert(source, source)
    assert source.stat().st_size > 0


def test_point01_import_replaces_an_earlier_store(tmp_path, source):
    convert(source, tmp_path / "store")
    convert(source, tmp_path / "store")  # a nasarena store (with its manifest) is replaced
    assert load_store(tmp_path / "store", verify=True).query(0, trial=0).valid_accuracy == pytest.approx(0.9)


def test_point05_import_refuses_an_empty_file(tmp_path):
    (tmp_path / "empty.tfrecord").write_bytes(b"")
    with pytest.raises(RecordImportError, match="no records"):
        convert(tmp_path / "empty.tfrecord", tmp_path / "store")
    assert not (tmp_path / "store").exists()


def test_point05_incomplete_import_says_what_is_missing(tmp_path):
    write_records(tmp_path / "partial.tfrecord", _records(trials=2))  # a trial missing per cell
    convert(tmp_path / "partial.tfrecord", tmp_path / "store")
    description = load_store(tmp_path / "store").describe()
    assert "every value" not in description.real
    assert "423,622 of 423,624 cells are absent" in description.modelled
    assert "2 trials" in description.modelled


def test_point11_corrupt_store_manifest_is_a_data_file_error(tmp_path, source):
    convert(source, tmp_path / "store")
    (tmp_path / "store" / "store.json").write_text("{not json")
    with pytest.raises(DataFileError, match="store.json"):
        load_store(tmp_path / "store")


# --- runner -----------------------------------------------------------------------------------

import errno  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import lzma  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

from nasarena.io.claims import claim  # noqa: E402
from nasarena.runner import Budget  # noqa: E402
from nasarena.runner.experiment import RUNS_DIR, grid, load_results, load_timings, pending, run_experiment  # noqa: E402


def _specs(seeds=range(2), evaluations=60):
    return grid(["nb101-lite"], ["rs"], seeds, Budget(evaluations=evaluations))


_CONCURRENT = """
import sys
from nasarena.runner import Budget
from nasarena.runner.experiment import grid, run_experiment
specs = grid(["nb101-lite"], ["rs", "re"], range(8), Budget(evaluations=400))
print("\\n".join(spec.file_name for spec in run_experiment(specs, sys.argv[1], jobs=1)))
"""


def test_a_mark_another_process_is_placing_in_a_new_folder_is_not_a_users_file(tmp_path):
    """Two commands starting on one new folder: the second may find the first's private copy of
    the mark (written, then linked into place); it is nasarena's, so the folder is accepted."""
    from nasarena.io.outputs import MARK_FILE, MARK_IN_FLIGHT, own_folder

    folder = tmp_path / "new"
    folder.mkdir()
    (folder / f"{MARK_IN_FLIGHT}0ypeq8ia").write_text("{}")
    assert own_folder(folder, "run", {"seed": 0}) == folder and (folder / MARK_FILE).exists()
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "thesis.tex").write_text("mine")
    with pytest.raises(OutputError, match="did not write there \\(thesis.tex\\)"):
        own_folder(tmp_path / "used", "run", {"seed": 0})


def test_point02_two_experiments_on_one_folder_write_every_run_once(tmp_path):
    out = tmp_path / "shared"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    processes = [subprocess.Popen([sys.executable, "-c", _CONCURRENT, str(out)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env) for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in processes]
    assert [p.returncode for p in processes] == [0, 0], [err[-2000:] for _, err in outputs]
    computed = [set(stdout.split()) for stdout, _ in outputs]
    assert not computed[0] & computed[1]  # no run computed twice
    assert len(computed[0] | computed[1]) == 16
    assert load_results(out).groupby(["optimizer", "seed"]).ngroups == 16
    assert not list((out / RUNS_DIR).glob(".claim-*")) and not list((out / RUNS_DIR).glob(".partial-*"))


def test_point02_start_up_clean_up_spares_live_writers(tmp_path):
    runs = tmp_path / RUNS_DIR
    runs.mkdir(parents=True)
    host = socket.gethostname()
    live = runs / f".partial-{host}-{os.getpid()}-abc.tmp"  # this test process is alive
    dead_pid = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True).stdout.strip()
    dead = runs / f".partial-{host}-{dead_pid}-abc.tmp"
    live.write_bytes(b"in progress")
    dead.write_bytes(b"left by a killed run")
    claims = {owner: runs / f".claim-{owner.split()[0]}-{i}.parquet.lock"
              for i, owner in enumerate([f"{host} {os.getpid()}", f"{host} {dead_pid}", f"elsewhere {dead_pid}",
                                         "not a claim"])}
    for owner, path in claims.items():
        path.write_text(owner + "\n" if owner != "not a claim" else owner)
    run_experiment(_specs(range(1)), tmp_path, jobs=1)
    assert live.exists() and not dead.exists()
    # a killed experiment's claims go; a live owner's, another host's and a foreign file stay
    assert [path.exists() for path in claims.values()] == [True, False, True, True]


def test_point06_identical_seeds_give_identical_run_files(tmp_path):
    specs = _specs()
    run_experiment(specs, tmp_path / "a", jobs=1)
    run_experiment(specs, tmp_path / "b", jobs=1)
    for spec in specs:
        first, second = ((tmp_path / d / RUNS_DIR / spec.file_name).read_bytes() for d in "ab")
        assert hashlib.sha256(first).digest() == hashlib.sha256(second).digest()
    assert "optimizer_cpu_time" not in load_results(tmp_path / "a").columns
    timings = load_timings(tmp_path / "a")
    assert len(timings) == 2 * 60 and (timings.optimizer_cpu_time >= 0).all()


def test_point07_surrogate_benchmark_with_worker_processes_finishes(tmp_path):
    command = [sys.executable, "-m", "nasarena.cli.main", "run", "--benchmark", "nb101-xgb-v1.0", "--optimizers",
               "rs", "--seeds", "0-1", "--max-evaluations", "20", "--jobs", "2", "--out", str(tmp_path / "out")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr[-2000:]
    assert len(list((tmp_path / "out" / RUNS_DIR).glob("*.parquet"))) == 2


def _descendants(pid: int) -> set[int]:
    import psutil

    try:
        return {child.pid for child in psutil.Process(pid).children(recursive=True)}
    except psutil.NoSuchProcess:
        return set()


_ENDLESS = """
import sys
from nasarena.runner import Budget
from nasarena.runner.experiment import grid, run_experiment
run_experiment(grid(["nb101-lite"], ["rs"], range(4), Budget(seconds=1e12)), sys.argv[1], jobs=2)
"""


def test_point09_workers_exit_when_the_main_process_is_killed(tmp_path):
    import psutil

    process = subprocess.Popen([sys.executable, "-c", _ENDLESS, str(tmp_path / "out")],
                               env={**os.environ, "OMP_NUM_THREADS": "1"})
    workers: set[int] = set()
    try:
        deadline = time.time() + 300  # the machine running the suite may be busy
        while time.time() < deadline and len(workers) < 3:  # the fork server and two workers
            time.sleep(0.2)
            workers = _descendants(process.pid) - {child.pid for child in psutil.Process(process.pid).children()
                                                   if "resource_tracker" in " ".join(child.cmdline())}
        assert len(workers) >= 3
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        assert gone_within(workers, 30)
    finally:
        kill_all(workers | {process.pid})


def test_ctrl_c_ends_a_parallel_experiment_at_once_leaving_it_resumable(tmp_path):
    """SIGINT to the whole process group, as Ctrl-C in a terminal sends it, while two endless
    runs are in progress and two are queued: the experiment ends at once with exit status 130
    instead of waiting for the queued runs, its workers are gone, and every run is free to be
    taken by the next experiment."""
    out = tmp_path / "out"
    command = [sys.executable, "-m", "nasarena.cli.main", "run", "--optimizers", "rs", "--seeds", "0-3",
               "--budget", "1e12", "--jobs", "2", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
                               env={**os.environ, "OMP_NUM_THREADS": "1"})
    workers: set[int] = set()
    claims: list = []
    try:
        deadline = time.time() + 300  # the machine running the suite may be busy
        while time.time() < deadline and (len(workers) < 4 or len(claims) < 4):
            time.sleep(0.2)  # the resource tracker, the fork server and two workers, and the four runs claimed
            workers = _descendants(process.pid)
            claims = list((out / RUNS_DIR).glob(".claim-*"))
        time.sleep(1.0)  # the runs are under way
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        kill_all(workers | {process.pid})
    assert process.returncode == 130
    assert "interrupted: 0 of 4 runs finished" in stderr.decode()
    runs = out / RUNS_DIR
    assert not list(runs.glob(".claim-*")) and not list(runs.glob("*.parquet"))
    names = [path.name.removeprefix(".claim-").removesuffix(".lock") for path in claims]
    assert all(claim(runs, name) for name in names)  # nobody holds them: the next experiment runs them
    assert gone_within(workers, 30)






def _flip_byte(path, position):
    content = bytearray(path.read_bytes())
    content[position] ^= 0xFF
    path.write_bytes(bytes(content))


def test_point11_damaged_run_file_is_recomputed_on_resume(tmp_path):
    specs = _specs()
    run_experiment(specs, tmp_path, jobs=1)
    damaged = tmp_path / RUNS_DIR / specs[0].file_name
    damaged.write_bytes(damaged.read_bytes()[:100])  # cut short
    assert pending(specs, tmp_path) == [specs[0]]
    assert (tmp_path / RUNS_DIR / (specs[0].file_name + ".corrupt")).exists()  # kept aside, not deleted
    assert run_experiment(specs, tmp_path, jobs=1) == [specs[0]]
    assert load_results(tmp_path).groupby("seed").ngroups == 2


def test_point11_byte_flipped_or_foreign_run_file_names_the_file(tmp_path):
    specs = _specs(range(1))
    run_experiment(specs, tmp_path, jobs=1)
    path = tmp_path / RUNS_DIR / specs[0].file_name
    _flip_byte(path, len(path.read_bytes()) // 3)  # inside a data page (pages carry a CRC)
    with pytest.raises(DataFileError, match=specs[0].file_name):
        load_results(tmp_path)
    pd.DataFrame({"x": [1, 2]}).to_parquet(path)
    with pytest.raises(DataFileError, match="not a run file of nasarena"):
        load_results(tmp_path)


def test_point11_corrupt_settings_json_names_the_file(tmp_path):
    (tmp_path / "settings.json").write_text("{oops")
    with pytest.raises(DataFileError, match="settings.json"):
        run_experiment(_specs(range(1)), tmp_path, jobs=1)


def test_point11_full_disk_is_an_output_error_naming_the_file(tmp_path, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(tempfile, "mkstemp", full)
    with pytest.raises(OutputError, match="No space left on device") as error:
        run_experiment(_specs(range(1)), tmp_path, jobs=1)
    assert str(tmp_path) in str(error.value)


def test_point11_finished_folder_is_read_without_writing(tmp_path):
    specs = _specs()
    run_experiment(specs, tmp_path, jobs=1)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    assert run_experiment(specs, tmp_path, jobs=1) == []
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before
    assert len(load_results(tmp_path)) == 2 * 60


def test_point11_artifact_with_matching_checksum_but_bad_data(tmp_path):
    from nasarena.surrogates.artifact import ArtifactError, loads

    payload = lzma.compress(b"not a pickle")[:-4] + b"\0\0\0\0"
    header = {"format": "nasarena-surrogate", "sha256": hashlib.sha256(payload).hexdigest()}
    from nasarena.surrogates import artifact as module

    header["format"] = module.FORMAT
    header["format_version"] = module.FORMAT_VERSION
    with pytest.raises(ArtifactError, match="cannot be decoded"):
        loads(json.dumps(header).encode() + b"\n" + payload, "bad.nsa")


# --- benchmarks: rows, trials, fidelities and architecture forms --------------------------------

import nasarena  # noqa: E402
from nasarena.errors import InvalidArchitectureError, InvalidSettingError  # noqa: E402


@pytest.fixture(scope="module")
def lite():
    return nasarena.benchmark("nb101-lite")


@pytest.fixture(scope="module")
def nb201():
    return nasarena.benchmark("nb201-cifar10")


@pytest.mark.parametrize("name", ["lite", "nb201"])
def test_point03_negative_rows_and_trials_are_refused(name, request):
    bench = request.getfixturevalue(name)
    last = len(bench) - 1
    for call in (lambda: bench.query(-1), lambda: bench.final_test_accuracy(-1), lambda: bench.query(last + 1),
                 lambda: bench.query_batch([-1]), lambda: bench.query_batch(np.array([0, -1]))):
        with pytest.raises(InvalidArchitectureError, match="outside"):
            call()
    with pytest.raises(InvalidSettingError, match="trials must be"):
        bench.query_batch([0], trials=[-1])
    with pytest.raises(InvalidSettingError, match="trial must be"):
        bench.query(0, trial=-1)
    assert bench.query(last).valid_accuracy == bench.query_batch([last]).valid_accuracy[0]


def test_point12_clear_messages_for_odd_inputs(lite):
    from nasarena.spaces.nb101 import Cell
    from nasarena.spaces.nb201 import Cell201

    with pytest.raises(InvalidArchitectureError, match="2-D"):
        Cell(np.zeros((2, 2, 2), dtype=int), ["input", "output"])
    with pytest.raises(InvalidArchitectureError, match="ops must be a sequence"):
        Cell(np.array([[0, 1], [0, 0]]), None)
    with pytest.raises(InvalidArchitectureError, match="cell string is text"):
        Cell201.from_string(None)
    with pytest.raises(InvalidSettingError, match="integer number of epochs"):
        lite.query(0, fidelity="108")
    assert lite.query(np.int64(5)).valid_accuracy == lite.query(5).valid_accuracy
    with pytest.raises(InvalidArchitectureError, match="not an architecture"):
        lite.query(True)


def test_point13_nb201_costs_accept_the_cell_string():
    from nasarena.spaces.nb201 import Cell201, flops, trainable_parameters

    text = "|nor_conv_3x3~0|+|nor_conv_1x1~0|skip_connect~1|+|avg_pool_3x3~0|none~1|nor_conv_3x3~2|"
    cell = Cell201.from_string(text)
    assert flops(text) == flops(cell) and trainable_parameters(text, "cifar100") == trainable_parameters(
        cell, "cifar100")


def test_point13_surrogate_batch_accepts_text_and_rows():
    bench = nasarena.benchmark("nb201-cifar10-xgb-v1.0")
    cell = bench.space.sample(np.random.default_rng(0))
    row = bench.space.enumerate().index(cell) if hasattr(bench.space, "enumerate") else None
    text = cell.to_string()
    single = bench.query(text, noise=False).valid_accuracy
    batch = bench.query_batch([text, cell, row], noise=False).valid_accuracy
    assert np.allclose(batch, single)
    with pytest.raises(InvalidSettingError, match="integer number of epochs"):
        bench.query(text, fidelity="200")
    with pytest.raises(ValueError, match="rows must be in"):
        bench.query_batch(np.array([-1]))


# --- DARTS genotype text ------------------------------------------------------------------------


def test_point10_darts_text_is_bounded():
    from nasarena.spaces.darts.text import MAX_DEPTH, from_text

    start = time.perf_counter()
    with pytest.raises(InvalidArchitectureError, match="30,000,000 entries") as error:
        from_text("Genotype(normal=[], normal_concat=range(0,30000000), reduce=[], reduce_concat=[2, 3, 4, 5])")
    assert len(str(error.value)) < 300
    with pytest.raises(InvalidArchitectureError, match=f"nested deeper than {MAX_DEPTH}"):
        from_text("Genotype(normal=" + "[" * 5000 + "]" * 5000 + ")")
    with pytest.raises(InvalidArchitectureError, match="at most"):
        from_text("Genotype(normal=[" + "0," * 100_000 + "])")
    assert time.perf_counter() - start < 5


def test_point19_nb201_keeps_the_sources_precision(nb201):
    source = pd.read_csv(Path("/work/shared/data/nb201/nb201-cifar10-200epochs.csv")) \
        if Path("/work/shared/data/nb201/nb201-cifar10-200epochs.csv").exists() else None
    stored = nb201.mean_over_trials("test_accuracy")
    assert stored.dtype == np.float64
    if source is not None:  # the raw source, where this checkout has it
        assert len(np.unique(stored)) == source.test_top1.nunique() == 5249
        assert np.array_equal(stored, source.test_top1.to_numpy() / 100)
    cifar100 = nasarena.benchmark("nb201-cifar100").mean_over_trials("test_accuracy", fidelity=12)
    assert len(np.unique(cifar100)) == 8104  # float32 merged these into 1,999 values


def test_point14_hash_iterator_and_metrics_like_the_original_api(tmp_path):
    write_records(tmp_path / "full.tfrecord", _records(rows=(0, 7), budgets=(4, 108)))
    convert(tmp_path / "full.tfrecord", tmp_path / "store")
    bench = load_store(tmp_path / "store")
    hashes = list(bench.hash_iterator())
    assert len(hashes) == len(bench) and hashes[7] == unique_cells().hashes[7] and hashes == sorted(hashes)
    fixed, computed = bench.get_metrics_from_hash(hashes[7])
    assert fixed["trainable_parameters"] == 1000 and fixed["module_operations"][0] == "input"
    assert sorted(computed) == [4, 108] and len(computed[108]) == 3
    trial = computed[108][0]
    assert trial["final_test_accuracy"] == pytest.approx(0.9) and trial["halfway_training_time"] == pytest.approx(5.0)
    assert set(trial.keys()) == {f"{stage}_{metric}" for stage in ("halfway", "final") for metric in
                                 ("training_time", "train_accuracy", "validation_accuracy", "test_accuracy")}
    with pytest.raises(KeyError):
        bench.get_metrics_from_hash("0" * 32)
    slice_hashes = list(nasarena.benchmark("nb101-slice").hash_iterator())
    assert len(slice_hashes) == 30_001


def test_point04_library_grid_refuses_repeated_and_negative_seeds():
    with pytest.raises(InvalidSettingError, match="distinct"):
        _specs([0, 0])
    with pytest.raises(InvalidSettingError, match="2\\^63-1"):
        _specs([-1])
    with pytest.raises(InvalidSettingError, match="2\\^63-1"):
        _specs([2**64])
    with pytest.raises(InvalidSettingError, match="backend"):
        run_experiment(_specs([0]), Path("unused"), backend="dask")


def _record(out, evaluations):
    from nasarena.runner.experiment import _record_settings

    _record_settings(out, grid(["nb101-lite"], ["rs"], [0], Budget(evaluations=evaluations)))


def test_point02_concurrent_experiments_keep_each_others_settings(tmp_path):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from nasarena.runner.experiment import read_settings

    budgets = range(10, 30)
    with ProcessPoolExecutor(4, mp_context=multiprocessing.get_context("fork")) as pool:
        list(pool.map(_record, [tmp_path] * len(budgets), budgets))
    assert len(read_settings(tmp_path)) == len(budgets)  # no experiment's entry overwritten


def test_a_held_claim_makes_another_process_wait_and_a_killed_holder_does_not_block(tmp_path):
    """``claims.held``, the read-modify-write guard of shared files (settings, saved rows, a page
    and its record): a second process waits for the holder's block to end; a holder killed with
    -9 leaves a stale claim that the next writer takes over."""
    from nasarena.io.claims import held

    log = tmp_path / "log.txt"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from pathlib import Path; from nasarena.io.claims import held\n"
        f"with held(Path({str(tmp_path)!r}), 'shared.json'):\n"
        f"    Path({str(log)!r}).write_text('holder in;'); time.sleep(1.5)\n"
        f"    Path({str(log)!r}).write_text(Path({str(log)!r}).read_text() + 'holder out;')\n")])
    deadline = time.time() + 60
    while not log.exists() and time.time() < deadline:
        time.sleep(0.05)
    with held(tmp_path, "shared.json"):
        log.write_text(log.read_text() + "second;")
    assert holder.wait(timeout=60) == 0
    assert log.read_text() == "holder in;holder out;second;"
    killed = subprocess.Popen([sys.executable, "-c", (
        "import time; from pathlib import Path; from nasarena.io.claims import held\n"
        f"with held(Path({str(tmp_path)!r}), 'shared.json'):\n"
        f"    Path({str(log)!r}).write_text('killed in;'); time.sleep(60)\n")])
    while log.read_text() != "killed in;" and time.time() < deadline:
        time.sleep(0.05)
    killed.kill()
    killed.wait()
    with held(tmp_path, "shared.json"):  # the dead holder's claim is stale: taken over at once
        log.write_text(log.read_text() + "after;")
    assert log.read_text() == "killed in;after;"
    assert not list(tmp_path.glob(".claim-*"))  # released
