"""One look for every figure: a fixed colour and line style per configuration, and rcParams.

A reader compares figures side by side, so a configuration must keep its colour in all of
them. Built-in optimizers always get the same colour (from the colour-blind-safe palette of
Okabe and Ito); other labels (other optimizers, or ``optimizer[settings]`` variants) take the
remaining colours in sorted order, so the mapping depends only on the set of labels. Build
one :class:`Style` from every label of an experiment and pass it to each figure.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType

from .backend import require_matplotlib

# Okabe & Ito (2008), yellow left out (too light on white), then Tol's "muted" colours.
KNOWN_COLOURS = MappingProxyType({
    "rs": "#000000",
    "re": "#0072B2",
    "nre": "#009E73",
    "ls": "#E69F00",
    "reinforce": "#CC79A7",
})
SPARE_COLOURS = ("#D55E00", "#56B4E9", "#882255", "#44AA99", "#999933", "#332288", "#AA4499", "#117733",
                 "#88CCEE", "#DDCC77")
# Each configuration also gets a dash pattern and a marker (by its place among the sorted labels),
# so that curves which coincide (random search and the random start of evolution) stay visible:
# the gaps of the upper line show the lower one, and their markers differ.
DASHES = ("solid", (0, (5, 2)), (0, (1, 1.5)), (0, (5, 1.5, 1, 1.5)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">")
#: Markers every this share of the axes' diagonal, shifted per configuration so they do not overlap.
MARKER_SPACING = 0.12

RC_PARAMS = MappingProxyType({
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "figure.titlesize": 10,
    "axes.grid": True,
    "axes.grid.which": "major",
    "grid.linewidth": 0.4,
    "grid.alpha": 0.5,
    "axes.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "lines.linewidth": 1.4,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.minor.width": 0.4,
    "ytick.minor.width": 0.4,
    "pdf.fonttype": 42,  # TrueType in PDFs, so journals' checks and text selection work
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.03,
})


@dataclass(frozen=True)
class LineStyle:
    """How one configuration is drawn."""

    colour: str
    dashes: object = "solid"
    marker: str = ""
    marker_offset: float = 0.0

    def line(self) -> dict:
        """Keyword arguments of ``Axes.plot`` (and ``step``): colour, dashes and sparse markers."""
        if not self.marker:
            return {"color": self.colour, "linestyle": self.dashes}
        return {"color": self.colour, "linestyle": self.dashes, "marker": self.marker, "markersize": 3.2,
                "markevery": (self.marker_offset, MARKER_SPACING)}

    def handle(self):
        """A legend entry showing the line's colour, dashes and marker."""
        from matplotlib.lines import Line2D

        return Line2D([], [], color=self.colour, linestyle=self.dashes, marker=self.marker or None, markersize=3.2)


@dataclass(frozen=True)
class Style:
    """The line style of every configuration label of an experiment."""

    by_label: Mapping[str, LineStyle]

    @classmethod
    def for_labels(cls, labels: Iterable[str]) -> Style:
        """Known optimizers get their fixed colour; the other labels, sorted, the spare colours in
        turn. Dashes and markers follow each label's place among the sorted labels."""
        labels = sorted(set(labels))
        spare = [c for c in (*SPARE_COLOURS, *KNOWN_COLOURS.values()) if c not in
                 {KNOWN_COLOURS[label] for label in labels if label in KNOWN_COLOURS}]
        mapping, position = {}, 0
        for place, label in enumerate(labels):
            if label in KNOWN_COLOURS:
                colour = KNOWN_COLOURS[label]
            else:
                colour = spare[position % len(spare)]
                position += 1
            mapping[label] = LineStyle(colour, DASHES[place % len(DASHES)], MARKERS[place % len(MARKERS)],
                                       round(place * MARKER_SPACING / len(labels), 4))
        return cls(MappingProxyType(mapping))

    def of(self, label: str) -> LineStyle:
        try:
            return self.by_label[label]
        except KeyError:
            raise KeyError(f"no style for configuration {label!r}; build the Style from every label drawn") from None

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.by_label)


@contextmanager
def publication() -> Iterator[None]:
    """rcParams for print-quality figures, active while a figure is built."""
    matplotlib = require_matplotlib()
    with matplotlib.rc_context(dict(RC_PARAMS)):
        yield
