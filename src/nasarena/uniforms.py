"""A generator's uniform doubles, drawn a block at a time and served in the generator's own order.

A scalar ``Generator.random()`` costs ~0.3 us, as much as a cheap optimizer's whole step (regularized
evolution draws a tournament and one or more mutation positions per evaluation). numpy fills
``random(n)`` with the same doubles, in the same order, as ``n`` scalar calls (one 64-bit output
each), so a :class:`UniformStream` draws a block and serves it from a list: the same values, several
times cheaper.

Only the doubles (scalars and arrays of ``random``) keep the generator's order. Any other draw
(every other ``Generator`` method, reached through the stream's attributes) comes from the
generator itself, after the doubles the stream has already taken into its block. Code whose draws
are all doubles (regularized evolution with the NB101 paper's mutation) therefore gets exactly what the generator would
have given it; other code gets other, equally independent, uniform draws: deterministic for a
seed, but not the generator's own sequence.
"""

from __future__ import annotations

import numpy as np

#: Doubles drawn at a time (one draw of 1,024 costs about as much as 15 scalar ones).
BLOCK = 1024


class UniformStream:
    """The doubles ``generator.random()`` would return, in order; other draws from ``generator``."""

    def __init__(self, generator: np.random.Generator):
        self.generator = generator
        self._block = np.empty(0)  # the doubles drawn last, and the same values as a list
        self._values: list[float] = []
        self._next = 0
        self._scaled: list[int] = []  # int(value * self._size) per value of the block, once asked for
        self._size: int | None = None

    def random(self, size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
        """The next double, or an array of the next ones (as ``generator.random(size)``)."""
        if size is not None:
            values = np.empty(size)  # numpy checks the size (a negative one is an error, as there)
            values.flat[:] = self._take(values.size)
            return values
        position = self._next
        if position == len(self._values):
            self._refill()
            position = 0
        self._next = position + 1
        return self._values[position]

    def _take(self, count: int) -> list[float]:
        """The next ``count`` doubles."""
        taken: list[float] = []
        while len(taken) < count:
            if self._next == len(self._values):
                self._refill()
            start = self._next
            self._next = min(len(self._values), start + count - len(taken))
            taken += self._values[start : self._next]
        return taken

    def indices(self, count: int, size: int) -> list[int]:
        """``count`` uniform indices below ``size`` from the next ``count`` doubles ``u``: ``int(u * size)``
        each (as numpy's ``(u * size).astype(int)``), computed for the whole block at once."""
        start = self._next
        if start + count > len(self._values):  # across the end of the block: rare, done one by one
            return [int(u * size) for u in self._take(count)]
        if size != self._size:
            self._scaled, self._size = (self._block * size).astype(np.int64).tolist(), size
        self._next = start + count
        return self._scaled[start : start + count]

    def _refill(self) -> None:
        self._block = self.generator.random(BLOCK)
        self._values = self._block.tolist()
        self._next = 0
        self._size = None

    def __getattr__(self, name: str):
        """Every other draw comes from the generator (see the module docstring)."""
        if name == "generator":  # not set yet (a copy being built): no generator to ask
            raise AttributeError(name)
        return getattr(self.generator, name)
