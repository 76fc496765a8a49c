"""CIFAR-10 for training, read from local files only (nothing is downloaded).

Two layouts are accepted (``path`` may point at either):

- the python-batches folder ``cifar-10-batches-py`` (``data_batch_1`` .. ``data_batch_5``,
  ``test_batch``; what torchvision downloads), or a folder holding one;
- a JPEG tree ``train/<class>/*.jpg`` and ``test/<class>/*.jpg`` (PNG files are read too), as a
  folder or a tarball (``.tar``, ``.tar.gz``, ``.tgz``; a leading folder inside it is allowed).
  Images are ordered by class, then file name.

Where the data comes from: ``path`` when given; else ``$NASARENA_CIFAR10`` when set, which is
an explicit choice: a variable naming no usable data is an error naming it, never a silent
fall-back; else the shared tarball.

Images are decoded once into uint8 tensors (N x 3 x H x W; the whole set is 180 MB) and
batches are built on the fly by :func:`batches`. Decoding 60,000 JPEGs takes a while, so the
decoded arrays of a JPEG source are cached as ``cifar10-<key>.npz`` under ``$NASARENA_CACHE``
(default ``~/.cache/nasarena``), written atomically; the key covers the source's path, sizes and
modification times, so a changed source is decoded again. The cache is never written beside
the user's data.

Splits, as NAS-Bench-101 (Sec. 2.3): the 50,000 training images are split per class into
40,000 for training and 10,000 for validation (a fifth of each class is held out; which ones
is a fixed permutation of the class's images seeded by ``(validation_seed, class)``), and the
10,000 test images are the test split. ``subset=n`` keeps the first ``n`` images of each class
(in that seeded order for train and validation, in file order for test) in *each* split,
capped by what the split has (4,000 / 1,000 / 1,000 per class), so ``subset=500`` gives
5,000 / 5,000 / 5,000 images. ``image_size`` below 32 resizes by area averaging (32 -> 16
averages 2x2 blocks). Normalisation uses the per-channel mean and standard deviation of the
resulting training split, in [0, 1] units.

Every split must hold every class equally often, as CIFAR-10 does (5,000 training and 1,000 test
images per class; a subset takes as many of each). Anything else is an incomplete source: the
shared tarball holds ``test/`` before ``train/``, so one cut at a member boundary keeps every test
image and the training images of the first classes only, and training on it would learn three
classes and still finish. Such a source is refused with the split and its counts.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from ..errors import DataFileError, InvalidSettingError
from ..io.files import atomic_write_bytes

#: The classes in CIFAR-10's label order (label k is ``CLASSES[k]``); JPEG folders are named so.
CLASSES: tuple[str, ...] = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
                            "truck")
#: Where the data is looked for when no path is given: this variable, then the shared tarball.
ENV_VARIABLE = "NASARENA_CIFAR10"
SHARED_TARBALL = Path("/work/shared/data/cifar10/cifar10-jpeg.tar.gz")
CACHE_VARIABLE = "NASARENA_CACHE"
SIDE = 32
#: Share of each class's training images held out for validation (10,000 of 50,000).
VALIDATION_SHARE = 5
#: CIFAR-10's training images of each class, and NAS-Bench-101's split of them (4,000 and 1,000).
TRAINING_IMAGES_PER_CLASS = 5_000
VALID_PER_CLASS = TRAINING_IMAGES_PER_CLASS // VALIDATION_SHARE
TRAIN_PER_CLASS = TRAINING_IMAGES_PER_CLASS - VALID_PER_CLASS
#: Padding of the random crop at 32 x 32 (scaled with the image side for smaller images).
CROP_PADDING = 4
_BATCH_FILES = tuple(f"data_batch_{k}" for k in range(1, 6))
_TEST_FILE = "test_batch"
_TARBALL_SUFFIXES = (".tar", ".tar.gz", ".tgz")
_LAYOUTS = ("a 'cifar-10-batches-py' folder (data_batch_1..data_batch_5, test_batch) or a folder holding one",
            "a JPEG tree train/<class>/*.jpg and test/<class>/*.jpg, as a folder or a .tar/.tar.gz/.tgz tarball")
_CACHE_VERSION = 1


@dataclass(frozen=True, eq=False)
class Split:
    """Images (uint8, N x 3 x H x W) and their labels (int64, N) of one split."""

    images: torch.Tensor
    labels: torch.Tensor


@dataclass(frozen=True, eq=False)
class Cifar10:
    """The three splits, how they were made, and the training split's per-channel statistics."""

    train: Split
    valid: Split
    test: Split
    image_size: int
    subset: int | None
    source: Path
    mean: tuple[float, float, float]
    std: tuple[float, float, float]


