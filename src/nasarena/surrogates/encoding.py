"""Architectures -> model input rows, with a per-architecture cache.

Optimizers query the same architectures again and again (regularized evolution re-samples
its population's neighbourhood, local search revisits), and encoding an NB101 cell costs a
table look-up and some array building, so each architecture is encoded once and kept by its
identity. Batches of a finite space go through the vectorised encoders of
:class:`~.spaces.FiniteIndex` instead, and batches of the large spaces (DARTS, FBNet) through
:mod:`.batch_encoding`.
"""

from __future__ import annotations

import numpy as np

from .batch_encoding import MIN_BATCH, batch_encoder
from .spaces import IndexedArchitectures, finite_index


class ArchitectureEncoder:
    """Encodes architectures of ``space`` with the encoding ``kind`` as float32 rows."""

    def __init__(self, space, kind: str):
        self.space = space
        self.kind = kind
        self.index = finite_index(space.name)
        self.batch = batch_encoder(space.name, kind)
        self._cache: dict[str, np.ndarray] = {}
        self.encode(space.sample(np.random.default_rng(0)))  # a wrong encoding name fails here, not mid-run

    def encode(self, arch, identity: str | None = None) -> np.ndarray:
        """One architecture's row (cached by its identity)."""
        key = self.space.identity(arch) if identity is None else identity
        row = self._cache.get(key)
        if row is None:
            row = self._cache[key] = np.asarray(self.space.encode(arch, self.kind), dtype=np.float32).ravel()
        return row

    def encode_many(self, archs, identities=None) -> np.ndarray:
        """Rows of many architectures, (len(archs), width) float32."""
        if isinstance(archs, IndexedArchitectures):
            return archs.index.encode_rows(archs.rows, self.kind)
        archs = list(archs)
        if not archs:
            raise ValueError("no architectures to encode")
        if self.index is not None and len(archs) > 1000:  # vectorised; uncached rows are built by the table
            return self.index.encode_rows([self.index.row(a) for a in archs], self.kind)
        if self.batch is not None and len(archs) >= MIN_BATCH:
            return self.batch(archs)
        keys = [None] * len(archs) if identities is None else list(identities)
        return np.stack([self.encode(a, k) for a, k in zip(archs, keys)])
