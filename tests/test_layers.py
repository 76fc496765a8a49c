"""The layer order of nasarena (nasarena/layers.py) holds, by module and by folder.

Every import of every module under src/nasarena is walked (top level and inside functions,
relative and absolute) and judged by :func:`nasarena.layers.layer_of`. An import from a lower
layer to a higher one fails unless it is on :data:`ALLOWED`, with the reason it is there; an
allowed arrow that no longer exists fails too, so the list only shrinks. Every layer is whole
folders; two folders import each other in one direction at most; no circle of imports joins
modules (issue 39).
"""

from __future__ import annotations

import importlib
import sys
import warnings

import pytest

from nasarena.layers import (
    LAYERS,
    ROOT,
    folder_arrows,
    folder_of,
    import_circles,
    imports,
    layer_of,
    source_modules,
    upward_arrows,
)
from nasarena.moved import MOVED

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


def test_every_entry_is_a_whole_folder_or_top_level_module_that_exists():
    """No entry below a folder (issue 39: a study lives in ``studies/``, not in the folder of a
    layer it composes), and every entry names something in the package."""
    modules = source_modules()
    for _, entries in LAYERS:
        for entry in entries:
            assert entry == ROOT or entry.count(".") == 1, f"{entry}: an entry is a whole folder or top-level module"
            assert any(name == entry or name.startswith(entry + ".") for name in modules), entry
    folders = {folder_of(name) for name in modules}
    declared = [entry for _, entries in LAYERS for entry in entries]
    assert sorted(declared) == sorted(set(declared)) and set(declared) == folders


def test_no_two_folders_import_each_other():
    arrows = folder_arrows()
    both_ways = sorted(f"{a} <-> {b}: {arrows[a, b][0][:2]} and {arrows[b, a][0][:2]}"
                       for a, b in arrows if a < b and (b, a) in arrows)
    assert not both_ways, "folders that import each other:\n  " + "\n  ".join(both_ways)


def test_no_import_circle_between_modules():
    circles = import_circles()
    assert not circles, "modules that import each other (directly or through others): " + "; ".join(
        " -> ".join(circle) for circle in circles)


def test_circle_finder_on_a_small_package(tmp_path):
    """Circles through imports inside functions and through a third module are found; a chain is not one."""
    files = {"__init__.py": "", "a.py": "from . import b\n", "b.py": "def f():\n    from . import c\n",
             "c.py": "import nasarena.a\n", "d.py": "from .a import x\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert import_circles(tmp_path) == [["nasarena.a", "nasarena.b", "nasarena.c"]]
    arrows = folder_arrows(tmp_path)
    assert ("nasarena.d", "nasarena.a") in arrows and ("nasarena.a", "nasarena.d") not in arrows


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_moved_module_keeps_its_old_import_path(old):
    """The old path gives the very module of the new one, with a DeprecationWarning naming it."""
    new = importlib.import_module(MOVED[old])
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=MOVED[old].replace(".", r"\.")):
        aliased = importlib.import_module(old)
    assert aliased is new and new.__spec__.name == MOVED[old] and new.__name__ == MOVED[old]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert importlib.import_module(MOVED[old]) is new


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


def test_the_architecture_page_matches_the_tree():
    """docs/architecture.md's layer table lists exactly the folders of each layer, in order, and
    its table of moved modules is :data:`nasarena.moved.MOVED`."""
    import re
    from pathlib import Path

    page = (Path(__file__).parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = page.split("<!-- layers:start -->")[1].split("<!-- layers:end -->")[0]
    rows = [line.split("|")[1:3] for line in table.strip().splitlines()[2:]]
    documented = []
    for layer, folders in rows:
        names = [f"{ROOT}.{name.rstrip('/')}" for name in re.findall(r"`([\w/]+)`", folders)]
        documented.append((layer.strip(), sorted(names + ([ROOT] if "package root" in folders else []))))
    assert documented == [(layer, sorted(entries)) for layer, entries in LAYERS]
    moved = dict(re.findall(r"^\| `(nasarena\.[\w.]+)` \| `(nasarena\.[\w.]+)` \|$", page, flags=re.M))
    assert moved == MOVED