def load_cifar10(path: str | Path | None = None, *, image_size: int = SIDE, subset: int | None = None,
                 validation_seed: int = 0) -> Cifar10:
    """Read CIFAR-10 from ``path`` (see the module for layouts, splits and knobs).

    Without ``path``: ``$NASARENA_CIFAR10`` when set, else the shared tarball. A missing,
    corrupt or incomplete source raises :class:`~nasarena.errors.DataFileError` naming the paths
    tried and the layouts (and the variable, when it chose the source).
    """
    _check_int("image_size", image_size, 1, SIDE)
    if subset is not None:
        _check_int("subset", subset, 1, None)
    _check_int("validation_seed", validation_seed, 0, None)
    source, layout, chosen_by = _locate(path)
    try:
        return _load(source, layout, image_size, subset, validation_seed)
    except DataFileError as error:
        if chosen_by is None:
            raise
        raise DataFileError(f"{chosen_by}: {error}; correct or unset the variable") from None


def _load(source: Path, layout: str, image_size: int, subset: int | None, validation_seed: int) -> Cifar10:
    train_images, train_labels, test_images, test_labels = _decoded(source, layout)
    train_index, valid_index = _validation_split(train_labels, validation_seed, subset)
    test_index = _first_per_class(test_labels, np.arange(len(test_labels)), subset)
    train = _split(train_images, train_labels, train_index, image_size)
    valid = _split(train_images, train_labels, valid_index, image_size)
    test = _split(test_images, test_labels, test_index, image_size)
    _check_classes(source, {"train": train, "valid": valid, "test": test}, subset)
    mean, std = _statistics(train.images)
    return Cifar10(train=train, valid=valid, test=test, image_size=image_size, subset=subset, source=source,
                   mean=mean, std=std)


def batches(split: Split, batch_size: int, *, augment: bool, generator: torch.Generator | None, mean, std,
            cutout: int = 0) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """Normalised float32 batches of ``split`` (the last one may be smaller).

    Shuffled (by ``generator``, else torch's global stream) when ``augment`` or a generator is
    given, otherwise in order. ``augment``: a random crop after zero padding (4 pixels at
    32 x 32, scaled with the side) and a horizontal flip with probability 1/2. ``cutout > 0``:
    a ``cutout`` x ``cutout`` square at a uniform centre is zeroed after normalisation (clipped
    at the border, as the DARTS code does).
    """
    _check_int("batch_size", batch_size, 1, None)
    _check_int("cutout", cutout, 0, None)
    count = len(split.labels)
    shuffled = augment or generator is not None
    order = torch.randperm(count, generator=generator) if shuffled else torch.arange(count)
    mean_t = torch.tensor(mean, dtype=torch.float32).view(1, 3, 1, 1)
    std_t = torch.tensor(std, dtype=torch.float32).view(1, 3, 1, 1)
    for start in range(0, count, batch_size):
        index = order[start:start + batch_size]
        images = split.images[index]
        if augment:
            images = _random_crop_flip(images, generator)
        images = (images.float() / 255.0 - mean_t) / std_t
        if cutout:
            images = _cutout(images, cutout, generator)
        yield images, split.labels[index]


def _random_crop_flip(images: torch.Tensor, generator: torch.Generator | None) -> torch.Tensor:
    count, _, height, width = images.shape
    pad = max(1, round(CROP_PADDING * height / SIDE))
    padded = F.pad(images, (pad, pad, pad, pad))
    top = torch.randint(0, 2 * pad + 1, (count,), generator=generator)
    left = torch.randint(0, 2 * pad + 1, (count,), generator=generator)
    flip = torch.rand(count, generator=generator) < 0.5
    rows = top[:, None] + torch.arange(height)
    columns = left[:, None] + torch.arange(width)
    columns = torch.where(flip[:, None], columns.flip(1), columns)
    return padded[torch.arange(count)[:, None, None, None], torch.arange(3)[None, :, None, None],
                  rows[:, None, :, None], columns[:, None, None, :]]


