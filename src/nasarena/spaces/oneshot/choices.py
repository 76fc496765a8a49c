"""A one-shot architecture as independent categorical choices, and the space as a ConfigSpace.

Every architecture of a NAS-Bench-1Shot1 space is one free choice per decision, with no
constraint between them: each block's parent set, each block's op and the output's parent
set. Decisions with a single option (block 1 always takes the input; block 2 of space 1 takes
both earlier vertices) are not choices. The choice order is block by block (parents, then op),
then the output, and it is the order of ``categorical_dims``, ``from_categorical`` and of the
space's ``"choices"`` and ``"one_hot"`` encodings. The ConfigSpace has one categorical
parameter per choice, named ``block_<j>_parents``, ``block_<j>_op`` and ``output_parents``;
parent sets are written as in the text form (``0+2``). ConfigSpace is imported only when a
ConfigurationSpace is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...errors import InvalidArchitectureError, InvalidSettingError
from .arch import OneShotArch
from .definitions import OneShotSpace, oneshot_space
from .enumeration import output_choices, parent_choices

#: Names of the ConfigSpace encodings of the spaces.
CONFIG_ENCODINGS = ("categorical",)


@dataclass(frozen=True)
class Choice:
    """One decision of an architecture: its parameter name and its options (parent sets or op names)."""

    name: str
    options: tuple


def _label(option) -> str:
    """An option as the ConfigSpace value: op names as they are, parent sets as ``0+2``."""
    return option if isinstance(option, str) else "+".join(map(str, option))


@lru_cache(maxsize=None)
def choices(space: str | OneShotSpace) -> tuple[Choice, ...]:
    """The decisions of the space, in choice order (see the module docstring)."""
    space = oneshot_space(space)
    result = []
    for j, options in enumerate(parent_choices(space), start=1):
        if len(options) > 1:
            result.append(Choice(f"block_{j}_parents", options))
        result.append(Choice(f"block_{j}_op", space.ops))
    result.append(Choice("output_parents", output_choices(space)))
    return tuple(result)


def _decisions(arch: OneShotArch) -> dict[str, object]:
    """Every decision of ``arch`` by parameter name (single-option ones included)."""
    values = {}
    for j, (block, op) in enumerate(zip(arch.parents, arch.ops), start=1):
        values[f"block_{j}_parents"] = block
        values[f"block_{j}_op"] = op
    values["output_parents"] = arch.output
    return values


def _of_space(space: str | OneShotSpace, arch) -> OneShotArch:
    """``arch`` when it is an architecture of ``space``; InvalidArchitectureError naming both otherwise
    (a choice index looked up in another space's options is no answer)."""
    name = oneshot_space(space).name
    if not isinstance(arch, OneShotArch):
        raise InvalidArchitectureError(f"a {name} architecture is a OneShotArch, got {type(arch).__name__}")
    if arch.space != name:
        raise InvalidArchitectureError(f"the architecture belongs to {arch.space}, not to {name}")
    return arch


def _build(space: OneShotSpace, chosen: Mapping[str, object]) -> OneShotArch:
    """The architecture of one option per choice (single-option decisions filled in)."""
    blocks = parent_choices(space)
    parents = tuple(chosen.get(f"block_{j}_parents", options[0]) for j, options in enumerate(blocks, start=1))
    ops = tuple(chosen[f"block_{j}_op"] for j in range(1, space.num_blocks + 1))
    return OneShotArch(space.name, parents, ops, chosen["output_parents"])


def to_categorical(space: str | OneShotSpace, arch: OneShotArch) -> tuple[int, ...]:
    """The option index of each choice of ``arch``; InvalidArchitectureError for one of another space."""
    decisions = _decisions(_of_space(space, arch))
    return tuple(choice.options.index(decisions[choice.name]) for choice in choices(space))


def from_categorical(space: str | OneShotSpace, values) -> OneShotArch:
    """The architecture of an option index per choice; InvalidArchitectureError names a bad one."""
    space = oneshot_space(space)
    space_choices = choices(space)
    values = list(values)
    if len(values) != len(space_choices):
        raise InvalidArchitectureError(f"{space.name} has {len(space_choices)} choices, got {len(values)} values")
    chosen = {}
    for choice, value in zip(space_choices, values):
        if not 0 <= int(value) < len(choice.options):
            raise InvalidArchitectureError(f"{space.name}: {choice.name} has options 0..{len(choice.options) - 1}, got {value}")
        chosen[choice.name] = choice.options[int(value)]
    return _build(space, chosen)


def one_hot(space: str | OneShotSpace, arch: OneShotArch) -> np.ndarray:
    """The concatenated one-hot vectors of the choices (float32)."""
    parts = [np.eye(len(choice.options), dtype=np.float32)[index]
             for choice, index in zip(choices(space), to_categorical(space, arch))]
    return np.concatenate(parts)


def _check_encoding(encoding: str) -> None:
    if encoding not in CONFIG_ENCODINGS:
        raise InvalidSettingError(f"unknown config encoding {encoding!r} for the one-shot spaces; "
                                  f"available: {', '.join(CONFIG_ENCODINGS)}")


def config_space(space: str | OneShotSpace, encoding: str = "categorical"):
    """A new ``ConfigSpace.ConfigurationSpace`` with one categorical parameter per choice."""
    _check_encoding(encoding)
    try:
        import ConfigSpace
    except ImportError:
        raise ImportError("the one-shot ConfigSpace needs ConfigSpace: pip install 'ConfigSpace>=1.0'") from None
    space = oneshot_space(space)
    result = ConfigSpace.ConfigurationSpace(name=space.name)
    result.add([ConfigSpace.Categorical(c.name, [_label(o) for o in c.options]) for c in choices(space)])
    return result


def to_config(space: str | OneShotSpace, arch: OneShotArch, encoding: str = "categorical") -> dict[str, str]:
    """The configuration of ``arch``: parameter name -> option label."""
    _check_encoding(encoding)
    decisions = _decisions(_of_space(space, arch))
    return {choice.name: _label(decisions[choice.name]) for choice in choices(space)}


def from_config(space: str | OneShotSpace, values: Mapping, encoding: str = "categorical") -> OneShotArch:
    """The architecture of a configuration; InvalidArchitectureError names a missing, unknown or bad parameter."""
    _check_encoding(encoding)
    space = oneshot_space(space)
    space_choices = {choice.name: choice for choice in choices(space)}
    unknown = sorted(str(name) for name in values if name not in space_choices)
    if unknown:
        raise InvalidArchitectureError(f"{space.name} configuration: unknown parameter(s) {', '.join(unknown)}; "
                                       f"expected {', '.join(space_choices)}")
    chosen = {}
    for name, choice in space_choices.items():
        if name not in values:
            raise InvalidArchitectureError(f"{space.name} configuration: missing parameter {name}")
        labels = [_label(o) for o in choice.options]
        value = str(values[name])
        if value not in labels:
            raise InvalidArchitectureError(f"{space.name} configuration: {name} is {value!r}, not one of {', '.join(labels)}")
        chosen[name] = choice.options[labels.index(value)]
    return _build(space, chosen)
