"""The one exception family of nasarena.

Every error that a user can cause (a bad name, a bad architecture, a bad setting, a bad or
foreign file) is a :class:`NasarenaError`, so callers catch one type and the command line turns
any of them into ``error: <message>`` and exit status 2 (``nasarena.cli.main``) instead of a
traceback. The subclasses also derive from the built-in exception a Python user would expect
(``LookupError`` for an unknown name, ``ValueError`` for an invalid value), so existing
``except ValueError`` code keeps working.

Messages must say *which* thing is wrong: the name and the accepted ones, the cell and the
rule it breaks, the setting and its range, the file and what is wrong with it.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable


class NasarenaError(Exception):
    """Base of every error nasarena raises for bad input; the CLI reports it in one line."""

    def __str__(self) -> str:  # KeyError-style quoting never reaches the user
        return str(self.args[0]) if len(self.args) == 1 else super().__str__()


class UnknownNameError(NasarenaError, KeyError):
    """A name (benchmark, optimizer, space, model, setting) that is not registered.

    A ``KeyError`` (so a ``LookupError``) because that is what a name lookup raised before the
    family existed; :class:`NasarenaError` keeps its message free of ``KeyError``'s quotes."""


class InvalidArchitectureError(NasarenaError, ValueError):
    """An architecture outside the space, or text that does not parse as one."""


class ArchitectureTypeError(InvalidArchitectureError, TypeError):
    """A value of a type no architecture can have (a float where a row, a cell or its text is taken).

    Also a ``TypeError``, as such a call raised before the family existed, so ``except TypeError``
    and ``except ValueError`` (an :class:`InvalidArchitectureError`) both keep working."""


class InvalidSettingError(NasarenaError, ValueError):
    """A setting or argument with a wrong type or outside its accepted range."""


class DataFileError(NasarenaError, ValueError):
    """A file nasarena reads is missing, corrupt, truncated, incomplete or of a foreign format."""


class OutputError(NasarenaError, OSError):
    """An output location that nasarena must not or cannot write (not ours, read-only, full)."""


class MissingExtraError(NasarenaError, ImportError):
    """A feature needs an optional dependency (one of nasarena's extras) that is not installed.

    The message names the package and the ``pip install 'nasarena[extra]'`` that brings it; an
    ``ImportError``, as these failures were before the family existed."""


#: Top-level module of each optional dependency -> the extra of pyproject.toml that installs it.
EXTRA_OF_MODULE = {"torch": "torch", "PIL": "torch", "matplotlib": "plots", "sklearn": "surrogates",
                   "xgboost": "surrogates", "lightgbm": "surrogates", "ngboost": "surrogates", "optuna": "optimizers",
                   "smac": "optimizers", "ray": "distributed", "onnxruntime": "nb301", "numba": "surrogates"}


def _not_installed(module: str, purpose: str) -> MissingExtraError:
    """The error for ``purpose`` (e.g. "the smac optimizer") needing the not installed ``module``."""
    top = module.split(".")[0]
    extra = EXTRA_OF_MODULE.get(top)
    how = f"pip install 'nasarena[{extra}]'" if extra else f"pip install {top}"
    return MissingExtraError(f"{purpose} needs {top}, which is not installed: {how}")


def import_extra(module: str, purpose: str):
    """``module`` of an optional dependency, imported; if it cannot be, the
    :class:`MissingExtraError` of :func:`as_missing_extra` for ``purpose`` (e.g. "the smac
    optimizer"): the one place a feature's optional import is written."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        missing = as_missing_extra(error, purpose)
        if missing is None:
            raise
        raise missing from None


def as_missing_extra(error: ImportError, purpose: str) -> MissingExtraError | None:
    """``error`` said as a :class:`MissingExtraError` when it is the failed import of an optional
    dependency (its module is one of :data:`EXTRA_OF_MODULE`); None for any other import failure.
    An installed package that fails inside (a submodule, a shared library) keeps its reason."""
    if isinstance(error, MissingExtraError):
        return error
    name = getattr(error, "name", None) or ""
    top = name.split(".")[0]
    if top not in EXTRA_OF_MODULE:
        return None
    if isinstance(error, ModuleNotFoundError) and name == top:
        return _not_installed(name, purpose)
    return MissingExtraError(f"{purpose} needs {top}, which cannot be imported ({error}): reinstall it, e.g. "
                             f"pip install --force-reinstall 'nasarena[{EXTRA_OF_MODULE[top]}]'")


def unknown_name(kind: str, name: object, available: Iterable[str], owner: str = "") -> UnknownNameError:
    """The one "unknown X" error: names the kind, the bad name (and whose it is, e.g. "of optimizer
    're'"), close matches and every choice."""
    choices = sorted(available)
    close = difflib.get_close_matches(str(name), choices, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    owner = f" {owner}" if owner else ""
    return UnknownNameError(f"unknown {kind} {name!r}{owner}{hint} (available: {', '.join(choices)})")