def _cutout(images: torch.Tensor, length: int, generator: torch.Generator | None) -> torch.Tensor:
    count, _, height, width = images.shape
    centre_y = torch.randint(0, height, (count,), generator=generator)
    centre_x = torch.randint(0, width, (count,), generator=generator)
    half = length // 2
    rows = torch.arange(height)[None, :]
    columns = torch.arange(width)[None, :]
    inside_y = (rows >= centre_y[:, None] - half) & (rows < centre_y[:, None] + half)
    inside_x = (columns >= centre_x[:, None] - half) & (columns < centre_x[:, None] + half)
    keep = ~(inside_y[:, :, None] & inside_x[:, None, :])
    return images * keep[:, None, :, :]


def _check_int(name: str, value, low: int, high: int | None) -> None:
    valid = isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= low
    if not valid or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        raise InvalidSettingError(f"{name}={value!r} is not accepted; {name} must be a whole number {bound}")


# --- finding and decoding the source -------------------------------------------------------


def _locate(path: str | Path | None) -> tuple[Path, str, str | None]:
    """The source, its layout ("batches", "tree" or "tarball") and, when ``$NASARENA_CIFAR10``
    chose it, that choice as text (errors about the source then name the variable); an error
    naming what was tried when nothing usable is there."""
    chosen = os.environ.get(ENV_VARIABLE)
    if path is not None:
        candidate, chosen_by, origin = Path(path).expanduser(), None, ""
    elif chosen:
        candidate, chosen_by, origin = Path(chosen).expanduser(), f"${ENV_VARIABLE}={chosen}", ""
    else:
        candidate, chosen_by = SHARED_TARBALL, None
        origin = f" (no path given and ${ENV_VARIABLE} unset: the shared tarball)"
    tried = []
    for place in (candidate, candidate / "cifar-10-batches-py"):
        tried.append(str(place))
        layout = _layout(place)
        if layout is not None:
            return place.resolve(), layout, chosen_by
    where = f"{chosen_by}: no CIFAR-10 data there" if chosen_by else "no CIFAR-10 data found"
    advice = "correct or unset the variable" if chosen_by else "point --data / path at one"
    raise DataFileError(f"{where}; tried {', '.join(tried)}{origin}. Accepted: {'; or '.join(_LAYOUTS)}. "
                        f"nasarena downloads nothing: {advice}")


def _layout(place: Path) -> str | None:
    if place.is_file() and place.name.endswith(_TARBALL_SUFFIXES):
        return "tarball"
    if not place.is_dir():
        return None
    if (place / _TEST_FILE).exists() or (place / _BATCH_FILES[0]).exists():
        return "batches"
    if (place / "train").is_dir() or (place / "test").is_dir():
        return "tree"
    return None


def _decoded(source: Path, layout: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Train images, train labels, test images, test labels (uint8 N x 3 x 32 x 32, int64)."""
    if layout == "batches":
        return _read_batches(source)
    cache = _cache_file(source)
    if cache is not None and cache.is_file():
        try:
            with np.load(cache) as stored:
                return tuple(stored[key] for key in ("train_images", "train_labels", "test_images", "test_labels"))
        except (OSError, ValueError, KeyError, EOFError):
            pass  # a damaged cache of ours: decode again and overwrite it
    arrays = _read_tarball(source) if layout == "tarball" else _read_tree(source)
    if cache is not None:
        buffer = io.BytesIO()
        np.savez(buffer, train_images=arrays[0], train_labels=arrays[1], test_images=arrays[2],
                 test_labels=arrays[3])
        try:
            atomic_write_bytes(cache, buffer.getvalue())
        except OSError:
            pass  # no writable cache: decode again next time
    return arrays


def _cache_file(source: Path) -> Path | None:
    """The cache file of a JPEG source: keyed by its path and every file's size and mtime."""
    digest = hashlib.sha256(f"{_CACHE_VERSION}:{source}".encode())
    files = [source] if source.is_file() else sorted(p for p in source.rglob("*") if p.is_file())
    for file in files:
        stat = file.stat()
        digest.update(f"{file}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    folder = Path(os.environ.get(CACHE_VARIABLE) or Path.home() / ".cache" / "nasarena").expanduser()
    return folder / f"cifar10-{digest.hexdigest()[:20]}.npz"


class _ArrayUnpickler(pickle.Unpickler):
    """Loads the CIFAR batch pickles while refusing anything but numpy arrays (no code runs)."""

    _ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
                ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "scalar"),
                ("numpy._core.multiarray", "scalar")}

    def find_class(self, module: str, name: str):
        if (module, name) not in self._ALLOWED:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}")
        return super().find_class(module, name)


