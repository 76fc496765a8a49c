"""Issue 30's "behaviour unchanged" proof: the same commands on the code before the refactoring
(commit 4029507) and on today's tree write the same files, digests and settings hashes.

One small command of each family is run once per source tree, each into its own fresh folder,
with the same virtual environment's python and ``PYTHONPATH=<tree>/src`` (the imported
``nasarena.__file__`` is checked to lie in that tree). The old tree is given the spelling it
accepts; the new tree runs that spelling (kept as an alias) and its own new spelling. Every
variant's output folder is compared file by file with the old tree's first variant:

- a file whose bytes are equal (sha256) is identical;
- a Parquet or CSV file is decoded (pandas) and compared with ``equals`` after dropping the
  measured columns (names matching ``MEASURED``: wall/cpu/optimizer times, seconds, durations,
  timestamps, host/pid) and, in a long table, the rows naming a measured quantity (``metric=
  seconds_per_architecture``); a JSON file is compared after dropping the same keys at any depth, a
  torch checkpoint (.pt) likewise after decoding (tensors compared bit for bit by digest);
  logs are compared by name only (measured throughout);
- the settings hashes are the hexadecimal names in the relative paths and the ``*hash*`` /
  ``*fingerprint*`` / ``*digest*`` / ``*sha256*`` fields of the JSON files and checkpoints: a
  different one shows up as a file present on one side only or as a differing field.

Inputs shared by both trees are made once under the work folder: a synthetic
``cifar-10-batches-py`` folder (5x50 training, 50 test images; as tests/conftest.py) for the
training families, and a 400-row NB201 CSV (real table values, as tests/test_surrogate_cli.py)
for ``surrogate fit``. Each command gets its own ``NASARENA_CACHE`` so no cached dataset is shared.

Usage: ``nice -n 15 .venv/bin/python bench/before_after.py [--old TREE] [--new TREE]
[--families run,collect,...] [--keep]``. Without ``--old`` a worktree of 4029507 is added at
/tmp/nasarena-before-4029507 when missing (``git worktree remove --force`` it afterwards).

Measured 2026-11-27 (CPU, 2 cores busy with other work, nice 15):

family            | variant (against the old tree's first)  | files | identical | differing files and why
------------------|------------------------------------------|-------|-----------|------------------------------------
run               | old --benchmark --jobs 1 (ref: --jobs 2) |    10 | yes       | 4 timings/*.parquet equal without optimizer_cpu_time
run               | new --benchmark --jobs 2 (alias)         |    10 | yes       | same 4 timings files, same column
run               | new --benchmarks --jobs 2                |    10 | yes       | same 4 timings files, same column
run               | new --benchmarks --jobs 1                |    10 | yes       | same 4 timings files, same column
collect           | old --strategy --jobs 2 (ref: --jobs 1)  |     4 | yes       | runs.parquet without cost_seconds (the
                  |                                          |       |           | measured training time); 2 store results
                  |                                          |       |           | JSON without record.training_seconds,
                  |                                          |       |           | record.epochs.{wall,train}_seconds,
                  |                                          |       |           | record.epochs.images_per_second
collect           | new --strategy --jobs 1 (alias)          |     4 | yes       | the same measured fields only
collect           | new --strategies --jobs 1                |     4 | yes       | the same measured fields only
collect           | new --strategies --jobs 2                |     4 | yes       | the same measured fields only
oneshot run       | new --optimizer --workers 2 (aliases)    |     6 | yes       | checkpoint.pt (decoded, every tensor bit
                  |                                          |       |           | for bit) and records.jsonl without
                  |                                          |       |           | seconds, search_seconds
oneshot run       | new --optimizers --jobs 2                |     6 | yes       | the same measured fields only
oneshot correlate | new --workers 1 (alias)                  |    11 | yes       | the run's measured fields as above;
                  |                                          |       |           | correlation.csv without the row
                  |                                          |       |           | metric=seconds_per_architecture;
                  |                                          |       |           | scores/epoch-001.json without
                  |                                          |       |           | seconds_per_architecture
oneshot correlate | new --jobs 1                             |    11 | yes       | the same measured fields only
surrogate fit     | new (same command)                       |     1 | yes       | - (the .nsa artefact byte for byte)
train             | new (same command)                       |     3 | yes       | checkpoint.pt (decoded, tensors bit for
                  |                                          |       |           | bit) and record.json without
                  |                                          |       |           | training_seconds, epochs.{wall,train}_
                  |                                          |       |           | seconds, epochs.images_per_second

Every other file (results Parquet files, settings.json, .nasarena-output.json marks, the one-shot
supernets/epoch-001.pt, scores.csv, scores/epoch-001.csv, scoring.json, the surrogate artefact)
has the same sha256 on both trees. Settings hashes and ids (equal on every variant, as the
relative paths and the JSON fields are compared): run 6e5e491b20 (re), ba365061c3 (rs) in
the file names; collect settings_hash 23255b2150c96fe8 (the store folder), architecture ids
304df566417f0aaed9ef5708, 79763fcb8fe1f0cb2c25999c; oneshot run/correlate checkpoint fingerprint
773ce173941bb849, nb101_hash 6ae2cacfa42afa41b1514a0f526f309a; train checkpoint fingerprint
517972ea21e6ea57 (it changes from one invocation of this script to the next, as the synthetic
data lies in a new temporary folder; equal between the trees within one), initial weights
cf24eec6234e0898. No real behaviour change found. Each family took under 40 s of CPU for all its
variants here (run 15.5, collect 33.7, oneshot run 37.2, oneshot correlate 26.5, surrogate fit
6.8, train 12.4 s); the whole script about 2 min 40 s wall. Not compared: stdout/stderr (the
new tree prints a note for an old spelling); the oneshot run has one optimizer and one seed, so
its 2 processes run one task.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
OLD_COMMIT = "4029507"
DEFAULT_OLD = Path(f"/tmp/nasarena-before-{OLD_COMMIT}")
PYTHON = sys.executable
NB201_CELL = "|nor_conv_3x3~0|+|nor_conv_3x3~0|skip_connect~1|+|skip_connect~0|none~1|avg_pool_3x3~2|"
MEASURED = re.compile(r"(second|_time$|^time$|time_s|wall|cpu|elapsed|duration|timestamp|started|finished|"
                      r"created|written_at|^date$|^host|^pid$|runtime)", re.IGNORECASE)
HASHLIKE = re.compile(r"(?<![0-9a-f])[0-9a-f]{10,64}(?![0-9a-f])")
TINY_TRAINING = ["--epochs", "1", "--image-size", "8", "--device", "cpu"]
NB201_SCALE = ["--scale", "channels=4", "--scale", "cells_per_stage=1"]
ONESHOT = ["--space", "nb1shot1-1", "--quick", "--seeds", "0", "--set", "epochs=1", "--set", "cells_per_stack=1",
           "--set", "subset=20", "--set", "snapshot_every=1"]
SURROGATE_SMALL = ["--members", "2", "--set", "n_estimators=30", "--set", "max_depth=4", "--set",
                   "learning_rate=0.2"]


def run(benchmark_option: str, jobs: int) -> list[str]:
    return ["run", benchmark_option, "nb101-lite", "--optimizers", "rs,re", "--seeds", "0-1", "--budget", "2e5",
            "--jobs", str(jobs), "--out", "{out}"]


def collect(strategy_option: str, jobs: int) -> list[str]:
    return ["collect", "--space", "nb201", strategy_option, "rs", "--n", "2", "--out", "{out}/runs.parquet", "--data",
            "{data}", "--store", "{out}/store", *TINY_TRAINING, *NB201_SCALE, "--set", "batch_size=100", "--jobs",
            str(jobs)]


def oneshot_run(optimizer_option: str, processes_option: str) -> list[str]:
    return ["oneshot", "run", *ONESHOT, optimizer_option, "random-ws", processes_option, "2", "--data", "{data}",
            "--out", "{out}"]


def correlate(processes_option: str) -> list[str]:
    return ["oneshot", "correlate", "{oneshot}", processes_option, "1", "--device", "cpu", "--architectures", "20",
            "--batches", "1", "--data", "{data}"]


SURROGATE_FIT = ["surrogate", "fit", "{csv}", "--space", "nb201", "--name", "nb201-xgb-v0.1", "--out",
                 "{out}/nb201-xgb-v0.1.nsa", *SURROGATE_SMALL]
TRAIN = ["train", "--space", "nb201", "--arch", NB201_CELL, *TINY_TRAINING, *NB201_SCALE, "--set", "batch_size=64",
         "--data", "{data}", "--out", "{out}"]

# family -> (old tree's variants, new tree's variants); a variant is (label, arguments); the first
# is the reference. {out}, {data}, {csv}, {oneshot} are filled in; {oneshot} is a fresh copy of the
# same tree's oneshot-run output (correlate writes its scores into the run folders).
FAMILIES: dict[str, tuple[list, list]] = {
    "run": (
        [("--benchmark --jobs 2", run("--benchmark", 2)), ("--benchmark --jobs 1", run("--benchmark", 1))],
        [("--benchmark --jobs 2", run("--benchmark", 2)), ("--benchmarks --jobs 2", run("--benchmarks", 2)),
         ("--benchmarks --jobs 1", run("--benchmarks", 1))],
    ),
    "collect": (
        [("--strategy --jobs 1", collect("--strategy", 1)), ("--strategy --jobs 2", collect("--strategy", 2))],
        [("--strategy --jobs 1", collect("--strategy", 1)), ("--strategies --jobs 1", collect("--strategies", 1)),
         ("--strategies --jobs 2", collect("--strategies", 2))],
    ),
    "oneshot-run": (
        [("--optimizer --workers 2", oneshot_run("--optimizer", "--workers"))],
        [("--optimizer --workers 2", oneshot_run("--optimizer", "--workers")),
         ("--optimizers --jobs 2", oneshot_run("--optimizers", "--jobs"))],
    ),
    "oneshot-correlate": (
        [("--workers 1", correlate("--workers"))],
        [("--workers 1", correlate("--workers")), ("--jobs 1", correlate("--jobs"))],
    ),
    "surrogate-fit": ([("fit", SURROGATE_FIT)], [("fit", SURROGATE_FIT)]),
    "train": ([("train", TRAIN)], [("train", TRAIN)]),
}


def environment(tree: Path, cache: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(tree / "src"), "NASARENA_CACHE": str(cache), "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1", "NASARENA_PROGRESS": "0", "PYTHONHASHSEED": "0"}


def check_import(tree: Path) -> str:
    found = subprocess.run([PYTHON, "-c", "import nasarena; print(nasarena.__file__)"], capture_output=True,
                           text=True, check=True, env=environment(tree, Path(tempfile.gettempdir()))).stdout.strip()
    if not found.startswith(str(tree / "src")):
        raise SystemExit(f"PYTHONPATH={tree}/src imported {found}, not that tree")
    return found


def ensure_old_tree(path: Path) -> Path:
    if not (path / "src" / "nasarena").exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), OLD_COMMIT], check=True)
    return path


def write_cifar(root: Path) -> Path:
    """The tests' tiny synthetic CIFAR-10 (tests/conftest.py's ``write_batches_folder``, imported
    from there so that both trees read the very data the tests train on)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import write_batches_folder

    root.mkdir(parents=True, exist_ok=True)
    return write_batches_folder(root)


