"""Every search space by name: the explicit table that replaces module scanning.

``space(name)`` returns a new space object with its default settings (NB101: the original
random search's sampler over the whole space). A space is added by one line here; the
conformance checks (:mod:`nasarena.testing`) then run on it in the test suite.
"""

from __future__ import annotations

from ..errors import unknown_name
from ..registry import Registry

SPACES = Registry("search space", {
    "nb101": "nasarena.spaces.nb101.space:NB101Space",
    "nb201": "nasarena.spaces.nb201.space:NB201Space",
    "darts": "nasarena.spaces.darts.space:DartsSpace",
    "fbnet": "nasarena.spaces.fbnet.space:FBNetSpace",
    "nb1shot1-1": "nasarena.spaces.oneshot.space:OneShotSearchSpace(nb1shot1-1)",
    "nb1shot1-2": "nasarena.spaces.oneshot.space:OneShotSearchSpace(nb1shot1-2)",
    "nb1shot1-3": "nasarena.spaces.oneshot.space:OneShotSearchSpace(nb1shot1-3)",
    "nbgraph": "nasarena.spaces.nbgraph.space:NBGraphSpace",
    "nbgraph-proteins": "nasarena.spaces.nbgraph.space:NBGraphProteinsSpace",
})


#: What a space with an optional capability (:mod:`.protocol`) is called in an unknown-name error.
PURPOSES = {"network": "space for training"}


def space(name: str, needs: str | None = None):
    """The space object of the named space: a new one with the class's default settings, or the
    registered object of a space family's member (NB-1Shot1's spaces hold no state).

    With ``needs``, only a space that declares that optional capability: any other name is an
    unknown-name error listing the spaces that do (``needs="network"``: the trainable ones)."""
    if needs is not None and name not in (able := spaces_with(needs)):
        raise unknown_name(PURPOSES.get(needs, f"space with {needs}"), name, able)
    registered = SPACES[name]
    return registered() if isinstance(registered, type) else registered


def space_names() -> list[str]:
    return list(SPACES)


def spaces_with(capability: str) -> list[str]:
    """The names of the spaces that declare an optional capability (:mod:`.protocol`), in table
    order; the registered classes answer, no space is built."""
    return [name for name in SPACES if getattr(SPACES[name], capability, None) is not None]
