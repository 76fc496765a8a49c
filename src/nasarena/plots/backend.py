"""Where figures come from and where they go: matplotlib, loaded lazily, rendering with Agg.

Figures are built as plain ``matplotlib.figure.Figure`` objects on an Agg canvas, never
through ``pyplot``: a library must not open windows, switch the user's backend or keep
figures alive in pyplot's global registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import import_extra

PNG_DPI = 300


def require_matplotlib():
    """The matplotlib module, or an ImportError that says how to get it."""
    return import_extra("matplotlib", "nasarena's figures")


def new_figure(width: float, height: float):
    """An empty figure (size in inches) with constrained layout on an Agg canvas."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


@dataclass(frozen=True)
class SavedFigure:
    """The two files of one figure: a 300 dpi PNG (screens, the HTML report) and a vector PDF (papers)."""

    png: Path
    pdf: Path


def save_figure(figure, stem: Path) -> SavedFigure:
    """Write ``stem.png`` and ``stem.pdf`` (creating the folder) and return their paths."""
    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    saved = SavedFigure(stem.parent / f"{stem.name}.png", stem.parent / f"{stem.name}.pdf")
    figure.savefig(saved.png, dpi=PNG_DPI)
    figure.savefig(saved.pdf)
    return saved