SURROGATE_DATA = """
import sys, numpy as np, pandas as pd, nasarena
from nasarena.spaces.nb201 import NB201Space
table = nasarena.benchmark("nb201-cifar10")
rows = np.random.default_rng(1).choice(15_625, 400, replace=False)
cells = NB201Space().enumerate()
pd.DataFrame({"arch": [cells[r].to_string() for r in rows],
              "valid_accuracy": 100 * table.mean_over_trials("valid_accuracy")[rows],
              "cost_seconds": table.mean_over_trials("cost_seconds")[rows],
              "source": np.where(np.arange(400) % 2 == 0, "rs", "re")}).to_csv(sys.argv[1], index=False)
"""


def run_command(tree: Path, arguments: list[str], cache: Path, timeout: int) -> tuple[int, float, float, str]:
    """(exit status, wall seconds, CPU seconds of the child and its workers, stderr tail)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    try:
        done = subprocess.run([PYTHON, "-m", "nasarena.cli.main", *arguments], capture_output=True, text=True,
                              timeout=timeout, env=environment(tree, cache))
        status, tail = done.returncode, (done.stdout + done.stderr)[-1500:]
    except subprocess.TimeoutExpired:
        status, tail = 124, "timed out"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return status, time.perf_counter() - start, cpu, tail


# --- comparison ---------------------------------------------------------------------------------


def files_of(folder: Path) -> dict[str, Path]:
    return {str(p.relative_to(folder)): p for p in sorted(folder.rglob("*")) if p.is_file()}


def by_name_only(relative: str) -> bool:
    return relative.endswith((".log", ".lock"))


def _strip(value, dropped: set[str], where: str = ""):
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            if MEASURED.search(str(key)):
                dropped.add(f"{where}{key}")
            else:
                kept[key] = _strip(item, dropped, f"{where}{key}.")
        return kept
    if isinstance(value, list):
        return [_strip(item, dropped, where) for item in value]
    return value


def _json_difference(a, b, where: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{where}{k}" for k in sorted(set(a) ^ set(b))]
        for key in sorted(set(a) & set(b)):
            out += _json_difference(a[key], b[key], f"{where}{key}.")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for x, y in zip(a, b) for d in _json_difference(x, y, where)]
    return [] if a == b else [f"{where.rstrip('.')} ({str(a)[:60]!r} vs {str(b)[:60]!r})"]


def _read_json(path: Path):
    text = path.read_text()
    try:
        return json.loads(text)
    except json.JSONDecodeError:  # JSON lines
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def compare_file(a: Path, b: Path, relative: str) -> tuple[str, str]:
    """('same' | 'measured' | 'differs', what): equal bytes; equal after the measured fields; not."""
    if hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest():
        return "same", ""
    if by_name_only(relative):
        return "measured", "a log (measured)"
    suffix = a.suffix.lower()
    if suffix in (".parquet", ".csv"):
        read = pd.read_parquet if suffix == ".parquet" else pd.read_csv
        left, right = read(a), read(b)
        measured = sorted({c for c in [*left.columns, *right.columns] if MEASURED.search(str(c))})
        left = left.drop(columns=[c for c in measured if c in left.columns])
        right = right.drop(columns=[c for c in measured if c in right.columns])
        rows = sorted({f"{c}={v}" for frame in (left, right) for c in frame.columns if frame[c].dtype == object
                       for v in frame[c].unique() if isinstance(v, str) and MEASURED.search(v)})
        if rows:  # a long table: a measured quantity is a row (metric=seconds_per_architecture)
            def keep(frame):
                return frame[~frame.apply(lambda r: any(f"{c}={r[c]}" in rows for c in frame.columns), axis=1)]
            left, right = keep(left).reset_index(drop=True), keep(right).reset_index(drop=True)
        if left.equals(right):
            return "measured", f"equal without {','.join(measured + [f'rows {r}' for r in rows])}"
        columns = [c for c in left.columns if c not in right.columns or not left[c].equals(right[c])]
        columns += [c for c in right.columns if c not in left.columns]
        return "differs", f"columns {columns} (shape {left.shape} vs {right.shape})"
    if suffix in (".json", ".jsonl"):
        dropped: set[str] = set()
        left, right = _strip(_read_json(a), dropped), _strip(_read_json(b), dropped)
        if left == right:
            return "measured", f"equal without {','.join(sorted(dropped))}"
        return "differs", "fields " + "; ".join(_json_difference(left, right)[:6])
    if suffix == ".pt":
        dropped = set()
        left, right = _strip(_plain(_load_torch(a)), dropped), _strip(_plain(_load_torch(b)), dropped)
        if left == right:
            return "measured", f"equal (decoded, tensors bit for bit) without {','.join(sorted(dropped))}"
        return "differs", "fields " + "; ".join(_json_difference(left, right)[:6])
    return "differs", f"bytes ({a.stat().st_size} vs {b.stat().st_size} B)"


def _load_torch(path: Path):
    import torch

    return torch.load(path, map_location="cpu", weights_only=False)


def _plain(value):
    """A checkpoint as JSON-like data: a tensor or array becomes the sha256 of its dtype, shape and
    bytes (equal exactly when bit for bit equal), a JSON text the data it holds."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        value = value.detach().cpu().contiguous().numpy()
    if isinstance(value, np.ndarray):
        return "array:" + hashlib.sha256(f"{value.dtype}{value.shape}".encode() + value.tobytes()).hexdigest()
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return _plain(json.loads(value))
        except json.JSONDecodeError:
            return value
    return value


