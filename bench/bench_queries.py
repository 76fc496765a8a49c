"""Benchmark loading and querying, against a baseline laid out like the original API.

Run: .venv/bin/python bench/bench_queries.py
Baseline: a plain dict hash -> {"fixed": {...}, "computed": {epochs: [dict per trial]}} of Python
objects, the layout the original NB101 API keeps in memory, queried the way it does it
(random trial, dict copies). The query timings are ``nasarena.studies.reproduce.speed_claims.query_speed``,
whose numbers ``nasarena reproduce speed`` writes into docs/speed.md; this script adds the load
time and memory of a fresh process.
"""

import subprocess
import sys

from nasarena.studies.reproduce.speed_claims import query_speed

LOAD_SNIPPET = """
import resource, time
start = time.perf_counter()
import nasarena
bench = nasarena.benchmark({name!r}{options})
bench.query(0)
elapsed = time.perf_counter() - start
print(elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def load_in_fresh_process(name: str, options: str = "") -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", LOAD_SNIPPET.format(name=name, options=options)],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    seconds, rss = load_in_fresh_process("nb101-lite")
    print(f"nb101-lite: import + load + first query {seconds:.2f} s, peak RSS {rss:.0f} MB (fresh process)")
    timed = query_speed(20_000, 2_000_000)
    base = timed["baseline_us"]
    print(f"baseline dict-of-objects query      : {base:6.2f} us")
    for label, key in (("query(Cell), hash not yet computed", "cell_us"),
                       ("query(Cell), hash already cached", "cached_cell_us"), ("query(row index)", "row_us")):
        print(f"{label:36s}: {timed[key]:6.2f} us   x{base / timed[key]:5.2f}")
    print(f"query_batch                         : {timed['batch_million_per_s']:6.1f} M queries/s "
          f"(x{base * timed['batch_million_per_s']:.0f} over the baseline per query)")


if __name__ == "__main__":
    main()
