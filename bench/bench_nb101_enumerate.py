"""NB101 enumeration: the vectorised generator against the straightforward one.

Run: .venv/bin/python bench/bench_nb101_enumerate.py [--full-baseline]
The full space is enumerated with our generator and compared to the shipped table. The
straightforward generator (as the original ``generate_graphs.py``) runs on graphs of up to 6
vertices (~10% of the work) unless ``--full-baseline`` asks for all of it (~5 min).
"""

import sys
import time

import numpy as np

from nasarena.spaces.nb101 import unique_cells
from nasarena.spaces.nb101.enumeration import enumerate_space, labelled_hashes
from straightforward_nb101 import straightforward_enumeration


def main(full_baseline: bool) -> None:
    start = time.perf_counter()
    enumeration = enumerate_space()
    ours_full = time.perf_counter() - start
    identical = np.array_equal(enumeration.hashes.astype("U32"), unique_cells().hashes)
    print(f"vectorised, full space : {ours_full:7.1f} s, {len(enumeration.hashes):,} unique cells, "
          f"identical to the shipped table: {identical}")

    max_vertices = 7 if full_baseline else 6
    start = time.perf_counter()
    ours = set()
    for n in range(2, max_vertices + 1):
        ours.update(h.decode() for h in labelled_hashes(n, workers=2)[1])
    ours_subset = time.perf_counter() - start
    start = time.perf_counter()
    baseline = straightforward_enumeration(max_vertices)
    base_subset = time.perf_counter() - start
    assert set(baseline) == ours
    print(f"up to {max_vertices} vertices: straightforward {base_subset:.1f} s, vectorised {ours_subset:.2f} s, "
          f"x{base_subset / ours_subset:.1f}, same {len(ours):,} hashes")


if __name__ == "__main__":
    main("--full-baseline" in sys.argv)
