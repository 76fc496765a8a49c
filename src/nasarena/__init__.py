"""nasarena: exact, fast and reproducible neural architecture search benchmarking."""

__version__ = "0.1.0"
