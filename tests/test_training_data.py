"""The CIFAR-10 pipeline of issue 13: both layouts, splits, knobs, batches and bad input."""

import io
import pickle
import tarfile

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import SHARED_DATA  # noqa: E402
from nasarena.errors import DataFileError, InvalidSettingError  # noqa: E402
from nasarena.training.data import CLASSES, batches, load_cifar10  # noqa: E402

TARBALL = SHARED_DATA / "cifar10" / "cifar10-jpeg.tar.gz"
PER_CLASS_PER_BATCH = 5  # synthetic: 25 training and 5 test images per class


def _synthetic_arrays(seed: int, per_class: int):
    rng = np.random.default_rng(seed)
    labels = np.tile(np.arange(10), per_class)
    images = rng.integers(0, 256, size=(len(labels), 3 * 32 * 32), dtype=np.uint8)
    return images, labels


@pytest.fixture()
def batches_folder(tmp_path):
    """A tiny ``cifar-10-batches-py`` folder inside ``tmp_path`` (pickles as the official ones)."""
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    written = {}
    for k, name in enumerate([f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]):
        images, labels = _synthetic_arrays(k, PER_CLASS_PER_BATCH)
        with open(folder / name, "wb") as stream:
            pickle.dump({b"batch_label": name.encode(), b"labels": labels.tolist(), b"data": images}, stream)
        written[name] = (images, labels)
    return folder, written


def test_python_batches_folder_is_read_exactly(batches_folder):
    folder, written = batches_folder
    data = load_cifar10(folder.parent)  # a folder holding one is accepted too
    assert data.source == folder.resolve()
    assert (len(data.train.labels), len(data.valid.labels), len(data.test.labels)) == (200, 50, 50)
    assert data.train.images.dtype == torch.uint8 and data.train.labels.dtype == torch.int64
    assert np.bincount(data.valid.labels.numpy()).tolist() == [5] * 10  # a fifth of each class held out
    test_images, test_labels = written["test_batch"]
    assert np.array_equal(data.test.images.numpy().reshape(50, -1), test_images)
    assert np.array_equal(data.test.labels.numpy(), test_labels)
    train_images = np.concatenate([written[f"data_batch_{i}"][0] for i in range(1, 6)])
    seen = {row.tobytes() for row in data.train.images.numpy().reshape(200, -1)}
    held = {row.tobytes() for row in data.valid.images.numpy().reshape(50, -1)}
    assert not seen & held and seen | held == {row.tobytes() for row in train_images}
    pixels = data.train.images.numpy().astype(np.float64) / 255
    assert data.mean == pytest.approx(tuple(pixels.mean(axis=(0, 2, 3))))
    assert data.std == pytest.approx(tuple(pixels.std(axis=(0, 2, 3))))


def test_validation_split_is_seeded_and_subset_and_resize_follow_the_knobs(batches_folder):
    folder, _ = batches_folder
    first, again = load_cifar10(folder, validation_seed=1), load_cifar10(folder, validation_seed=1)
    other = load_cifar10(folder, validation_seed=2)
    assert torch.equal(first.valid.images, again.valid.images)
    assert not torch.equal(first.valid.images, other.valid.images)
    small = load_cifar10(folder, subset=3, image_size=16, validation_seed=1)
    assert (len(small.train.labels), len(small.valid.labels), len(small.test.labels)) == (30, 30, 30)
    assert small.train.images.shape[1:] == (3, 16, 16) and small.subset == 3 and small.image_size == 16
    full = first.valid.images[first.valid.labels == 0].double()  # 5 held out; the subset keeps 3 of them
    area = {tuple(a.flatten().tolist()) for a in full.reshape(-1, 3, 16, 2, 16, 2).mean(dim=(3, 5)).round()}
    kept = [tuple(image.double().flatten().tolist()) for image in small.valid.images[small.valid.labels == 0]]
    assert len(kept) == 3 and set(kept) <= area


def _image_file(pixels: np.ndarray, fmt: str) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(pixels.transpose(1, 2, 0)).save(buffer, format=fmt)
    return buffer.getvalue()