def _read_batches(folder: Path):
    train = [_read_batch(folder / name) for name in _BATCH_FILES]
    test_images, test_labels = _read_batch(folder / _TEST_FILE)
    return (np.concatenate([images for images, _ in train]), np.concatenate([labels for _, labels in train]),
            test_images, test_labels)


def _read_batch(file: Path) -> tuple[np.ndarray, np.ndarray]:
    if not file.is_file():
        raise DataFileError(f"{file}: missing; a cifar-10-batches-py folder holds "
                            f"{', '.join(_BATCH_FILES)} and {_TEST_FILE}")
    try:
        with open(file, "rb") as stream:
            batch = _ArrayUnpickler(stream, encoding="bytes").load()
        data = np.asarray(batch[b"data"], dtype=np.uint8)
        labels = np.asarray(batch[b"labels"], dtype=np.int64)
    except Exception as error:  # any damage: truncated, foreign pickle, missing keys
        raise DataFileError(f"{file}: not a CIFAR-10 python batch ({type(error).__name__}: {error})") from None
    if data.ndim != 2 or data.shape[1] != 3 * SIDE * SIDE or len(labels) != len(data):
        raise DataFileError(f"{file}: expected data of shape N x {3 * SIDE * SIDE} and N labels, got data "
                            f"{data.shape} and {len(labels)} labels")
    _check_labels(file, labels)
    return data.reshape(-1, 3, SIDE, SIDE), labels


def _check_labels(where, labels: np.ndarray) -> None:
    if len(labels) and (labels.min() < 0 or labels.max() >= len(CLASSES)):
        raise DataFileError(f"{where}: labels must be 0..{len(CLASSES) - 1}, found {labels.min()}..{labels.max()}")


def _jpeg_place(name: str) -> tuple[str, str, str] | None:
    """(split, class, file name) of a tree member like ``[prefix/]train/cat/0001.jpg``, else None."""
    parts = name.replace("\\", "/").split("/")
    if len(parts) < 3 or parts[-3] not in ("train", "test") or not parts[-1].lower().endswith((".jpg", ".jpeg", ".png")):
        return None
    return parts[-3], parts[-2], parts[-1]


def _decode(where: str, content: bytes) -> np.ndarray:
    from PIL import Image

    try:
        with Image.open(io.BytesIO(content)) as image:
            pixels = np.asarray(image.convert("RGB"), dtype=np.uint8)
    except Exception as error:
        raise DataFileError(f"{where}: not a readable image ({type(error).__name__}: {error})") from None
    if pixels.shape != (SIDE, SIDE, 3):
        raise DataFileError(f"{where}: CIFAR-10 images are {SIDE} x {SIDE} RGB, this one is {pixels.shape}")
    return pixels.transpose(2, 0, 1)


def _read_tarball(file: Path):
    found: dict[tuple[str, str, str], np.ndarray] = {}
    try:
        with tarfile.open(file, "r:*") as archive:
            for member in archive:
                place = _jpeg_place(member.name) if member.isfile() else None
                if place is not None:
                    found[place] = _decode(f"{file}:{member.name}", archive.extractfile(member).read())
    except (tarfile.TarError, OSError, EOFError) as error:
        raise DataFileError(f"{file}: not a readable tarball ({type(error).__name__}: {error})") from None
    return _assemble(str(file), found)


def _read_tree(folder: Path):
    found = {}
    for split in ("train", "test"):
        for file in sorted((folder / split).glob("*/*")):
            place = _jpeg_place(str(file.relative_to(folder)))
            if place is not None and file.is_file():
                found[place] = _decode(str(file), file.read_bytes())
    return _assemble(str(folder), found)


