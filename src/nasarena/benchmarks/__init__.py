"""Benchmarks: an architecture goes in, a measured result comes out (see ``protocol``)."""

from .protocol import Benchmark, Description
from .registry import available, benchmark
from .result import BatchResult, Result
from .zero_cost import ZERO_COST

__all__ = ["ZERO_COST", "BatchResult", "Benchmark", "Description", "Result", "available", "benchmark"]
