"""The options the one-shot commands share (``nasarena oneshot run``, ``tune``, ``regularise``):
which optimizers, and each one's changes of its search settings."""

from __future__ import annotations

from ..errors import InvalidSettingError
from . import vocabulary

#: ``--set`` of the one-shot commands (each runs several optimizers).
SET_HELP = ("Search setting [OPTIMIZER.]KEY=VALUE (repeatable; see nasarena.oneshot.SearchSettings): channels=8 for "
            "every optimizer, gdas.channels=8 for gdas only (the named form wins).")


def optimizer_names(optimizers: str, old_optimizer: list[str]) -> list[str]:
    """The one-shot optimizers of ``--optimizers`` (or of the old repeated ``--optimizer``), each checked."""
    from ..oneshot.names import check_optimizer

    names = vocabulary.split(vocabulary.plural(optimizers, old_optimizer, "--optimizer", "--optimizers",
                                               "optimizers", "darts,gdas"))
    if not names:
        raise InvalidSettingError("--optimizers names no optimizer")
    for name in names:
        check_optimizer(name)
    return names


def settings_per_optimizer(items: list[str], names: list[str]) -> dict[str, dict[str, object]]:
    """``--set [OPTIMIZER.]KEY=VALUE`` as each optimizer's changes of its search settings."""
    scoped = vocabulary.scoped_settings(items, names, "optimizer", f"in --optimizers ({', '.join(names)})",
                                        "gdas.channels=8")
    return {name: _overrides(given) for name, given in scoped.items()}


def _overrides(items: list[str]) -> dict[str, object]:
    """``name=value`` pairs; values are read as JSON where they parse (numbers, null, true), else text."""
    from ..oneshot.settings import SearchSettings
    from .values import parse_assignments

    known = SearchSettings().to_dict()
    changes = parse_assignments(items, "--set", "channels=8")
    unknown = [name for name in changes if name not in known]
    if unknown:
        raise InvalidSettingError(f"--set {unknown[0]}=...: no such setting; known: {', '.join(known)}")
    return changes
