"""The benchmarking protocol and experiment execution."""

from .protocol import Budget, RunSettings, run

__all__ = ["Budget", "RunSettings", "run"]
