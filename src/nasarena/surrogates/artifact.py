"""Versioned, checksummed surrogate artefacts: ``<space>-<model>-v<major>.<minor>``.

An artefact is one file holding a pickled :class:`SurrogateArtifact` (the fitted ensembles,
the runtime model, the name of the encoding, the training-data manifest, the validation
metrics and the optimum) behind a small header: a format tag and version, the nasarena
version that wrote it and the sha256 of the payload. The payload is lzma-compressed (fitted
trees are mostly repeated JSON-like structure and shrink ~5x). Loading checks all of it, so a
file built by an incompatible version or modified after it was written is a clear error, not
a silently different benchmark.

Format 2 added lzma compression, per-fidelity ensembles, validations and the optimum; files of
format 1 are refused with a message naming both formats.

Compatibility rule: the header's ``format_version`` is the major version, ``format_minor`` the
minor one. A major change (a field removed or changing meaning) is refused by every reader of
another major. A minor change only adds fields with a default (so unpickling an older file
gives the default, and an older reader of the same major ignores the new field): readers read
every minor of their major. Minor 1 (format 2.1) added the optional prediction table
(:mod:`.tabulation`); files of format 2.0 load with none and are answered by their models.

Pickle runs code when loaded: load artefacts you built or obtained from a trusted source,
like any model file.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import pickle
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import DataFileError, OutputError, as_missing_extra
from ..io.files import atomic_write_bytes
from ..version import __version__

if TYPE_CHECKING:
    from .metrics import FitMetrics

FORMAT = "nasarena-surrogate"
FORMAT_VERSION = 2
#: Additive changes within the major version (see the compatibility rule above).
FORMAT_MINOR = 1
NAME_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*-v\d+\.\d+$")
#: Bytes read to recognise an artefact by its header line (a header is about 250 bytes).
HEADER_LIMIT = 65_536


class ArtifactError(DataFileError):
    """The file is not a surrogate artefact this version of nasarena can load."""


def check_name(name: str) -> None:
    """Refuse a name that is not ``<space>-<model>-v<major>.<minor>`` (lower case, digits, hyphens)."""
    if not NAME_PATTERN.match(name):
        raise ArtifactError(f"artefact name {name!r} must look like <space>-<model>-v<major>.<minor>")


@dataclass(frozen=True)
class DataManifest:
    """What a surrogate was trained on.

    ``sha256`` is the digest of the data file (or, for data built in memory, of its canonical
    CSV form; ``description`` says which); ``split`` holds the data-row indices of the
    train/validation/test parts, so that the test metrics can be recomputed from the same data.
    """

    sha256: str
    rows: int
    sources: tuple[str, ...]
    description: str = ""
    split: object | None = None  # a splits.Split of data-row indices
    value_scale: str = "fraction"  # how valid_accuracy was given in the data: "fraction" or "percent"


@dataclass(frozen=True)
class Validation:
    """Fit metrics of the surrogate on one held-out set at one fidelity.

    ``target`` is what was predicted (``valid_accuracy`` or ``cost_seconds``); ``kl_divergence``
    is the mean KL divergence from the ground-truth normal of repeated evaluations to the
    ensemble's predictive normal (NaN where the set holds no repeats).
    """

    data: str
    fidelity: int
    target: str
    metrics: FitMetrics
    kl_divergence: float = float("nan")
    repeated_architectures: int = 0

    def to_text(self) -> str:
        m = self.metrics
        text = (f"{self.data}, {self.fidelity} epochs, {self.target}: n={m.n:,} R2={m.r2:.4f} MAE={m.mae:.5f} "
                f"Kendall={m.kendall_tau:.4f} sparse Kendall={m.sparse_kendall_tau:.4f} Spearman={m.spearman:.4f}")
        if self.repeated_architectures:
            text += f" KL={self.kl_divergence:.3f} ({self.repeated_architectures} repeated architectures)"
        return text


@dataclass(frozen=True)
class Optimum:
    """The best noise-free predicted validation accuracy at the highest fidelity, and where.

    ``over`` says over which architectures the maximum was taken: the enumerated space when it
    is finite, else the architectures of the training data.
    """

    value: float
    identity: str
    over: str


@dataclass
class SurrogateArtifact:
    """A fitted surrogate benchmark: ensembles per fidelity, runtime model, provenance.

    ``accuracy_model`` predicts validation accuracy at ``fidelity`` epochs (the highest);
    ``lower_fidelity_models`` maps lower epochs to their ensembles.
    """

    name: str
    space: str
    encoding: str
    accuracy_model: object  # an Ensemble
    runtime_model: object | None
    data: DataManifest
    validations: tuple[Validation, ...] = ()
    fidelity: int | None = None
    lower_fidelity_models: Mapping[int, object] = field(default_factory=dict)
    optimum: Optimum | None = None
    model: str = ""
    dataset: str | None = None
    source_benchmark: str | None = None
    notes: str = ""
    settings: object | None = None  # the settings.FitSettings it was fitted with
    #: Every architecture's predictions when the space is finite and the fit asked for it (format 2.1).
    prediction_table: object | None = None  # a tabulation.PredictionTable

    def __post_init__(self) -> None:
        check_name(self.name)

    @property
    def version(self) -> str:
        return self.name.rsplit("-v", 1)[1]

    @property
    def fidelities(self) -> tuple[int, ...]:
        """All fidelities (epochs) the artefact predicts, ascending."""
        top = () if self.fidelity is None else (self.fidelity,)
        return tuple(sorted(self.lower_fidelity_models)) + top

    def ensemble(self, fidelity: int):
        """The accuracy ensemble of one fidelity."""
        if fidelity == self.fidelity:
            return self.accuracy_model
        try:
            return self.lower_fidelity_models[fidelity]
        except KeyError:
            raise ValueError(f"{self.name} has no fidelity of {fidelity} epochs; "
                             f"available: {list(self.fidelities)}") from None


def check_replaceable(path: Path, what: str = "surrogate artefact") -> None:
    """Refuse ``path`` as the place of a new artefact unless it is free or holds an artefact.

    Writing replaces the file, so a file nasarena did not write there (a thesis, a data file)
    would be lost: only an earlier artefact (of any format version: its header line says what it
    is) may be replaced. Raises :class:`OutputError` naming the file; the file is kept."""
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{what} {path} is a folder; give the file to write, e.g. {path / 'name.nsa'}")
    try:
        with open(path, "rb") as handle:
            line = handle.readline(HEADER_LIMIT)
    except FileNotFoundError:
        return
    except OSError as error:
        raise OutputError(f"{what} {path}: cannot read it to check that it is a surrogate artefact "
                          f"({error.strerror or error}); it is kept: choose another file") from None
    if not _is_header(line):
        raise OutputError(f"{what} {path} exists and is not a surrogate artefact (nasarena did not write it); it "
                          "is kept: choose another file name, or delete it first")


def _is_header(line: bytes) -> bool:
    """Whether ``line`` is the header line of an artefact of any format version."""
    try:
        header = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False
    return isinstance(header, dict) and header.get("format") == FORMAT


def save(artifact: SurrogateArtifact, path: Path) -> Path:
    """Write the artefact atomically (a crash never leaves a half-written file); ``path`` must be
    free or hold an earlier artefact (:func:`check_replaceable`)."""
    check_replaceable(path)
    payload = lzma.compress(pickle.dumps(artifact, protocol=pickle.HIGHEST_PROTOCOL), preset=6)
    header = {"format": FORMAT, "format_version": FORMAT_VERSION, "format_minor": FORMAT_MINOR,
              "nasarena": __version__, "name": artifact.name,
              "compression": "xz", "sha256": hashlib.sha256(payload).hexdigest()}
    atomic_write_bytes(Path(path), json.dumps(header).encode() + b"\n" + payload)
    return Path(path)


def read_header(path: Path) -> dict:
    """The JSON header of an artefact file, after checking that it is one of the current format."""
    with open(path, "rb") as handle:
        line = handle.readline()
    return _check_header(path, line)


def _check_header(path: Path, line: bytes) -> dict:
    try:
        header = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ArtifactError(f"{path} is not a nasarena surrogate artefact (no header)") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        got = header.get("format") if isinstance(header, dict) else None
        raise ArtifactError(f"{path} is not a nasarena surrogate artefact (format {got!r})")
    if header.get("format_version") != FORMAT_VERSION:
        raise ArtifactError(f"{path} was written in artefact format {header.get('format_version')} by nasarena "
                            f"{header.get('nasarena')}; this nasarena ({__version__}) reads format {FORMAT_VERSION}: "
                            f"refit it with `nasarena surrogate fit`")
    return header


def load(path: Path) -> SurrogateArtifact:
    """The artefact in ``path``, after checking its format, version and checksum."""
    try:
        content = Path(path).read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"surrogate artefact {path} does not exist") from None
    except OSError as error:
        raise ArtifactError(f"surrogate artefact {path} cannot be read: {error.strerror or error}") from None
    return loads(content, str(path))


def loads(content: bytes, origin: str) -> SurrogateArtifact:
    """The artefact in ``content`` (read from ``origin``, named in errors)."""
    line, _, payload = content.partition(b"\n")
    header = _check_header(origin, line)
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise ArtifactError(f"{origin} has been modified or is corrupted: its checksum does not match its header")
    try:
        artifact = pickle.loads(lzma.decompress(payload))
    except (lzma.LZMAError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, IndexError,
            TypeError, ValueError) as error:  # a checksum recomputed over bad data, or a foreign pickle
        missing = as_missing_extra(error, f"{origin}") if isinstance(error, ImportError) else None
        if missing is not None:  # sound data whose model library (xgboost, lightgbm, torch) is absent
            raise missing from None
        raise ArtifactError(f"{origin}: its data cannot be decoded ({type(error).__name__}: {error}); the file "
                            "is damaged or was written by another program") from None
    if not isinstance(artifact, SurrogateArtifact) or artifact.name != header.get("name"):
        raise ArtifactError(f"{origin} does not hold the surrogate artefact its header names ({header.get('name')!r})")
    return artifact
