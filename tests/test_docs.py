"""The documentation runs as written: README.md and every page of docs/ (the mkdocs site).

The convention for fenced code blocks (docs/contributing.md says the same to writers):

- ```` ```python ```` blocks run. All Python blocks of one page run in one fresh interpreter, in
  page order, in one namespace: a later block may use what an earlier one defined.
- ```` ```bash ```` blocks run with ``bash -euo pipefail``, the virtual environment's ``nasarena``
  first on ``PATH``, in the page's own temporary folder (so do its Python blocks: files one
  block writes, a later block reads; nothing is written into the repository).
- ```` ```py ```` and ```` ```sh ```` blocks are Python and shell that is shown but not run (full
  paper reproductions, commands needing data or hours); their first line is a ``#`` comment
  saying why, so a reader sees it too. ```` ```text ````, ```` ```json ```` etc. are never run.
- Any other tag fails the test, so a typo cannot quietly take a block out of the tests.

Runnable blocks are kept small (tiny budgets, few seeds, nb101-lite/NB201), and pages run two at
a time: the whole module takes about a minute on two idle cores. The command lines of every code block, run or not, name
only subcommands and options that ``nasarena`` has, and the site builds with ``mkdocs build
--strict`` (warnings are errors: broken links and anchors, pages missing from the nav).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
RUN = {"python", "bash"}
SHOWN_NOT_RUN = {"py", "sh"}
NEVER_RUN = {"text", "json", "toml", "yaml", "csv"}

FENCE = re.compile(r"^(?P<indent>[ ]*)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ ]*$", re.MULTILINE | re.DOTALL)


def blocks(page: Path) -> list[tuple[str, str, int]]:
    """(language tag, code, line number of the opening fence) of every fenced block of a page."""
    text = page.read_text()
    found = []
    for match in FENCE.finditer(text):
        tag = match["info"].strip().split()[0] if match["info"].strip() else ""
        body = textwrap.dedent(match["body"]) if match["indent"] else match["body"]
        found.append((tag, body, text.count("\n", 0, match.start()) + 1))
    return found


def name(page: Path) -> str:
    return str(page.relative_to(ROOT))


RUNNABLE = [page for page in PAGES if any(tag in RUN for tag, _, _ in blocks(page))]

# Runs one page's blocks in order: Python in this interpreter's one namespace, shell in a child.
DRIVER = r"""
import json, subprocess, sys
namespace = {"__name__": "__main__"}
for number, (tag, code, line) in enumerate(json.load(open(sys.argv[1]))):
    print(f"--- block at line {line} ({tag})", flush=True)
    if tag == "python":
        exec(compile(code, f"{sys.argv[2]}:{line}", "exec"), namespace)
    else:
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", code])
        if done.returncode != 0:
            sys.exit(f"the bash block at line {line} of {sys.argv[2]} exited with {done.returncode}")
