"""Settings fingerprints are stored (result names, checkpoints, run folders, output marks): they
must never drift. The digests below were computed by the code before the one helper
(nasarena.io.fingerprint) replaced the four copies; any change of the canonical text, digest or
length fails here. Adding a setting to one of these objects changes its digest on purpose:
then every stored run of that kind reads as other settings, and the literal must be updated
knowingly."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import pytest

from nasarena.io import outputs
from nasarena.io.fingerprint import canonical_json, settings_fingerprint
from nasarena.oneshot.settings import SearchSettings
from nasarena.runner.experiment import RunSpec
from nasarena.runner.protocol import Budget, RunSettings, settings_hash
from nasarena.training import checkpoint
from nasarena.training.protocols import Protocol

PROTOCOL = Protocol(name="fixed", optimizer="sgd", learning_rate=0.1, final_learning_rate=0.0, schedule_unit="step",
                    epochs=12, batch_size=128, weight_decay=5e-4, momentum=0.9, nesterov=True, rmsprop_decay=0.9,
                    rmsprop_epsilon=1.0, budgets=(4, 12), cutout=16, mixup_alpha=0.2, drop_path=0.1,
                    auxiliary_weight=0.4, grad_clip=5.0, label_smoothing=0.1, batch_norm_momentum=0.003)
CHECKPOINT_SETTINGS = {
    "protocol": PROTOCOL.to_dict(), "budget": 12, "seed": 3,
    "network": {"class": "NB101Network", "scale": {"channels": 16, "stacks": 3}, "arch": "cell text",
                "parameters": 123456, "initial_weights_sha256": "0123456789abcdef"},
    "data": {"source": "synthetic", "image_size": 32, "subset": None, "sizes": [40000, 10000, 10000]},
}


def test_runner_settings_hash_is_unchanged():
    """sha1, 10 hex digits: in every result file's name and settings_hash column."""
    assert settings_hash("rs", {}, RunSettings(), Budget(seconds=1e7)) == "3a68933438"
    assert settings_hash("re", {"population_size": 20, "mutation": "paper", "path": Path("/tmp/x")},
                         RunSettings(n_workers=4, caching=True, count_optimizer_time=True),
                         Budget(seconds=2.5e6, evaluations=300),
                         {"nb101": "nb101-noisy", "version": "2.1"}) == "2ea1194735"
    spec = RunSpec("nb101-lite", "rs", 0, Budget(seconds=1e7, evaluations=1000), optimizer_settings=(("batch", 4),),
                   run_settings=RunSettings(n_workers=2))
    assert spec.settings_hash == "a9fa32da1e"


def test_training_checkpoint_fingerprint_is_unchanged():
    assert checkpoint.fingerprint(CHECKPOINT_SETTINGS) == "9ebc683fca068665"
    with_path = {**CHECKPOINT_SETTINGS, "data": {**CHECKPOINT_SETTINGS["data"], "source": Path("/data/cifar")}}
    assert checkpoint.fingerprint(with_path) == "2cca5a0268b8ad72"  # a path is hashed as its text


def test_training_protocol_fingerprint_is_unchanged():
    assert PROTOCOL.fingerprint() == "644cfd64a89d099e"


def test_oneshot_search_settings_fingerprint_is_unchanged():
    search = SearchSettings(
        space="nb1shot1-2", optimizer="gdas", epochs=10, channels=8, stacks=3, cells_per_stack=2, image_size=16,
        subset=100, batch_size=32, cutout=8, augment=False, learning_rate=0.05, learning_rate_min=0.001, momentum=0.9,
        weight_decay=3e-4, grad_clip=5.0, arch_learning_rate=3e-4, arch_beta1=0.5, arch_beta2=0.999,
        arch_weight_decay=1e-3, partial_channels=4, tau_max=10.0, tau_min=0.5, samples=50, screen_batches=2,
        finalists=3, controller_hidden=16, controller_learning_rate=3.5e-4, controller_entropy_weight=1e-4,
        controller_baseline_decay=0.99, benchmark="nb101-noisy", benchmark_path=None, snapshot_every=5)
    assert search.fingerprint() == "80489563bbe24717"


def test_output_mark_fingerprint_is_unchanged():
    settings = {"benchmarks": ["nb101-lite"], "seeds": (0, 1), "out": Path("/tmp/o"), "nan": math.nan, "budget": 1e7}
    assert outputs.fingerprint(settings) == "e626ff29cf0513d7"
    assert outputs.fingerprint(None) == "74234e98afe7498f"


def test_canonical_text():
    """sort_keys, the json module's default separators, str() of what JSON cannot write."""
    payload = {"b": (1, 2.5), "a": {"z": None, "y": True}, "p": Path("/x"), "n": math.nan, "u": "é"}
    assert canonical_json(payload) == '{"a": {"y": true, "z": null}, "b": [1, 2.5], "n": NaN, "p": "/x", "u": "\\u00e9"}'
    assert settings_fingerprint({"a": 1, "b": 2}) == settings_fingerprint({"b": 2, "a": 1})
    assert settings_fingerprint({"a": 1}, digest="sha1", length=10) == hashlib.sha1(b'{"a": 1}').hexdigest()[:10]
    assert len(settings_fingerprint({"a": 1}, length=64)) == 64


def test_strict_and_bad_arguments():
    with pytest.raises(TypeError):
        settings_fingerprint({"p": Path("/x")}, strict=True)
    with pytest.raises(ValueError, match="unknown fingerprint digest"):
        settings_fingerprint({}, digest="md5")
    for length in (0, 41, True, 2.0):
        with pytest.raises(ValueError, match="length"):
            settings_fingerprint({}, digest="sha1", length=length)
