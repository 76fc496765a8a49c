"""nasarena: exact, fast and reproducible neural architecture search benchmarking."""

__version__ = "0.1.0"


def benchmark(name: str, **options):
    """Load a benchmark by name (see ``nasarena benchmarks`` for the list)."""
    from .benchmarks import benchmark as load

    return load(name, **options)