def compare(reference: Path, other: Path) -> dict:
    left, right = files_of(reference), files_of(other)
    rows = {"files": len(left), "only": [], "measured": [], "differs": []}
    for relative in sorted(set(left) | set(right)):
        if relative not in right or relative not in left:
            rows["only"].append(f"{relative} only in {'reference' if relative in left else 'this'}")
            continue
        verdict, what = compare_file(left[relative], right[relative], relative)
        if verdict == "differs":
            rows["differs"].append(f"{relative}: {what}")
        elif verdict == "measured":
            rows["measured"].append((relative, what))
    return rows


def measured_note(measured: list[tuple[str, str]]) -> list[str]:
    """'N file(s) (first one) WHAT', one per distinct WHAT."""
    groups: dict[str, list[str]] = {}
    for relative, what in measured:
        groups.setdefault(what, []).append(relative)
    return [f"{len(files)} file(s) ({files[0]}{', ...' if len(files) > 1 else ''}) {what}"
            for what, files in groups.items()]


def hashes_of(folder: Path) -> list[str]:
    """The settings hashes a folder shows: hex names in its paths, hash/fingerprint/digest fields."""
    found = set()
    for relative, path in files_of(folder).items():
        found.update(HASHLIKE.findall(relative))
        if path.suffix in (".json", ".pt"):
            try:
                stack = [_read_json(path) if path.suffix == ".json" else _plain(_load_torch(path))]
            except (ValueError, UnicodeDecodeError):
                continue
            while stack:
                item = stack.pop()
                if isinstance(item, dict):
                    for key, value in item.items():
                        if re.search("hash|fingerprint|digest|sha256", str(key)) and isinstance(value, str):
                            found.add(f"{key}={value}")
                        stack.append(value)
                elif isinstance(item, list):
                    stack.extend(item)
    return sorted(found)


