"""One-shot optimizers on NAS-Bench-1Shot1 space 3: quick CPU runs and the paper configuration's epoch time.

Prints the table of ``docs/reproduce/nas-bench-1shot1.md`` (Sec. 5.1, generated block
``oneshot-speed``) measured afresh by the code that generates it
(:mod:`nasarena.studies.reproduce.nb1shot1_oneshot` over :mod:`nasarena.studies.oneshot_speed`,
whose docstrings say what is measured and why the quick regrets are not compared): the quick
configuration's search of every optimizer (seed 0, regret on nb101-lite) and the paper
configuration's epoch time extrapolated from timed steps, on one torch thread. The published
numbers are on the page (``nasarena reproduce nas-bench-1shot1`` regenerates them); this script
writes neither the page nor its record.

    python bench/bench_oneshot.py [--cheap] [--out DIR]

The quick searches run in ``DIR/runs`` (resumed when run again, so use a fresh DIR for fresh
times); ``DIR/bench_oneshot.json`` holds the values and timings. Full scale: minutes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from nasarena.studies.reproduce import nb1shot1_oneshot
from nasarena.studies.reproduce.recorded import CHEAP, FULL


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cheap", action="store_true", help="the test suite's scale: one timed quick step")
    parser.add_argument("--out", type=Path, default=Path("bench-oneshot"))
    args = parser.parse_args()
    generated = nb1shot1_oneshot.generate(CHEAP if args.cheap else FULL, args.out / "runs", 1)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_oneshot.json").write_text(json.dumps(
        {"values": generated.values, "timings": generated.timings, "configurations": generated.configurations},
        indent=1))
    print(generated.markdown)


if __name__ == "__main__":
    main()
