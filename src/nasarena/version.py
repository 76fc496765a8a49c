"""The version of nasarena (``pyproject.toml`` says the same).

In the foundation layer, so that a module of any layer can record it (an artefact's header, a
report's table of versions) without importing the package root: the root is the user's facade
(``nasarena.benchmark(...)``), at the top of the layers, and lower modules never import it.
"""

__version__ = "0.1.0"
