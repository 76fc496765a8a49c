"""The layer order of nasarena (nasarena/layers.py) holds: no import runs back up except the known ones.

Every import of every module under src/nasarena is walked (top level and inside functions,
relative and absolute) and judged by :func:`nasarena.layers.layer_of`. An import from a lower
layer to a higher one fails unless it is on :data:`ALLOWED`, with the reason it is there; an
allowed arrow that no longer exists fails too, so the list only shrinks.
"""

from __future__ import annotations

from nasarena.layers import LAYERS, ROOT, imports, layer_of, source_modules, upward_arrows

#: The arrows that run back up today: (module, imported module) -> why it is there. Empty since issue 30:
#: the claims moved to io (a file-system primitive), the package root became the top layer's facade.
ALLOWED: dict[tuple[str, str], str] = {}


def _arrows() -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for module, target, line in upward_arrows():
        found.setdefault((module, target), []).append(line)
    return found


def test_every_module_and_import_has_a_layer():
    modules = source_modules()
    assert len(modules) > 100 and ROOT in modules
    unplaced = sorted({name for name in modules if layer_of(name) is None}
                      | {target for _, target, _ in imports() if layer_of(target) is None})
    assert not unplaced, f"declare these in nasarena/layers.py LAYERS: {unplaced}"


def test_module_entries_name_existing_modules():
    """An entry below a top-level package (a study placed apart from its package) must exist; a
    top-level entry may name a package that is not there yet."""
    modules = source_modules()
    for _, entries in LAYERS:
        for entry in entries:
            if entry.count(".") >= 2:
                assert any(name == entry or name.startswith(entry + ".") for name in modules), entry


def test_no_new_upward_arrow(record_property):
    arrows = _arrows()
    record_property("upward_arrows", len(arrows))
    print(f"\nupward arrows: {len(arrows)} (module pairs), {sum(map(len, arrows.values()))} import statements; "
          f"allowlisted {len(ALLOWED)}")
    new = []
    for (module, target), lines in sorted(arrows.items()):
        if (module, target) not in ALLOWED:
            new.append(f"{module} (layer {layer_of(module)[1]}, line {', '.join(map(str, lines))}) imports "
                       f"{target} (layer {layer_of(target)[1]})")
    assert not new, ("imports that run from a lower layer to a higher one (nasarena/layers.py); move the code "
                     "or, if it must stay, add it to ALLOWED with the reason:\n  " + "\n  ".join(new))


def test_allowlist_is_not_stale():
    arrows = _arrows()
    stale = sorted(pair for pair in ALLOWED if pair not in arrows)
    assert not stale, f"these allowed upward imports are gone: remove them from ALLOWED: {stale}"
    assert all(reason.strip() for reason in ALLOWED.values())


def test_imports_seen_in_functions_relative_and_absolute(tmp_path):
    """The walker on a small package: every kind of import is one arrow to the right module."""
    files = {
        "__init__.py": "def load():\n    from .benchmarks import tabular\n",
        "errors.py": "",
        "benchmarks/__init__.py": "from . import tabular\n",
        "benchmarks/tabular.py": "import json\nfrom ..errors import x\n",
        "benchmarks/live.py": "def train():\n    import nasarena.runner.experiment\n    from ..runner import run\n",
        "runner/__init__.py": "",
        "runner/experiment.py": "from nasarena.benchmarks.tabular import y\nfrom .. import errors\n",
        "runner/protocol.py": "from .. import __version__\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = {(module, target) for module, target, _ in imports(tmp_path)}
    assert found == {
        ("nasarena", "nasarena.benchmarks.tabular"),
        ("nasarena.benchmarks", "nasarena.benchmarks.tabular"),
        ("nasarena.benchmarks.tabular", "nasarena.errors"),
        ("nasarena.benchmarks.live", "nasarena.runner.experiment"),
        ("nasarena.benchmarks.live", "nasarena.runner"),
        ("nasarena.runner.experiment", "nasarena.benchmarks.tabular"),
        ("nasarena.runner.experiment", "nasarena.errors"),
        ("nasarena.runner.protocol", "nasarena"),
    }
    up = {(module, target) for module, target, _ in upward_arrows(tmp_path)}
    # the package root is the top layer's facade: it may compose any layer, and nothing may import it
    assert up == {("nasarena.benchmarks.live", "nasarena.runner.experiment"), ("nasarena.benchmarks.live", "nasarena.runner"),
                  ("nasarena.runner.protocol", "nasarena")}
