"""Static proof that every space class satisfies its written contract.

``scripts/test.sh`` runs mypy over this module: each assignment below type-checks only if the
class has every method of :class:`~.protocol.SearchSpace` (and of :class:`~.protocol.FiniteSpace`
for the finite ones) with compatible signatures. Nothing here runs at import time that costs
anything; the runtime checks of the same contract are :func:`nasarena.testing.check_space`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .darts.space import DartsSpace
    from .fbnet.space import FBNetSpace
    from .nb101.space import NB101Space
    from .nb201.space import NB201Space
    from .nbgraph.space import NBGraphProteinsSpace, NBGraphSpace
    from .oneshot.space import OneShotSearchSpace
    from .protocol import FiniteSpace, SearchSpace

    def _finite(nb101: NB101Space, nb201: NB201Space, nbgraph: NBGraphSpace,
                proteins: NBGraphProteinsSpace) -> list[FiniteSpace]:
        return [nb101, nb201, nbgraph, proteins]

    # NB-1Shot1 spaces enumerate four sets (with or without loose ends, the paper's or complete),
    # so they have no single row order; their benchmarks number architectures by NB101 row.
    def _searchable(darts: DartsSpace, fbnet: FBNetSpace, oneshot: OneShotSearchSpace) -> list[SearchSpace]:
        return [darts, fbnet, oneshot]
