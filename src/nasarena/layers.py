"""The layers of nasarena, lowest first: a module imports only from its own layer or lower ones.

The order is the design's (``DESIGN.md``, "Layers") checked against what the code imports:

foundation
    ``errors``, ``uniforms``, ``registry``, ``version``, ``io`` (file formats, package data names,
    settings fingerprints, claims and locks of files), this module.
spaces
    architectures and search spaces.
training
    the one training core (networks, data, protocols, the loop, checkpoints).
estimators
    cheap estimators of architecture quality computed on the exact networks (zero-cost
    proxies): below the benchmarks, which may offer them as a fidelity below training.
benchmarks
    ``benchmarks`` and ``surrogates``, side by side: the surrogate benchmark answers with
    surrogate models, the built-in surrogates are fitted on the tabular benchmarks, and the live
    benchmark is a composition of ``training``.
search
    ``optimizers`` (ask/tell) and ``oneshot`` (weight-sharing search), side by side: both only
    consume spaces and benchmarks.
execution
    one way to run resumable tasks (local processes or Ray); the claims that keep two processes
    from computing one task are a file-system primitive of ``io``, which the live benchmark's
    store uses too.
runner
    the protocol: simulated clock, budgets, incumbents, experiments and their results.
analysis
    trajectories and estimators in, statistics out.
studies
    compositions run as experiments: data collection, one-shot correlation, tuning and
    regularisation, the presets of the anytime study. They live beside the pieces they compose
    but sit above them all (they plan runs, execute them, analyse them).
plots
    figures and HTML reports (``plots.surrogate_validation`` also runs its experiment: it is a
    study that draws, above the studies).
tools
    the command line, the plug-in conformance helpers (``testing``) and the ``nasarena`` package
    root, the user's facade (``nasarena.benchmark(...)``): nothing in the package imports it
    (``__version__`` comes from ``nasarena.version``).

An entry names a module or package and covers everything inside it; the most specific entry
wins (``nasarena.training.collection`` is a study, the rest of ``nasarena.training`` is
training). The bare ``nasarena`` entry covers the package's ``__init__`` only. An entry whose
package does not exist yet (a layer reserved for a package being moved in) covers nothing.

``tests/test_layers.py`` walks every import (inside functions too) and fails on an import that
runs from a lower layer to a higher one; the allowlist is empty, and an entry needs its reason.
"""

from __future__ import annotations

#: ``(layer, entries)``, lowest layer first.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("nasarena.errors", "nasarena.uniforms", "nasarena.registry", "nasarena.version",
                    "nasarena.layers", "nasarena.io")),
    ("spaces", ("nasarena.spaces",)),
    ("training", ("nasarena.training",)),
    ("estimators", ("nasarena.estimators",)),
    ("benchmarks", ("nasarena.benchmarks", "nasarena.surrogates")),
    ("search", ("nasarena.optimizers", "nasarena.oneshot")),
    ("execution", ("nasarena.execution",)),
    ("runner", ("nasarena.runner",)),
    ("analysis", ("nasarena.analysis",)),
    ("studies", ("nasarena.training.collection", "nasarena.estimators.table", "nasarena.estimators.evaluation",
                 "nasarena.oneshot.experiment",
                 "nasarena.oneshot.correlation", "nasarena.oneshot.tuning", "nasarena.oneshot.regularisation",
                 "nasarena.runner.presets")),
    ("plots", ("nasarena.plots",)),
    ("tools", ("nasarena", "nasarena.cli", "nasarena.testing")),
)

ROOT = "nasarena"


def layer_of(module: str) -> tuple[int, str] | None:
    """``(position, layer name)`` of a ``nasarena`` module (0 is the lowest); ``None`` if no entry
    covers it (a new top-level module or package must be declared in :data:`LAYERS`)."""
    best: tuple[int, int, str] | None = None
    for position, (name, entries) in enumerate(LAYERS):
        for entry in entries:
            covers = module == entry or (entry != ROOT and module.startswith(entry + "."))
            if covers and (best is None or len(entry) > best[0]):
                best = (len(entry), position, name)
    return None if best is None else (best[1], best[2])


def source_modules(package_dir=None) -> dict[str, object]:
    """``{module name: path}`` of every module of the package (``package_dir``: its folder,
    by default this installed package's)."""
    from pathlib import Path

    package_dir = Path(package_dir) if package_dir is not None else Path(__file__).parent
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = [ROOT, *path.relative_to(package_dir).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def imports(package_dir=None) -> list[tuple[str, str, int]]:
    """``(module, imported module, line)`` of every import of a ``nasarena`` module by a module
    of the package: absolute and relative, at the top and inside functions (and ``TYPE_CHECKING``
    blocks). ``from package import name`` imports ``package.name`` where that is a module, else
    ``package``. Imports by name at run time (``importlib``, the registries' targets) are not seen."""
    import ast

    modules = source_modules(package_dir)
    found = []
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                           for alias in node.names]
            else:
                continue
            for target in dict.fromkeys(targets):
                if (target == ROOT or target.startswith(ROOT + ".")) and target != module:
                    found.append((module, target, node.lineno))
    return found


def upward_arrows(package_dir=None) -> list[tuple[str, str, int]]:
    """The imports that run from a lower layer to a higher one, ``(module, imported, line)``."""
    arrows = []
    for module, target, line in imports(package_dir):
        low, high = layer_of(module), layer_of(target)
        if low is not None and high is not None and high[0] > low[0]:
            arrows.append((module, target, line))
    return arrows