# --- driver -------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, default=None)
    parser.add_argument("--new", type=Path, default=ROOT)
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--timeout", type=int, default=240)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    options = parser.parse_args()
    old = ensure_old_tree(DEFAULT_OLD) if options.old is None else options.old.resolve()
    new = options.new.resolve()
    trees = {"old": old, "new": new}
    for label, tree in trees.items():
        print(f"{label}: {check_import(tree)}")
    work = Path(tempfile.mkdtemp(prefix="nasarena-before-after-"))
    data = write_cifar(work / "inputs")
    csv = work / "inputs" / "runs.csv"
    subprocess.run([PYTHON, "-c", SURROGATE_DATA, str(csv)], check=True,
                   env=environment(new, work / "inputs" / "cache"))
    table, hashes = [], {}
    for family in options.families.split(","):
        outputs: dict[tuple[str, str], Path] = {}
        cpu_total = 0.0
        for side, variants in zip(("old", "new"), FAMILIES[family]):
            for label, template in variants:
                out = work / family / f"{side}-{re.sub(r'[^a-z0-9]+', '_', label)}"
                fill = {"{out}": str(out), "{data}": str(data), "{csv}": str(csv)}
                if family == "oneshot-correlate":  # a fresh copy of this tree's oneshot run to score
                    source = outputs_by_family["oneshot-run"][(side, FAMILIES["oneshot-run"][0][0][0])]  # its 1st
                    shutil.copytree(source, out)
                    fill["{oneshot}"] = str(out)
                else:
                    out.mkdir(parents=True)
                arguments = [fill.get(a, a) for a in template]
                arguments = [a.replace("{out}", str(out)) for a in arguments]
                status, wall, cpu, tail = run_command(trees[side], arguments, work / "cache" / out.name / family,
                                                      options.timeout)
                cpu_total += cpu
                print(f"[{family}] {side} {label}: exit {status}, {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
                if status != 0:
                    print(tail)
                outputs[(side, label)] = out
        outputs_by_family[family] = outputs
        (ref_side, ref_label), reference = next(iter(outputs.items()))
        hashes[family] = ", ".join(hashes_of(reference)) or "-"
        print(f"  settings hashes ({ref_side} {ref_label}): {hashes[family]}")
        for (side, label), out in list(outputs.items())[1:]:
            rows = compare(reference, out)
            identical = not rows["only"] and not rows["differs"]
            note = "; ".join(rows["only"] + rows["differs"] + measured_note(rows["measured"])) or "-"
            table.append((family, f"{side} {label}", rows["files"], "yes" if identical else "NO", note))
            print(f"  vs {side} {label}: {rows['files']} files, identical: {identical}; {note}", flush=True)
        print(f"  [{family}] CPU {cpu_total:.1f} s in all", flush=True)
    print("\nfamily | variant (vs the old tree's first) | files | identical | differing files and why")
    for row in table:
        print(" | ".join(map(str, row)))
    print("\nsettings hashes and ids seen in the reference outputs (a changed one fails the comparison above)")
    for family, found in hashes.items():
        print(f"{family}: {found}")
    if options.keep:
        print(f"outputs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)


outputs_by_family: dict[str, dict] = {}

if __name__ == "__main__":
    main()
