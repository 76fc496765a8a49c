"""NAS-Bench-1Shot1 Fig. 6: the test-error distribution of its three spaces, with and without
loose ends, looked up in an NB101 table (``benchmarks.oneshot``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...spaces.oneshot.enumeration import PAPER_COUNTS, SPACE_2_COUNT_REASON  # Table 1 as printed

SPACES = tuple(PAPER_COUNTS)


@dataclass(frozen=True)
class OneShotSpaces:
    errors: dict[tuple[str, bool], np.ndarray]  # (space, loose ends) -> test errors of the cells with a value
    counts: dict[tuple[str, bool], int]  # architectures of the space (values or not)

    def to_dict(self) -> dict:
        result = {}
        for (space, loose), errors in self.errors.items():
            key = f"{space}{'' if loose else ' (no loose ends)'}"
            paper = PAPER_COUNTS[space][0 if loose else 1]
            result[key] = {"architectures": self.counts[space, loose], "paper_architectures": paper,
                           **({"count_differs": SPACE_2_COUNT_REASON} if self.counts[space, loose] != paper else {}),
                           "with_value": int(len(errors)),
                           "median_test_error": float(np.median(errors)) if len(errors) else None,
                           "min_test_error": float(errors.min()) if len(errors) else None}
        return result


def oneshot_spaces(benchmark) -> OneShotSpaces | None:
    """The distributions over ``benchmark``'s table; None where the one-shot spaces are unavailable."""
    try:
        from ...benchmarks.oneshot import oneshot_accuracies
    except ImportError:
        return None
    errors, counts = {}, {}
    for space in SPACES:
        for loose in (True, False):
            accuracy = np.asarray(oneshot_accuracies(space, benchmark, loose_ends=loose), dtype=np.float64)
            counts[space, loose] = int(len(accuracy))
            errors[space, loose] = 1.0 - accuracy[np.isfinite(accuracy)]
    return OneShotSpaces(errors, counts)
