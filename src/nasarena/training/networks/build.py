"""``build_network``: the exact network of an architecture of a space, at full or reduced scale."""

from __future__ import annotations

from torch import nn

from ...errors import InvalidArchitectureError, InvalidSettingError
from ...spaces.protocol import resolve
from ...spaces.registry import SPACES as REGISTERED
from ...spaces.registry import space as space_named
from ...spaces.registry import spaces_with

#: Scale knobs of each space that can be trained and their full-size (paper) values: what the
#: spaces declare (``network_scale``, :mod:`nasarena.spaces.protocol`), read once at import.
SPACES: dict[str, dict[str, object]] = {name: dict(REGISTERED[name].network_scale) for name in spaces_with("network")}


class Scale(dict):
    """The scale knobs a network was built with (a plain mapping, plus ``to_dict`` for records)."""

    def to_dict(self) -> dict:
        return dict(self)


def build_network(space: str, arch, **scale) -> nn.Module:
    """The ``torch.nn.Module`` of ``arch`` (the space's architecture object or its text form).

    Knobs default to the paper's full size (see ``SPACES``); NB301's training network is
    ``build_network("darts", arch, channels=32, layers=8)``. The module carries ``space``,
    ``scale`` (the knobs used) and ``arch_text`` (the space's text form of ``arch``). The space
    names its network (``network``, ``network_scale``: :mod:`nasarena.spaces.protocol`).
    """
    owner = space_named(space, needs="network")
    knobs = Scale(owner.network_scale)
    for name, value in scale.items():
        if name not in knobs:
            raise InvalidSettingError(f"unknown scale knob {name!r} for space {space!r}; "
                                      f"accepted: {', '.join(owner.network_scale)}")
        _check_knob(owner, name, value)
        knobs[name] = value
    arch, text = _parsed(owner, arch)
    network = resolve(owner.network)(arch, **knobs)
    network.space, network.scale, network.arch_text = space, knobs, text
    return network


def _check_knob(owner, name: str, value) -> None:
    space = owner.name
    if isinstance(owner.network_scale[name], bool):
        if not isinstance(value, bool):
            raise InvalidSettingError(f"{space} scale knob {name}={value!r} must be True or False")
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidSettingError(f"{space} scale knob {name}={value!r} must be a whole number >= 1")
    least, why = getattr(owner, "network_minimums", {}).get(name, (1, ""))
    if value < least:
        raise InvalidSettingError(f"{space} scale knob {name}={value} must be >= {least} ({why})")


def _parsed(owner, arch):
    """The architecture object and its text form; text is parsed by the space's own parser."""
    space, kind = owner.name, owner.architecture
    if isinstance(arch, str):
        try:
            arch = owner.from_text(arch)
        except (ValueError, KeyError) as error:
            raise InvalidArchitectureError(f"{space} architecture text {arch[:200]!r} does not parse: {error}") from None
    if not isinstance(arch, kind):
        raise InvalidArchitectureError(f"a {space} architecture is a {kind.__name__} or its text form, "
                                       f"got {type(arch).__name__}")
    problem = owner.violation(arch)
    if problem is not None:
        raise InvalidArchitectureError(f"the {space.upper()} cell is outside the space ({problem}); it has no network")
    return arch, owner.to_text(arch)
