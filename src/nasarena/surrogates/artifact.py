"""Versioned, checksummed surrogate artefacts: ``<space>-<model>-v<major>.<minor>``.

An artefact is one file holding a pickled :class:`SurrogateArtifact` (the fitted ensemble, the
runtime model, the name of the encoding, the training-data manifest and the validation
metrics) behind a small header: a format tag, the nasarena version that wrote it and the
sha256 of the payload. Loading checks all three, so a file built by an incompatible version
or modified after it was written is a clear error, not a silently different benchmark.

Pickle runs code when loaded: load artefacts you built or obtained from a trusted source,
like any model file.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from ..io.files import atomic_write_bytes

FORMAT = "nasarena-surrogate"
FORMAT_VERSION = 1
NAME_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*-v\d+\.\d+$")


class ArtifactError(ValueError):
    """The file is not a surrogate artefact this version of nasarena can load."""


@dataclass(frozen=True)
class DataManifest:
    """What a surrogate was trained on."""

    sha256: str
    rows: int
    sources: tuple[str, ...]


@dataclass
class SurrogateArtifact:
    name: str
    space: str
    encoding: str
    accuracy_model: object  # an Ensemble
    runtime_model: object | None
    data: DataManifest
    metrics: dict[str, float] = field(default_factory=dict)
    fidelity: int | None = None

    def __post_init__(self) -> None:
        if not NAME_PATTERN.match(self.name):
            raise ArtifactError(f"artefact name {self.name!r} must look like <space>-<model>-v<major>.<minor>")


def save(artifact: SurrogateArtifact, path: Path) -> Path:
    payload = pickle.dumps(artifact, protocol=pickle.HIGHEST_PROTOCOL)
    header = {"format": FORMAT, "format_version": FORMAT_VERSION, "nasarena": __version__, "name": artifact.name,
              "sha256": hashlib.sha256(payload).hexdigest()}
    atomic_write_bytes(Path(path), json.dumps(header).encode() + b"\n" + payload)
    return Path(path)


def load(path: Path) -> SurrogateArtifact:
    content = Path(path).read_bytes()
    line, _, payload = content.partition(b"\n")
    try:
        header = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ArtifactError(f"{path} is not a nasarena surrogate artefact (no header)") from None
    if header.get("format") != FORMAT:
        raise ArtifactError(f"{path} is not a nasarena surrogate artefact (format {header.get('format')!r})")
    if header.get("format_version") != FORMAT_VERSION:
        raise ArtifactError(f"{path} was written in artefact format {header.get('format_version')} by nasarena "
                            f"{header.get('nasarena')}; this nasarena ({__version__}) reads format {FORMAT_VERSION}")
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise ArtifactError(f"{path} has been modified or is corrupted: its checksum does not match its header")
    return pickle.loads(payload)
