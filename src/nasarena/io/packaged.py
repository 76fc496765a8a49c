"""Package data files with a checksummed manifest.

Every data file shipped in ``nasarena/data`` is listed in ``manifest.json`` with its sha256,
size and provenance. Loading verifies the checksum, so a corrupted or tampered install is a
clear error instead of silently wrong numbers. Arrays are stored as an ``.npz`` archive
compressed with lzma where that pays (integer tables) and with zip elsewhere.
"""

from __future__ import annotations

import hashlib
import io
import json
import lzma
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import DataFileError
from .files import atomic_write_bytes

MANIFEST = "manifest.json"
#: The package data files, named once (each is listed in the manifest with its provenance).
LITE_FILE = "nb101-lite.npz.xz"  # nb101-lite: every NB101 cell, one real draw; nb101-noisy's base
TRIPLES_FILE = "nb101-pertrial-52.npz"  # 52 cells with their three real trials (the noise model's check)
CELLS_FILE = "nb101-cells.npz"  # NB101 hashes and canonical representatives
LOOKUP_FILE = "nb101-lookup.npz.xz"  # NB101 full DAGs and the row of every labelled graph
NB201_FILE = "nb201.npz.xz"  # the NB201 tables
NB201_GDAS_SUPERNET_FILE = "nb201-gdas-supernet.npz.xz"  # GDAS supernet records on NB201
NB201_LATENCY_FILE = "nb201-latency.npz.xz"  # measured latency of every NB201 cell on 27 device settings
FBNET_LATENCY_FILE = "fbnet-latency-table.npz"  # the additive FBNet latency model fitted per device setting
NB201_PROXIES_FILE = "nb201-proxies-cifar10.npz.xz"  # cheap zero-cost proxies of every unique NB201 architecture
NB101_PROXIES_FILE = "nb101-proxies-cifar10.npz.xz"  # cheap zero-cost proxies of a seeded sample of NB101 slice cells
PACKAGED_FILES = (LITE_FILE, TRIPLES_FILE, CELLS_FILE, LOOKUP_FILE, NB201_FILE, NB201_GDAS_SUPERNET_FILE,
                  NB201_LATENCY_FILE, FBNET_LATENCY_FILE, NB201_PROXIES_FILE, NB101_PROXIES_FILE)


class DataIntegrityError(DataFileError, RuntimeError):
    """A package data file is missing, or its content does not match the manifest."""


@dataclass(frozen=True)
class DataFile:
    """One manifest entry."""

    name: str
    sha256: str
    size: int
    description: str
    provenance: str


def data_dir() -> Path:
    return Path(str(resources.files("nasarena") / "data"))


def read_manifest(directory: Path | None = None) -> dict[str, DataFile]:
    path = (directory or data_dir()) / MANIFEST
    try:
        entries = json.loads(path.read_text())
    except FileNotFoundError:
        raise DataIntegrityError(f"package data manifest {path} is missing; reinstall nasarena") from None
    return {name: DataFile(name=name, **fields) for name, fields in entries.items()}


def read_verified(name: str, directory: Path | None = None) -> bytes:
    """Bytes of a package data file, after checking them against the manifest."""
    directory = directory or data_dir()
    entry = read_manifest(directory).get(name)
    if entry is None:
        raise DataIntegrityError(f"{name} is not listed in the package data manifest")
    try:
        content = (directory / name).read_bytes()
    except FileNotFoundError:
        raise DataIntegrityError(f"package data file {name} is missing; reinstall nasarena") from None
    digest = hashlib.sha256(content).hexdigest()
    if digest != entry.sha256:
        raise DataIntegrityError(
            f"package data file {name} is corrupted: sha256 {digest} != {entry.sha256} in the manifest"
        )
    return content


def load_arrays(name: str, directory: Path | None = None) -> dict[str, np.ndarray]:
    """Arrays of a verified ``.npz`` (zip) or ``.npz.xz`` (lzma) package data file."""
    content = read_verified(name, directory)
    try:
        if name.endswith(".xz"):
            content = lzma.decompress(content)
        with np.load(io.BytesIO(content)) as archive:
            return {key: archive[key] for key in archive.files}
    except (lzma.LZMAError, EOFError, OSError, ValueError) as error:  # checksum and manifest rewritten together
        raise DataIntegrityError(f"package data file {name} cannot be decoded ({error}); reinstall nasarena") from None


def save_arrays(
    name: str, arrays: dict[str, np.ndarray], description: str, provenance: str, directory: Path | None = None
) -> DataFile:
    """Write arrays as ``name`` and record it in the manifest.

    ``.npz.xz`` is lzma-compressed (2x smaller than zip on our integer tables, but slower to
    read); plain ``.npz`` is zip-deflated, for incompressible content such as md5 digests.
    """
    directory = directory or data_dir()
    buffer = io.BytesIO()
    if name.endswith(".xz"):
        np.savez(buffer, **arrays)
        content = lzma.compress(buffer.getvalue(), preset=9 | lzma.PRESET_EXTREME)
    else:
        np.savez_compressed(buffer, **arrays)
        content = buffer.getvalue()
    atomic_write_bytes(directory / name, content)
    return record_in_manifest(name, content, description, provenance, directory)


def record_in_manifest(name: str, content: bytes, description: str, provenance: str, directory: Path) -> DataFile:
    manifest_path = directory / MANIFEST
    entries = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    entry = DataFile(
        name=name,
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
        description=description,
        provenance=provenance,
    )
    entries[name] = {k: v for k, v in entry.__dict__.items() if k != "name"}
    atomic_write_bytes(manifest_path, (json.dumps(entries, indent=2, sort_keys=True) + "\n").encode())
    return entry