def test_image_tree_and_its_tarball_give_the_same_data_and_are_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("NASARENA_CACHE", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    tree = tmp_path / "tree"
    pixels = {}
    for split, count in (("train", 10), ("test", 2)):
        for cls in CLASSES:
            (tree / split / cls).mkdir(parents=True)
            for k in range(count):
                image = rng.integers(0, 256, (3, 32, 32), dtype=np.uint8)
                (tree / split / cls / f"{k:04d}.png").write_bytes(_image_file(image, "PNG"))
                pixels[(split, cls, k)] = image
    from_tree = load_cifar10(tree)
    assert (len(from_tree.train.labels), len(from_tree.valid.labels), len(from_tree.test.labels)) == (80, 20, 20)
    assert torch.equal(from_tree.test.images[0], torch.from_numpy(pixels[("test", "airplane", 0)]))
    assert from_tree.test.labels.tolist() == [k // 2 for k in range(20)]
    tarball = tmp_path / "images.tar.gz"
    with tarfile.open(tarball, "w:gz") as archive:
        archive.add(tree, arcname="CIFAR-10-images")  # a leading folder is allowed
    from_tarball = load_cifar10(tarball)
    assert torch.equal(from_tarball.train.images, from_tree.train.images)
    assert len(list((tmp_path / "cache").glob("cifar10-*.npz"))) == 2
    assert torch.equal(load_cifar10(tarball).valid.images, from_tree.valid.images)  # from the cache


def test_missing_and_corrupt_data_are_clear_errors(tmp_path, batches_folder, monkeypatch):
    missing = tmp_path / "nowhere"
    with pytest.raises(DataFileError, match="nowhere.*cifar-10-batches-py.*train/<class>"):
        load_cifar10(missing)
    monkeypatch.setenv("NASARENA_CIFAR10", str(missing))
    monkeypatch.setattr("nasarena.training.data.SHARED_TARBALL", tmp_path / "shared.tar.gz")
    with pytest.raises(DataFileError, match=r"NASARENA_CIFAR10=.*nowhere: no CIFAR-10 data there"):
        load_cifar10()  # an explicit choice that fails is an error, never a fall-back to the shared tarball
    monkeypatch.delenv("NASARENA_CIFAR10")
    with pytest.raises(DataFileError, match="shared.tar.gz.*NASARENA_CIFAR10 unset"):
        load_cifar10()
    folder, _ = batches_folder
    (folder / "data_batch_3").write_bytes(b"not a pickle at all")
    with pytest.raises(DataFileError, match="data_batch_3"):
        load_cifar10(folder)
    (folder / "data_batch_3").write_bytes(pickle.dumps(print))  # a foreign pickle never runs code
    with pytest.raises(DataFileError, match="data_batch_3.*refusing"):
        load_cifar10(folder)
    (folder / "data_batch_3").unlink()
    with pytest.raises(DataFileError, match="data_batch_3: missing"):
        load_cifar10(folder)
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"\x1f\x8b garbage")
    with pytest.raises(DataFileError, match="broken.tar.gz"):
        load_cifar10(broken)
    with pytest.raises(InvalidSettingError, match="image_size"):
        load_cifar10(folder, image_size=64)
    with pytest.raises(InvalidSettingError, match="subset"):
        load_cifar10(folder, subset=0)


def test_batches_order_augmentation_and_cutout(batches_folder):
    folder, _ = batches_folder
    data = load_cifar10(folder)
    split, mean, std = data.train, data.mean, data.std
    plain = list(batches(split, 64, augment=False, generator=None, mean=mean, std=std))
    assert [len(labels) for _, labels in plain] == [64, 64, 64, 8]
    images = torch.cat([x for x, _ in plain])
    expected = (split.images.float() / 255 - torch.tensor(mean).view(1, 3, 1, 1)) / torch.tensor(std).view(1, 3, 1, 1)
    assert torch.allclose(images, expected) and torch.equal(torch.cat([y for _, y in plain]), split.labels)

    def augmented(seed, cutout=0):
        return list(batches(split, 50, augment=True, generator=torch.Generator().manual_seed(seed), mean=mean,
                            std=std, cutout=cutout))

    first, again = augmented(5), augmented(5)
    assert all(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]) for a, b in zip(first, again))
    assert not torch.equal(first[0][1], split.labels[:50])  # shuffled
    # every augmented image is a 32x32 window of the zero-padded original, possibly flipped
    x, y = first[0]
    raw = (x * torch.tensor(std).view(1, 3, 1, 1) + torch.tensor(mean).view(1, 3, 1, 1)) * 255
    for image, label in zip(raw[:4].round(), y[:4]):
        candidates = split.images[split.labels == label].float()
        padded = torch.nn.functional.pad(candidates, (4, 4, 4, 4))
        windows = [padded[:, :, r:r + 32, c:c + 32] for r in range(9) for c in range(9)]
        windows = torch.cat(windows + [w.flip(3) for w in windows])
        assert (windows - image).abs().amax(dim=(1, 2, 3)).min() < 1e-3
    cut = augmented(5, cutout=16)[0][0]
    zero_share = (cut == 0).all(dim=1).float().mean(dim=(1, 2))
    assert (zero_share > 0).all() and (zero_share <= 0.25 + 1e-6).all()


@pytest.mark.skipif(not TARBALL.exists(), reason=f"the CIFAR-10 tarball is not at {TARBALL}")
def test_real_cifar10_tarball():
    data = load_cifar10(TARBALL)
    assert (len(data.train.labels), len(data.valid.labels), len(data.test.labels)) == (40_000, 10_000, 10_000)
    assert np.bincount(data.train.labels.numpy()).tolist() == [4000] * 10
    assert np.bincount(data.test.labels.numpy()).tolist() == [1000] * 10
    assert data.train.images.shape[1:] == (3, 32, 32)
    # CIFAR-10's well-known channel means (0.4914, 0.4822, 0.4465), up to the JPEG re-encoding
    assert data.mean == pytest.approx((0.4914, 0.4822, 0.4465), abs=0.003)
    quick = load_cifar10(TARBALL, image_size=16, subset=500)
    assert (len(quick.train.labels), len(quick.valid.labels), len(quick.test.labels)) == (5000, 5000, 5000)
    assert quick.train.images.shape[1:] == (3, 16, 16)
