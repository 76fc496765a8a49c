"""nasarena: exact, fast and reproducible neural architecture search benchmarking.

The package root is the user's facade, the top layer (:mod:`nasarena.layers`): it composes the
layers below for one-line use and nothing in the package imports it. It stays cheap to import
(every ``import nasarena.x`` runs it first): the benchmarks load on the first call.
"""

from .moved import install as _serve_moved_module_names
from .version import __version__

_serve_moved_module_names()


def benchmark(name: str, **options):
    """Load a benchmark by name (see ``nasarena benchmarks`` for the list)."""
    from .benchmarks import benchmark as load

    return load(name, **options)


__all__ = ["__version__", "benchmark"]
