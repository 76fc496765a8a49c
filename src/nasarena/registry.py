"""One small registry: names mapped to lazily imported ``"module:attribute"`` targets.

Spaces, benchmarks, optimizers and surrogate models are each listed in a plain table, so nothing is found by scanning modules and nothing is imported before it is
used: importing a registry never imports torch, SMAC3 or a space's package. An unknown name is
one error (:func:`nasarena.errors.unknown_name`) with close matches and every choice.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from .errors import unknown_name


class Registry(Mapping[str, object]):
    """``registry[name]`` imports and returns the registered object (cached after the first time).

    A target is ``"module:attribute"``; ``"module:attribute(argument)"`` registers the result of
    calling the attribute with one string argument (e.g. a space family's factory called with the
    member's name). A target that is not a string is the registered object itself (cheap
    descriptions such as the benchmark entries, whose loaders import lazily)."""

    def __init__(self, kind: str, targets: Mapping[str, object]):
        self.kind = kind
        self._targets: dict[str, str] = {}
        self._loaded: dict[str, object] = {}
        for name, target in targets.items():
            self.add(name, target)

    def add(self, name: str, target: object, replace: bool = False) -> None:
        """Register ``name`` (a plug-in): a ``"module:attribute"`` string or the object itself;
        a name registered already is an error unless ``replace``."""
        if name in self._targets and not replace:
            raise ValueError(f"{self.kind} {name!r} is registered already")
        self._loaded.pop(name, None)
        self._targets[name] = target if isinstance(target, str) else f"<{self.kind} {name}>"
        if not isinstance(target, str):
            self._loaded[name] = target

    def remove(self, name: str) -> None:
        """Forget a registered name (a plug-in's tests clean up with it)."""
        self.target(name)
        del self._targets[name]
        self._loaded.pop(name, None)

    def target(self, name: str) -> str:
        """The ``"module:attribute"`` of ``name`` (without importing it)."""
        try:
            return self._targets[name]
        except KeyError:
            raise unknown_name(self.kind, name, self._targets) from None

    def __getitem__(self, name: str) -> object:
        if name not in self._loaded:
            module, _, attribute = self.target(name).partition(":")
            attribute, _, argument = attribute.partition("(")
            value = getattr(importlib.import_module(module), attribute)
            self._loaded[name] = value(argument.rstrip(")")) if argument else value
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._targets)

    def __len__(self) -> int:
        return len(self._targets)

    def __contains__(self, name: object) -> bool:
        return name in self._targets
