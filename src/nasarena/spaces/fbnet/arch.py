"""An FBNet architecture: the block of each of the 22 searchable layers.

Its text form is the 22 block names joined by commas, layer 0 first
(``k3_e1,skip,k5_e6,...``); spaces around the names are ignored when parsing.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from .blocks import BLOCKS, NUM_LAYERS


@dataclass(frozen=True)
class FBNetArch:
    """The block name of each searchable layer, layer 0 first."""

    blocks: tuple[str, ...]

    def __post_init__(self) -> None:
        if isinstance(self.blocks, (str, bytes)) or not isinstance(self.blocks, Sequence) \
                or len(self.blocks) != NUM_LAYERS:
            raise ValueError(f"an FBNet architecture has {NUM_LAYERS} searchable layers; give {NUM_LAYERS} block "
                             f"names, got {self.blocks!r}")
        for layer, block in enumerate(self.blocks):
            if block not in BLOCKS:
                raise ValueError(f"layer {layer}: unknown block {block!r}; expected one of {', '.join(BLOCKS)}")
        object.__setattr__(self, "blocks", tuple(str(block) for block in self.blocks))

    @classmethod
    def from_indices(cls, indices) -> FBNetArch:
        """The architecture with block ``BLOCKS[indices[layer]]`` in each layer."""
        try:
            indices = [operator.index(i) for i in indices]
        except TypeError:
            raise ValueError(f"block indices must be integers, got {indices!r}") from None
        if len(indices) != NUM_LAYERS:
            raise ValueError(f"expected {NUM_LAYERS} block indices, got {len(indices)}")
        for layer, index in enumerate(indices):
            if not 0 <= index < len(BLOCKS):
                raise ValueError(f"layer {layer}: block index must be in 0..{len(BLOCKS) - 1}, got {index}")
        return cls(tuple(BLOCKS[i] for i in indices))

    @cached_property
    def block_indices(self) -> tuple[int, ...]:
        """Each layer's block as its position in ``BLOCKS``."""
        return tuple(BLOCKS.index(block) for block in self.blocks)

    def to_text(self) -> str:
        return ",".join(self.blocks)

    @classmethod
    def from_text(cls, text: str) -> FBNetArch:
        """Parse the comma-separated form; a ValueError names the layer at fault."""
        if not isinstance(text, str):
            raise ValueError(f"FBNet text must be a string, got {type(text).__name__}")
        names = [name.strip() for name in text.split(",")]
        if len(names) != NUM_LAYERS:
            raise ValueError(f"{text!r}: expected {NUM_LAYERS} comma-separated block names, got {len(names)}")
        return cls(tuple(names))

    def to_dict(self) -> dict:
        return {"blocks": list(self.blocks)}

    @classmethod
    def from_dict(cls, data: dict) -> FBNetArch:
        if "blocks" not in data:
            raise ValueError(f"an FBNet architecture record needs a 'blocks' list, got keys {sorted(data)}")
        return cls(data["blocks"])

    def __str__(self) -> str:
        return self.to_text()
