"""The house numbers of issue 30: how many of the things that should exist once exist several times.

Run: .venv/bin/python bench/house_numbers.py [--src DIR]

``--src`` is a ``nasarena`` package folder (default: src/nasarena of this tree), e.g. one of an
older commit exported with ``git archive HEAD~5 src | tar -x -C /tmp/old``; the layers are this
tree's :mod:`nasarena.layers` either way. Printed:

- modules: Python modules under the package;
- upward arrows: imports from a lower layer to a higher one (module pairs, import statements);
- process pools: calls constructing ``ProcessPoolExecutor`` or a ``multiprocessing`` ``Pool``;
- settings-hash functions: functions that compute a hex digest of JSON text (a ``json.dumps`` or
  ``canonical_json`` in the digested expression or in a name assigned from one);
- if-chains on space names, outside ``nasarena.spaces`` (where a space may know its own
  name): ``if``/``elif`` tests (and conditional expressions, and names assigned such a test to
  branch on later, as ``oneshot = space.startswith("nb1shot1")``) that compare something with a
  registered space's name (``"nb101"``, ``"darts"``, ``"nb1shot1-3"``...; also ``"nb301"``,
  ``"nb1shot1"``) by ``==``, ``!=``, ``in`` or ``.startswith``, and the chains they form (an
  assignment is a chain of its own); apart, those that compare with a benchmark's name of a
  space family (``"nb101-noisy"``);
- packaged data file names: module-level string constants naming a package data file.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from nasarena.layers import source_modules, upward_arrows  # noqa: E402
from nasarena.spaces.registry import SPACES  # noqa: E402

SPACE_NAMES = frozenset(SPACES) | {"nb301", "nb1shot1"}
FAMILY_NAME = re.compile(r"^(nb101|nb201|nb301|darts|nb1shot1|fbnet)[-_]")
DATA_FILE = re.compile(r"\.npz(\.xz)?$")
POOLS = {"ProcessPoolExecutor", "Pool"}


def _is_json_text(node: ast.AST, json_names: set[str]) -> bool:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            function = inner.func
            name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
            owner = getattr(function.value, "id", "") if isinstance(function, ast.Attribute) else ""
            if (name == "dumps" and owner == "json") or name == "canonical_json":
                return True
        if isinstance(inner, ast.Name) and inner.id in json_names:
            return True
    return False


def settings_hash_functions(tree: ast.AST) -> list[str]:
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        json_names: set[str] = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Assign) and _is_json_text(node.value, json_names):
                json_names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
        for node in ast.walk(function):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "hexdigest"
                    and _is_json_text(node.func.value, json_names)):
                found.append(function.name)
                break
    return found


def is_space_name(value) -> bool:
    return value in SPACE_NAMES


def is_benchmark_name(value) -> bool:
    return isinstance(value, str) and value not in SPACE_NAMES and bool(FAMILY_NAME.match(value))


def _names(test: ast.AST, named) -> bool:
    for node in ast.walk(test):
        literals = []
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
                                                 for op in node.ops):
            for side in [node.left, *node.comparators]:
                if isinstance(side, ast.Constant):
                    literals.append(side.value)
                elif isinstance(side, (ast.Tuple, ast.List, ast.Set)):
                    literals += [item.value for item in side.elts if isinstance(item, ast.Constant)]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("startswith", "endswith")):
            for argument in node.args:
                if isinstance(argument, ast.Constant):
                    literals.append(argument.value)
                elif isinstance(argument, ast.Tuple):
                    literals += [item.value for item in argument.elts if isinstance(item, ast.Constant)]
        if any(named(value) for value in literals):
            return True
    return False


def _is_test(value: ast.AST) -> bool:
    """Whether an assigned value is a truth value: a comparison, a call of ``startswith`` or
    ``endswith``, or ``not``/``and``/``or`` of them."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        return _is_test(value.operand)
    if isinstance(value, ast.BoolOp):
        return all(_is_test(item) for item in value.values)
    return isinstance(value, ast.Compare) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
                                              and value.func.attr in ("startswith", "endswith"))


def name_tests(tree: ast.AST, named) -> tuple[int, int]:
    """(if/elif tests and conditional expressions comparing with a ``named`` literal, chains
    holding such a test: an if/elif/else chain or a conditional expression)."""
    elifs = {id(node.orelse[0]) for node in ast.walk(tree)
             if isinstance(node, ast.If) and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)}
    tests = chains = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.IfExp) and _names(node.test, named):
            tests += 1
            chains += 1
        if (isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
                and not isinstance(node.value, ast.IfExp) and _is_test(node.value) and _names(node.value, named)):
            tests += 1
            chains += 1
        if isinstance(node, ast.If) and id(node) not in elifs:
            link, found = node, 0
            while True:
                found += _names(link.test, named)
                if len(link.orelse) == 1 and isinstance(link.orelse[0], ast.If):
                    link = link.orelse[0]
                else:
                    break
            tests += found
            chains += found > 0
    return tests, chains


def pools(tree: ast.AST) -> int:
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            count += name in POOLS
    return count


def data_file_names(tree: ast.Module) -> list[str]:
    names = []
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                and DATA_FILE.search(node.value.value)):
            names.append(node.value.value)
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=ROOT / "src" / "nasarena")
    options = parser.parse_args()
    modules = source_modules(options.src)
    arrows = upward_arrows(options.src)
    hashes: list[str] = []
    pool_count = 0
    pool_modules: list[str] = []
    space_tests = [0, 0]
    benchmark_tests = [0, 0]
    files: Counter[str] = Counter()
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hashes += [f"{name}.{function}" for function in settings_hash_functions(tree)]
        here = pools(tree)
        pool_count += here
        if here:
            pool_modules.append(f"{name} ({here})")
        for counts, named in ((space_tests, is_space_name), (benchmark_tests, is_benchmark_name)):
            if name == "nasarena.spaces" or name.startswith("nasarena.spaces."):
                continue
            found = name_tests(tree, named)
            counts[0], counts[1] = counts[0] + found[0], counts[1] + found[1]
        files.update(data_file_names(tree))
    print(f"source: {options.src}")
    print(f"modules                       {len(modules)}")
    print(f"upward arrows                 {len({(a, b) for a, b, _ in arrows})} module pairs, {len(arrows)} imports")
    print(f"process pools                 {pool_count} constructions in {len(pool_modules)} modules: "
          f"{', '.join(pool_modules)}")
    print(f"settings-hash functions       {len(hashes)}: {', '.join(hashes)}")
    print(f"if-chains on space names      {space_tests[1]} chains, {space_tests[0]} tests")
    print(f"if-chains on benchmark names  {benchmark_tests[1]} chains, {benchmark_tests[0]} tests")
    repeated = {name: n for name, n in files.items() if n > 1}
    print(f"packaged data file constants  {sum(files.values())} for {len(files)} files"
          + (f"; defined more than once: {repeated}" if repeated else ""))


if __name__ == "__main__":
    main()
