"""Training protocols of the benchmarks: how NB101, NB201 and NB301 trained every network.

A :class:`Protocol` is a frozen value holding every setting of one training pipeline, so that
it can be hashed into a settings fingerprint (checkpoints, the live benchmark's store) and
printed next to every result. Three documented presets reproduce the papers' pipelines:

- :data:`NB101` (NAS-Bench-101, Supplement S2.1 Table 1 and the released ``nasbench`` code):
  RMSProp with TensorFlow 1's semantics (decay 0.9, momentum 0.9, epsilon 1.0: see
  :class:`nasarena.training.optim.TFRMSprop`), learning rate 0.2 with cosine decay to 0 per
  step over the epoch budget, batch 256, L2 weight decay 1e-4 (a loss term
  ``1e-4 * sum(w**2) / 2`` over every trainable variable in the original; its gradient
  ``1e-4 * w`` is added to the gradient here, which is the same update), standard
  augmentation, no cutout. Budgets 4, 12, 36 and 108 epochs, each with its own cosine schedule,
  and a halfway evaluation (the records hold every epoch, so the halfway one is among them).
- :data:`NB201` (NAS-Bench-201, Sec. 2.3): SGD with Nesterov momentum 0.9, learning rate 0.1
  with cosine decay per step to 0, weight decay 5e-4, batch 256, 200 epochs.
- :data:`NB301` (NAS-Bench-301, Appendix C.6, the DARTS proxy pipeline): SGD with momentum 0.9,
  learning rate 0.025 with cosine annealing per epoch towards 1e-8, weight decay 3e-4, batch 96,
  cutout 16, mixup alpha 0.2, auxiliary tower weight 0.4, drop path 0.2 (ramped linearly over
  the epochs as in DARTS), gradient norm clipping at 5, 100 epochs, on a network of 32 initial
  channels and 8 cells (weight decay and clipping are the DARTS code's; the paper omits them).
- :data:`QUICK`: NB101's pipeline for 3 epochs with faster batch-norm statistics (see there).

``batch_norm_momentum`` (torch's convention; ``None``: as the network was built) sets the
running-statistics momentum of every batch-norm layer before training.

Every setting can be overridden with :meth:`Protocol.replace`, which checks each value against
its accepted range and raises :class:`~nasarena.errors.InvalidSettingError` naming the setting
and the range.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from dataclasses import replace as dataclass_replace

from ..errors import InvalidSettingError, unknown_name
from ..io.fingerprint import settings_fingerprint

OPTIMIZERS = ("rmsprop_tf", "sgd")
SCHEDULE_UNITS = ("step", "epoch")


@dataclass(frozen=True)
class Protocol:
    """Every setting of one training pipeline (see the module docstring for the presets)."""

    name: str
    optimizer: str
    learning_rate: float
    final_learning_rate: float
    schedule_unit: str
    epochs: int
    batch_size: int
    weight_decay: float
    momentum: float = 0.9
    nesterov: bool = False
    rmsprop_decay: float = 0.9
    rmsprop_epsilon: float = 1.0
    budgets: tuple[int, ...] = ()
    cutout: int = 0
    mixup_alpha: float = 0.0
    drop_path: float = 0.0
    auxiliary_weight: float = 0.0
    grad_clip: float = 0.0
    label_smoothing: float = 0.0
    batch_norm_momentum: float | None = None

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if value is None and field.name in _OPTIONAL:
                continue
            _check(field.name, value)
            if _RANGES[field.name][0] is float:  # 1 and 1.0 are one setting, with one fingerprint
                object.__setattr__(self, field.name, float(value))
        if self.final_learning_rate > self.learning_rate:
            raise InvalidSettingError(f"protocol setting final_learning_rate={self.final_learning_rate} is above "
                                      f"learning_rate={self.learning_rate}; the schedule decays from one to the other")

    def replace(self, **overrides) -> Protocol:
        """A copy with ``overrides`` applied, each checked against its accepted range."""
        known = {field.name for field in fields(self)}
        for key in overrides:
            if key not in known:
                raise unknown_name("protocol setting", key, known)
        return dataclass_replace(self, **overrides)

    def with_settings(self, items: list[str]) -> Protocol:
        """Apply command-line overrides ``["learning_rate=0.1", "nesterov=true", ...]``."""
        overrides = {}
        for item in items:
            key, separator, text = item.partition("=")
            key = key.strip()
            if not separator or not key:
                raise InvalidSettingError(f"bad protocol setting {item!r}; use KEY=VALUE, e.g. learning_rate=0.1")
            overrides[key] = _parse_value(key, text.strip(), self)
        return self.replace(**overrides)

    def learning_rate_at(self, epoch: int, step: int, steps_per_epoch: int, epochs: int) -> float:
        """The cosine schedule: ``learning_rate`` at the start, ``final_learning_rate`` at the end.

        ``schedule_unit="step"`` decays per optimisation step (TensorFlow's ``cosine_decay`` in
        NB101, NB201's per-iteration scheduler), ``"epoch"`` once per epoch (PyTorch's
        ``CosineAnnealingLR`` as DARTS and NB301 use it).
        """
        if self.schedule_unit == "step":
            progress = (epoch * steps_per_epoch + step) / max(1, epochs * steps_per_epoch)
        else:
            progress = epoch / max(1, epochs)
        cosine = 0.5 * (1.0 + math.cos(math.pi * min(1.0, progress)))
        return self.final_learning_rate + (self.learning_rate - self.final_learning_rate) * cosine

    def to_dict(self) -> dict:
        values = asdict(self)
        values["budgets"] = list(self.budgets)
        return values

    @classmethod
    def from_dict(cls, values: dict) -> Protocol:
        values = dict(values)
        values["budgets"] = tuple(values.get("budgets", ()))
        return cls(**values)

    def fingerprint(self) -> str:
        """Short stable hash of every setting."""
        return settings_fingerprint(self.to_dict(), strict=True)


#: Accepted values per setting: (type, low, high) for numbers (inclusive), a tuple of choices for
#: names; ``None`` bounds are open.
_RANGES: dict[str, tuple] = {
    "name": (str,),
    "optimizer": OPTIMIZERS,
    "learning_rate": (float, 1e-12, 100.0),
    "final_learning_rate": (float, 0.0, 100.0),
    "schedule_unit": SCHEDULE_UNITS,
    "epochs": (int, 1, 100_000),
    "batch_size": (int, 1, 1_000_000),
    "weight_decay": (float, 0.0, 1.0),
    "momentum": (float, 0.0, 0.999999),
    "nesterov": (bool,),
    "rmsprop_decay": (float, 0.0, 0.999999),
    "rmsprop_epsilon": (float, 1e-12, 100.0),
    "budgets": (tuple,),
    "cutout": (int, 0, 1024),
    "mixup_alpha": (float, 0.0, 100.0),
    "drop_path": (float, 0.0, 0.99),
    "auxiliary_weight": (float, 0.0, 10.0),
    "grad_clip": (float, 0.0, 1e6),
    "label_smoothing": (float, 0.0, 0.99),
    "batch_norm_momentum": (float, 1e-6, 1.0),
}
#: Settings that may be ``None`` ("as the network was built"; ``none`` on the command line).
_OPTIONAL = ("batch_norm_momentum",)


def _describe_range(key: str) -> str:
    spec = _RANGES[key]
    if isinstance(spec[0], str):
        return "one of " + ", ".join(spec)
    kind = spec[0]
    if kind is bool:
        return "true or false"
    if kind is str:
        return "a non-empty text"
    if kind is tuple:
        return "a list of increasing positive whole numbers of epochs, e.g. 4,12,36,108"
    noun = "a whole number" if kind is int else "a number"
    optional = " or none" if key in _OPTIONAL else ""
    return f"{noun} in [{spec[1]:g}, {spec[2]:g}]{optional}"


def _check(key: str, value) -> None:
    spec = _RANGES[key]
    bad = InvalidSettingError(f"protocol setting {key}={value!r} is not accepted; {key} must be {_describe_range(key)}")
    if isinstance(spec[0], str):
        if value not in spec:
            raise bad
        return
    kind = spec[0]
    if kind is bool:
        if not isinstance(value, bool):
            raise bad
    elif kind is str:
        if not isinstance(value, str) or not value:
            raise bad
    elif kind is tuple:
        if (not isinstance(value, tuple) or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0
                                                    for v in value) or list(value) != sorted(set(value))):
            raise bad
    else:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad
        if kind is int and not isinstance(value, int):
            raise bad
        if not math.isfinite(value) or not spec[1] <= value <= spec[2]:
            raise bad


def _parse_value(key: str, text: str, protocol: Protocol):
    """A command-line text as the type of setting ``key`` (errors name the setting and its range)."""
    if key not in _RANGES:
        raise unknown_name("protocol setting", key, _RANGES)
    spec = _RANGES[key]
    kind = str if isinstance(spec[0], str) else spec[0]
    bad = InvalidSettingError(f"protocol setting {key}={text!r} is not accepted; {key} must be {_describe_range(key)}")
    if key in _OPTIONAL and text.lower() == "none":
        return None
    try:
        if kind is bool:
            lowered = text.lower()
            if lowered not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError
            return lowered in ("true", "1", "yes")
        if kind is int:
            return int(text)
        if kind is float:
            return float(text)
        if kind is tuple:
            return tuple(int(part) for part in text.split(",") if part.strip())
        return text
    except ValueError:
        raise bad from None


NB101 = Protocol(
    name="nb101", optimizer="rmsprop_tf", learning_rate=0.2, final_learning_rate=0.0, schedule_unit="step",
    epochs=108, batch_size=256, weight_decay=1e-4, momentum=0.9, rmsprop_decay=0.9, rmsprop_epsilon=1.0,
    budgets=(4, 12, 36, 108),
)
NB201 = Protocol(
    name="nb201", optimizer="sgd", learning_rate=0.1, final_learning_rate=0.0, schedule_unit="step",
    epochs=200, batch_size=256, weight_decay=5e-4, momentum=0.9, nesterov=True, budgets=(12, 200),
)
NB301 = Protocol(
    name="nb301", optimizer="sgd", learning_rate=0.025, final_learning_rate=1e-8, schedule_unit="epoch",
    epochs=100, batch_size=96, weight_decay=3e-4, momentum=0.9, budgets=(100,), cutout=16, mixup_alpha=0.2,
    drop_path=0.2, auxiliary_weight=0.4, grad_clip=5.0,
)
#: NB101's pipeline for a run of a few epochs on a CPU (the issue's quick run: 3 epochs). Batch
#: norm keeps NB101's running-statistics decay of 0.997 per step in the full protocol; over the
#: ~60 steps of a quick run the running statistics would still be ~84 % their initial values and
#: evaluation would be near chance, so this preset uses torch's usual 0.1 (decay 0.9) instead.
QUICK = NB101.replace(name="quick", epochs=3, budgets=(3,), batch_norm_momentum=0.1)
PRESETS: dict[str, Protocol] = {p.name: p for p in (NB101, NB201, NB301, QUICK)}
#: The protocol each space's benchmark trained with.
SPACE_PROTOCOLS = {"nb101": "nb101", "nb201": "nb201", "darts": "nb301"}


def protocol(name: str) -> Protocol:
    """A preset by name (``nb101``, ``nb201``, ``nb301``, ``quick``)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise unknown_name("training protocol", name, PRESETS) from None
