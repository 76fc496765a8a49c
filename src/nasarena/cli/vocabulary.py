"""The command line's one vocabulary, and the old spellings it still takes for one release.

Every command speaks it:

- processes: ``--jobs N`` (0: all cores) wherever work is spread over processes (or Ray
  tasks). ``--workers`` only names an optimizer's own parallel workers: in ``run`` the
  asynchronous workers each run simulates, in ``oneshot tune`` BOHB's trials per round (part of
  the tuning setup, so of its result). Elsewhere ``--workers`` is the old name of ``--jobs``.
- lists: a plural option with comma-separated items (``--optimizers darts,gdas``, ``--seeds 0-9,12``).
  A repeated singular option (``--optimizer darts --optimizer gdas``) is its old spelling.
- settings: ``--set [NAME.]KEY=VALUE``, repeatable. ``KEY=VALUE`` is for everything the command
  runs (every optimizer of the grid, or the one protocol or model), ``NAME.KEY=VALUE`` for the
  one named only, and wins over a plain ``KEY=VALUE`` there (see :func:`scoped_settings`).
- errors: one line ``error: <message>`` on stderr, exit status 2 (see :mod:`.errors`).

An old spelling works until the next release and says so in one ``note:`` line on stderr;
giving it together with its new spelling is an error.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import typer

from ..errors import InvalidSettingError
from .errors import get_current_context

#: What ``--jobs`` says in every help text.
JOBS_HELP = "Parallel processes (0: all cores)"
#: The grammar of ``--set`` (errors and help texts name it).
SET_FORM = "[NAME.]KEY=VALUE"


def renamed(old: str, new: str, meaning: str) -> None:
    """The note that ``old`` was used and is now ``new``."""
    typer.echo(f"note: {old} is now {new} ({meaning}); {old} will be removed in the next release", err=True)


def given(parameter: str) -> bool:
    """Whether the running command's ``parameter`` came from the command line (not its default)."""
    context = get_current_context(silent=True)
    if context is None:
        return False
    source = context.get_parameter_source(parameter)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def processes(jobs: int, old_workers: int | None, parameter: str = "jobs") -> int:
    """The number of processes of ``--jobs`` (0: all cores), or of its old spelling ``--workers``."""
    option = "--jobs"
    if old_workers is not None:
        if given(parameter):
            raise InvalidSettingError("give --jobs only: --workers is its old spelling")
        renamed("--workers", "--jobs", "processes")
        jobs, option = old_workers, "--workers"
    if jobs < 0:
        raise InvalidSettingError(f"{option} must be 0 (all cores) or a number of processes >= 1, got {jobs}")
    return jobs or os.cpu_count() or 1


def plural(value: str | None, old_values: Sequence[str] | str | None, old: str, new: str, parameter: str,
           example: str, default: str | None = None) -> str | None:
    """The comma-separated text of ``new`` (the command's ``parameter``), or of its old singular
    spelling ``old`` (repeated or comma-separated, with a note naming ``example``, e.g.
    ``darts,gdas``); ``default`` when neither is given."""
    if isinstance(old_values, str):
        old_values = [old_values]
    if old_values:
        if given(parameter):
            raise InvalidSettingError(f"give {new} only: {old} is its old spelling")
        renamed(old, new, f"comma-separated, e.g. {new} {example}")
        return ",".join(old_values)
    return default if value is None else value


def split(text: str) -> list[str]:
    """The items of a comma-separated list, stripped, empty ones left out."""
    return [item.strip() for item in text.split(",") if item.strip()]


def scoped_settings(items: Sequence[str], names: Sequence[str], what: str, where: str,
                    example: str) -> dict[str, list[str]]:
    """``--set [NAME.]KEY=VALUE`` items -> each name's ``KEY=VALUE`` items.

    A plain ``KEY=VALUE`` goes to every name, ``NAME.KEY=VALUE`` to that name only, after the
    plain ones, so that it wins where both set a key. ``what`` is what a name is (``optimizer``),
    ``where`` what names them (``--optimizers (rs, re)``), for the errors."""
    common: list[str] = []
    own: dict[str, list[str]] = {name: [] for name in names}
    for item in items:
        key, separator, value = item.partition("=")
        key = key.strip()
        scope, dot, setting = key.partition(".")
        if not separator or not key or (dot and (not scope or not setting)):
            raise InvalidSettingError(f"bad --set {item!r}; use {SET_FORM}, e.g. {example}")
        if not dot:
            common.append(f"{key}={value}")
        elif scope in own:
            own[scope].append(f"{setting}={value}")
        else:
            raise InvalidSettingError(f"--set {scope}.{setting}=... is for {what} {scope!r}, which is not {where}")
    return {name: common + own[name] for name in names}


def own_settings(items: Sequence[str], name: str, what: str, example: str) -> list[str]:
    """``--set [NAME.]KEY=VALUE`` of a command that runs one protocol or model: its ``KEY=VALUE``
    items (``NAME.`` may name it, and no other)."""
    return scoped_settings(items, [name], what, f"the {what} in use ({name})", example)[name]
