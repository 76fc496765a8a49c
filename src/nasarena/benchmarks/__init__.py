"""Benchmarks: an architecture goes in, a measured result comes out (see ``protocol``)."""

from .protocol import ZERO_COST, Benchmark, Description
from .registry import available, benchmark
from .result import BatchResult, Result

__all__ = ["ZERO_COST", "BatchResult", "Benchmark", "Description", "Result", "available", "benchmark"]
