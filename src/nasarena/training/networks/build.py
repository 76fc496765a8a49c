"""``build_network``: the exact network of an architecture of a space, at full or reduced scale."""

from __future__ import annotations

from torch import nn

from ...errors import InvalidArchitectureError, InvalidSettingError, unknown_name

#: Scale knobs of each space and their full-size (paper) values.
SPACES: dict[str, dict[str, object]] = {
    "nb101": {"stem_channels": 128, "stacks": 3, "cells_per_stack": 3, "num_classes": 10},
    "nb201": {"channels": 16, "cells_per_stage": 5, "num_classes": 10},
    "darts": {"channels": 36, "layers": 20, "auxiliary": True, "num_classes": 10},
}


class Scale(dict):
    """The scale knobs a network was built with (a plain mapping, plus ``to_dict`` for records)."""

    def to_dict(self) -> dict:
        return dict(self)


def build_network(space: str, arch, **scale) -> nn.Module:
    """The ``torch.nn.Module`` of ``arch`` (the space's architecture object or its text form).

    Knobs default to the paper's full size (see ``SPACES``); NB301's training network is
    ``build_network("darts", arch, channels=32, layers=8)``. The module carries ``space``,
    ``scale`` (the knobs used) and ``arch_text`` (the space's text form of ``arch``).
    """
    if space not in SPACES:
        raise unknown_name("space for training", space, SPACES)
    knobs = Scale(SPACES[space])
    for name, value in scale.items():
        if name not in knobs:
            raise InvalidSettingError(f"unknown scale knob {name!r} for space {space!r}; "
                                      f"accepted: {', '.join(SPACES[space])}")
        _check_knob(space, name, value)
        knobs[name] = value
    arch, text = _parsed(space, arch)
    if space == "nb101":
        from .nb101 import NB101Network

        network = NB101Network(arch, **knobs)
    elif space == "nb201":
        from .nb201 import NB201Network

        network = NB201Network(arch, **knobs)
    else:
        from .darts import DartsNetwork

        network = DartsNetwork(arch, **knobs)
    network.space, network.scale, network.arch_text = space, knobs, text
    return network


def _check_knob(space: str, name: str, value) -> None:
    if name == "auxiliary":
        if not isinstance(value, bool):
            raise InvalidSettingError(f"{space} scale knob auxiliary={value!r} must be True or False")
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidSettingError(f"{space} scale knob {name}={value!r} must be a whole number >= 1")
    if space == "darts" and name == "layers" and value < 3:
        raise InvalidSettingError(f"darts scale knob layers={value} must be >= 3 (two of them are reduction cells)")


def _parsed(space: str, arch):
    """The architecture object and its text form; text is parsed by the space's own parser."""
    if space == "nb101":
        from ...spaces.nb101 import Cell
        from ...spaces.nb101.space import NB101Space

        parser, kind = NB101Space(), Cell
    elif space == "nb201":
        from ...spaces.nb201.cell import Cell201
        from ...spaces.nb201.space import NB201Space

        parser, kind = NB201Space(), Cell201
    else:
        from ...spaces.darts import DartsArch, DartsSpace

        parser, kind = DartsSpace(), DartsArch
    if isinstance(arch, str):
        try:
            arch = parser.from_text(arch)
        except (ValueError, KeyError) as error:
            raise InvalidArchitectureError(f"{space} architecture text {arch[:200]!r} does not parse: {error}") from None
    if not isinstance(arch, kind):
        raise InvalidArchitectureError(f"a {space} architecture is a {kind.__name__} or its text form, "
                                       f"got {type(arch).__name__}")
    if space == "nb101" and not arch.is_valid:
        raise InvalidArchitectureError(f"the NB101 cell is outside the space ({arch.reason}); it has no network")
    return arch, parser.to_text(arch)