"""


def _run_page(page: Path, folder: Path) -> subprocess.CompletedProcess:
    runnable = [block for block in blocks(page) if block[0] in RUN]
    (folder / "blocks.json").write_text(json.dumps(runnable))
    (folder / "driver.py").write_text(DRIVER)
    work = folder / "work"
    work.mkdir()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "OMP_NUM_THREADS": "1", "NASARENA_PROGRESS": "0", "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
    return subprocess.run([sys.executable, str(folder / "driver.py"), str(folder / "blocks.json"), name(page)],
                          cwd=work, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def page_runs(request, tmp_path_factory):
    """Every selected page's blocks, run two pages at a time (each page is one process, mostly
    single-threaded: on two cores this halves the wall time)."""
    selected = [item.callspec.params["page"] for item in request.session.items
                if getattr(item, "originalname", None) == "test_code_blocks_run"]
    folders = {page: tmp_path_factory.mktemp(page.stem) for page in selected}
    with ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        futures = {page: pool.submit(_run_page, page, folders[page]) for page in selected}
        return {page: future.result() for page, future in futures.items()}


@pytest.mark.parametrize("page", RUNNABLE, ids=name)
def test_code_blocks_run(page, page_runs):
    done = page_runs[page]
    assert done.returncode == 0, f"{name(page)}:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"


def test_every_block_has_a_known_tag_and_shown_code_says_why_it_does_not_run():
    problems = []
    for page in PAGES:
        for tag, code, line in blocks(page):
            where = f"{name(page)}:{line}"
            if tag not in RUN | SHOWN_NOT_RUN | NEVER_RUN:
                problems.append(f"{where}: tag {tag!r} is none of {sorted(RUN | SHOWN_NOT_RUN | NEVER_RUN)}")
            elif tag in SHOWN_NOT_RUN and not code.lstrip().startswith("#"):
                problems.append(f"{where}: a ```{tag} block (not run) starts with a '#' comment saying why")
    assert not problems, "\n".join(problems)
    assert len(RUNNABLE) >= 10  # most pages show something that runs


def _commands():
    """{("oneshot", "run"): ({"--space", ...}, {"--optimizer", ...}), ...}: every command path of the
    CLI with its options and, apart, its hidden ones (old spellings kept for one release)."""
    import typer.main

    from nasarena.cli.main import app

    found = {}

    def walk(command, path):
        options: tuple[set, set] = ({"--help"}, set())
        for parameter in command.params:
            for option in [*getattr(parameter, "opts", []), *getattr(parameter, "secondary_opts", [])]:
                if option.startswith("--"):
                    options[bool(getattr(parameter, "hidden", False))].add(option)
        found[path] = options
        for child_name, child in (getattr(command, "commands", None) or {}).items():
            walk(child, (*path, child_name))

    walk(typer.main.get_command(app), ())
    return found


def _command_lines(code: str):
    """The words of each `nasarena ...` command of a shell block (continuations joined, comments dropped)."""
    for line in re.sub(r"\\\n", " ", code).splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.commenters, lexer.whitespace_split = "#", True
        words: list[str] = []
        for token in [*lexer, ";"]:
            if token and set(token) <= set(";&|()<>"):
                if words and words[0] in {"nasarena", ".venv/bin/nasarena"}:
                    yield words
                words = []
            else:
                words.append(token)


def test_documented_command_lines_name_real_subcommands_and_options():
    commands = _commands()
    problems = []
    for page in PAGES:
        for tag, code, line in blocks(page):
            if tag not in {"bash", "sh"}:
                continue
            for command in _command_lines(code):
                words, command_line = command[1:], " ".join(command)
                path = ()
                while words and (*path, words[0]) in commands:
                    path, words = (*path, words[0]), words[1:]
                if not path and not (words and words[0] in {"--version", "--help"}):
                    problems.append(f"{name(page)}:{line}: no such command: {command_line}")
                    continue
                options, old_spellings = commands[path]
                for word in words:
                    option = word.split("=")[0]
                    if not option.startswith("--") or not path or option in options:
                        continue
                    why = "is an old spelling" if option in old_spellings else "is no option"
                    problems.append(f"{name(page)}:{line}: {option} of nasarena {' '.join(path)} {why}")
    assert not problems, "\n".join(problems)


def test_readme_keeps_the_two_setup_commands_and_links_into_the_docs():
    readme = (ROOT / "README.md").read_text()
    assert "bash scripts/main.sh" in readme and "bash scripts/test.sh" in readme
    assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()  # CI runs the README's test command
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    local = [link for link in links if "://" not in link]
    assert any(link.startswith("docs/") for link in local)
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, f"README links to missing files: {missing}"


def test_site_builds_with_warnings_as_errors(tmp_path):
    """`mkdocs build --strict` into a temporary folder: nothing is written into the repository."""
    pytest.importorskip("mkdocs", reason="the docs extra: pip install -e '.[docs]'")
    pytest.importorskip("material", reason="the docs extra: pip install -e '.[docs]'")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})  # the theme's notice about MkDocs 2
    assert done.returncode == 0, done.stderr[-5000:]
    assert (tmp_path / "site" / "index.html").exists()
