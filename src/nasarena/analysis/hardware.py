"""Cross-device analysis: how alike the device settings rank architectures by latency.

A front searched on one device transfers to another only as far as the two rank architectures
alike; Kendall's tau over every architecture of the table, for every pair of device settings,
measures that (the report draws it as a heat map).
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidSettingError


def latency_kendall_matrix(benchmark) -> tuple[tuple[str, ...], np.ndarray]:
    """(device settings, symmetric matrix of Kendall's tau-b between their latencies over every
    architecture of ``benchmark``), in the benchmark's device order; 1 on the diagonal.

    Needs a finite benchmark with latencies (``devices`` and ``latency_column``, e.g. the NB201
    ones); tau-b accounts for the ties of the phones' whole-millisecond measurements.
    """
    from scipy.stats import kendalltau

    devices = tuple(getattr(benchmark, "devices", ()))
    if not devices or not callable(getattr(benchmark, "latency_column", None)):
        raise InvalidSettingError(f"{getattr(benchmark, 'name', benchmark)!r} has no latency table: the Kendall "
                                  "matrix needs a finite benchmark with latencies (nb201-*)")
    columns = [np.asarray(benchmark.latency_column(device), dtype=np.float64) for device in devices]
    matrix = np.eye(len(devices))
    for i in range(len(devices)):
        for j in range(i + 1, len(devices)):
            matrix[i, j] = matrix[j, i] = kendalltau(columns[i], columns[j]).statistic
    return devices, matrix
