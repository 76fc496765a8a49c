"""``nasarena benchmarks [NAME]``: list the benchmarks, or describe one."""

from __future__ import annotations

import inspect

import typer

from ..errors import InvalidSettingError

#: What ``--path`` is, for the benchmarks whose loader reads one (others: their summary says).
PATH_MEANING = {
    "nb101": "the folder of an NB101 store imported from the official files with `nasarena nb101 import`",
    "surrogate": "a surrogate artefact file written by `nasarena surrogate fit`",
}


def required_path(name: str) -> str | None:
    """What the path that benchmark ``name`` must be loaded with is (None: it needs none).

    Whether a loader needs a path is its signature's word (a ``path`` parameter without a
    default), so a missing path is a clear error naming what it is, not the loader's TypeError."""
    from ..benchmarks.registry import REGISTRY

    entry = REGISTRY.get(name)
    parameter = None if entry is None else inspect.signature(entry.load).parameters.get("path")
    if parameter is None or parameter.default is not inspect.Parameter.empty:
        return None
    return PATH_MEANING.get(name, entry.summary)


def path_options(name: str, path: object | None, option: str = "--path") -> dict:
    """The loader options of benchmark ``name`` for ``option`` (``{"path": ...}`` or ``{}``):
    refuses a benchmark that needs a path without one and a path for a benchmark whose loader
    reads none. An unknown ``name`` is left to the loader's own "unknown benchmark" error."""
    from ..benchmarks.registry import REGISTRY

    needed = required_path(name)
    if path is None and needed:
        raise InvalidSettingError(f"benchmark {name} needs {option}: {needed}")
    if path is not None and name in REGISTRY and "path" not in inspect.signature(REGISTRY[name].load).parameters:
        readers = ", ".join(n for n in sorted(REGISTRY) if "path" in inspect.signature(REGISTRY[n].load).parameters)
        raise InvalidSettingError(f"benchmark {name} reads no {option} (given {path}); {option} is for: {readers}")
    return {} if path is None else {"path": str(path)}


def benchmarks(
    name: str = typer.Argument(None, help="Describe this benchmark (provenance, sizes, real vs modelled)."),
    path: str = typer.Option(None, help="Store directory (nb101) or artefact file (surrogate), for benchmarks "
                                        "read from files."),
) -> None:
    """List the available benchmarks, or describe one."""
    from ..benchmarks import available, benchmark

    if name is None:
        for entry in available():
            typer.echo(f"{entry.name:24s} {entry.summary}")
        return
    from .progress import spinner

    options = path_options(name, path or None)
    try:
        with spinner(f"loading {name}"):
            loaded = benchmark(name, **options)
    except (KeyError, ValueError, FileNotFoundError) as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from None
    typer.echo(loaded.describe().to_text())
