"""Time the whole NB101 space study (`nasarena analyze nb101-lite`): analysis, figures, HTML and JSON.

Run on demand: ``python bench/bench_analyze.py [BENCHMARK] [OUT]``. Prints the seconds of
each section and the total, and the machine's load average (the target is under 3 minutes on
an otherwise idle 2-core machine; on a shared machine wall time is longer, so the process's CPU
time and the load average are printed beside it).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import nasarena
from nasarena.analysis.space.nb101 import Settings, analyze_nb101
from nasarena.plots.space_report import write_space_report


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "nb101-lite"
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="bench-analyze-"))
    started, cpu_started = time.perf_counter(), time.process_time()
    analysis = analyze_nb101(nasarena.benchmark(name), Settings(seed=0))
    report = write_space_report(analysis, out, started=started)
    total = time.perf_counter() - started
    print(f"{name}: {report}")
    for section, seconds in analysis.seconds.items():
        print(f"  {section:>20}: {seconds:7.1f} s")
    print(f"  {'total':>20}: {total:7.1f} s wall, {time.process_time() - cpu_started:7.1f} s CPU "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
