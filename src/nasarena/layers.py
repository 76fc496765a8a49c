"""The layers of nasarena, lowest first: a folder imports only from its own layer or lower ones.

The order is the design's (``docs/architecture.md``, "Layers") checked against what the code
imports. Every entry is a whole folder (a subpackage of ``nasarena``) or a module at the top of
the package: the tree is the picture of the layers.

foundation
    ``errors``, ``uniforms``, ``registry``, ``version``, ``moved`` (old import paths), this
    module, and ``io`` (file formats, package data names, settings fingerprints, claims and
    locks of files).
execution
    one way to run resumable tasks (local processes or Ray): a mechanism below everything that
    has parallel work, the NB101 enumeration of ``spaces`` included. The claims that keep two
    processes from computing one task are a file-system primitive of ``io``.
spaces
    architectures and search spaces.
training
    the one training core (networks, data, protocols, the loop, checkpoints).
estimators
    cheap estimators of architecture quality computed on the exact networks (zero-cost
    proxies): below the benchmarks, which may offer them as a fidelity below training.
surrogates
    surrogate models (fitting, artefacts, prediction): below the benchmarks, whose surrogate
    benchmark answers with them. Fitting the built-in ones on the tabular benchmarks is a study.
benchmarks
    the Benchmark protocol and its backends: tabular, surrogate, zero-cost fidelity, and live
    (a composition of ``training``).
search
    ``optimizers`` (ask/tell) and ``oneshot`` (weight-sharing search), side by side: both only
    consume spaces and benchmarks, and neither imports the other.
runner
    the protocol: simulated clock, budgets, incumbents, experiments and their results.
analysis
    trajectories and estimators in, statistics out.
studies
    compositions run as experiments: data collection, the built-in surrogates' fitting data,
    the estimator table and comparison, one-shot searches with their correlation, tuning and
    regularisation, the presets of the anytime study. They plan runs, execute them and analyse
    them, so they sit above all of those.
plots
    figures and HTML reports (``plots.surrogate_validation`` also runs its experiment: it is a
    study that draws, above the studies).
tools
    the command line, the plug-in conformance helpers (``testing``) and the ``nasarena`` package
    root, the user's facade (``nasarena.benchmark(...)``): nothing in the package imports it
    (``__version__`` comes from ``nasarena.version``).

The bare ``nasarena`` entry covers the package's ``__init__`` only. Two folders of one layer
import each other in one direction at most, and no two modules import each other, directly or
through others (imports inside functions count too).

``tests/test_layers.py`` walks every import (inside functions too) and fails on an import that
runs from a lower layer to a higher one, on two folders that import each other and on a circle of
imports between modules; the allowlist is empty, and an entry needs its reason.
"""

from __future__ import annotations

#: ``(layer, entries)``, lowest layer first; an entry is a top-level module or folder of the package.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("nasarena.errors", "nasarena.uniforms", "nasarena.registry", "nasarena.version",
                    "nasarena.layers", "nasarena.moved", "nasarena.io")),
    ("execution", ("nasarena.execution",)),
    ("spaces", ("nasarena.spaces",)),
    ("training", ("nasarena.training",)),
    ("estimators", ("nasarena.estimators",)),
    ("surrogates", ("nasarena.surrogates",)),
    ("benchmarks", ("nasarena.benchmarks",)),
    ("search", ("nasarena.optimizers", "nasarena.oneshot")),
    ("runner", ("nasarena.runner",)),
    ("analysis", ("nasarena.analysis",)),
    ("studies", ("nasarena.studies",)),
    ("plots", ("nasarena.plots",)),
    ("tools", ("nasarena", "nasarena.cli", "nasarena.testing")),
)

ROOT = "nasarena"


def folder_of(module: str) -> str:
    """The folder (entry of :data:`LAYERS`) a ``nasarena`` module belongs to: ``nasarena.X`` for
    every module of the subpackage or top-level module ``X``; ``nasarena`` for the root itself."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == ROOT and len(parts) > 1 else ROOT


def layer_of(module: str) -> tuple[int, str] | None:
    """``(position, layer name)`` of a ``nasarena`` module (0 is the lowest); ``None`` if its
    folder is not declared (a new top-level module or package must be declared in :data:`LAYERS`)."""
    folder = folder_of(module)
    for position, (name, entries) in enumerate(LAYERS):
        if folder in entries:
            return position, name
    return None


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


def folder_arrows(package_dir=None) -> dict[tuple[str, str], list[tuple[str, str, int]]]:
    """The imports between two different folders, by ``(folder, imported folder)``."""
    arrows: dict[tuple[str, str], list[tuple[str, str, int]]] = {}
    for module, target, line in imports(package_dir):
        pair = (folder_of(module), folder_of(target))
        if pair[0] != pair[1]:
            arrows.setdefault(pair, []).append((module, target, line))
    return arrows


def import_circles(package_dir=None) -> list[list[str]]:
    """The circles of imports between modules: every strongly connected set of two or more
    modules of the import graph (Tarjan's algorithm, iterative), each sorted."""
    graph: dict[str, set[str]] = {module: set() for module in source_modules(package_dir)}
    for module, target, _ in imports(package_dir):
        if target in graph:
            graph[module].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            following = next(successors, None)
            if following is not None:
                if following not in index:
                    index[following] = low[following] = len(index)
                    stack.append(following)
                    on_stack.add(following)
                    work.append((following, iter(sorted(graph[following]))))
                elif following in on_stack:
                    low[node] = min(low[node], index[following])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    circles.append(sorted(members))
    return sorted(circles)
