"""How a surrogate is fitted, as plain values (kept apart from the fitting code so that naming
the built-in surrogates imports no model library)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .data import TrainingData


@dataclass(frozen=True)
class FitSettings:
    """How to fit: the model (``models.MODELS`` name), ensemble size, seed, encoding (default:
    the space's), overrides of the model's defaults, split fractions, whether to fit runtime, and
    whether to store every architecture's predictions in the artefact (``tabulate``: finite spaces
    only; queries become table look-ups, see :mod:`.tabulation`)."""

    model: str = "xgb"
    members: int = 5
    seed: int = 0
    encoding: str | None = None
    model_settings: tuple[tuple[str, object], ...] = ()
    fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)
    runtime: bool = True
    tabulate: bool = False

    def __post_init__(self) -> None:
        if self.members < 1:
            raise ValueError(f"members must be >= 1, got {self.members}")


@dataclass(frozen=True)
class HeldOutData:
    """Runs never used in fitting, on which the surrogate is validated too (e.g. the rest of a table)."""

    name: str
    data: TrainingData