def _assemble(where: str, found: dict[tuple[str, str, str], np.ndarray]):
    """Stack the decoded images of each split in (class, file name) order, checking the classes."""
    arrays = []
    for split in ("train", "test"):
        keys = sorted(key for key in found if key[0] == split)
        if not keys:
            raise DataFileError(f"{where}: no images under {split}/<class>/; expected {_LAYOUTS[1]}")
        unknown = sorted({cls for _, cls, _ in keys} - set(CLASSES))
        if unknown:
            raise DataFileError(f"{where}: unknown class folder(s) {', '.join(unknown)} under {split}/; "
                                f"CIFAR-10's classes are {', '.join(CLASSES)}")
        keys.sort(key=lambda key: (CLASSES.index(key[1]), key[2]))
        arrays.append(np.stack([found[key] for key in keys]))
        arrays.append(np.array([CLASSES.index(cls) for _, cls, _ in keys], dtype=np.int64))
    return tuple(arrays)


# --- splits -------------------------------------------------------------------------------


def _check_classes(source: Path, splits: dict[str, Split], subset: int | None) -> None:
    """Refuse a split that misses classes or holds them unequally often (see the module docstring)."""
    for name, split in splits.items():
        counts = np.bincount(split.labels.numpy(), minlength=len(CLASSES))
        if counts.min() > 0 and counts.min() == counts.max():
            continue
        listing = ", ".join(f"{cls} {count:,}" for cls, count in zip(CLASSES, counts))
        asked = f" (subset={subset}: up to {subset:,} images per class)" if subset is not None else ""
        raise DataFileError(f"{source}: the {name} split{asked} holds {listing} images; CIFAR-10 holds every "
                            f"class equally often ({TRAIN_PER_CLASS:,} train, {VALID_PER_CLASS:,} valid and 1,000 "
                            "test images each), so this "
                            f"source is incomplete (a cut tarball or a partial copy?): point at the complete data set")


def _validation_split(labels: np.ndarray, seed: int, subset: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the training and validation images (a fifth of each class held out, seeded)."""
    train, valid = [], []
    for label in range(len(CLASSES)):
        members = np.flatnonzero(labels == label)
        members = members[np.random.default_rng([seed, label]).permutation(len(members))]
        held = len(members) // VALIDATION_SHARE
        valid.append(members[:held])
        train.append(members[held:])
    train_index, valid_index = np.concatenate(train), np.concatenate(valid)
    return (_first_per_class(labels, train_index, subset), _first_per_class(labels, valid_index, subset))


def _first_per_class(labels: np.ndarray, index: np.ndarray, subset: int | None) -> np.ndarray:
    """The first ``subset`` entries of ``index`` of each class (all without subset), ascending."""
    if subset is not None:
        index = np.concatenate([index[labels[index] == label][:subset] for label in range(len(CLASSES))])
    return np.sort(index)


def _split(images: np.ndarray, labels: np.ndarray, index: np.ndarray, image_size: int) -> Split:
    chosen = torch.from_numpy(np.ascontiguousarray(images[index]))
    if image_size != SIDE and len(chosen):
        chosen = torch.cat([F.interpolate(part.float(), size=(image_size, image_size), mode="area")
                            .round_().clamp_(0, 255).to(torch.uint8) for part in chosen.split(5000)])
    return Split(images=chosen.contiguous(), labels=torch.from_numpy(labels[index].astype(np.int64)))


def _statistics(images: torch.Tensor) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Per-channel mean and standard deviation in [0, 1] units (exact integer sums, in chunks)."""
    if len(images) == 0:
        raise DataFileError("the training split is empty; the source holds no training images")
    total = torch.zeros(3, dtype=torch.int64)
    squares = torch.zeros(3, dtype=torch.int64)
    for part in images.split(2000):
        values = part.long()
        total += values.sum(dim=(0, 2, 3))
        squares += (values * values).sum(dim=(0, 2, 3))
    count = images.numel() // 3
    mean = total.double() / count
    variance = (squares.double() / count - mean * mean).clamp_min(1e-12)
    return tuple(float(v) / 255.0 for v in mean), tuple(float(v) ** 0.5 / 255.0 for v in variance)
