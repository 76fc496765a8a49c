"""The SearchSpace contract every space implements (NB101, NB201, DARTS, FBNet, NB-1Shot1).

Architectures are immutable values; a space is the object optimizers, benchmarks, surrogates
and the conformance checks (:mod:`nasarena.testing`) talk to. One set of names in every space;
a new space is usable everywhere once it implements these methods and is listed in
:mod:`nasarena.spaces.registry`. ``check_space`` in :mod:`nasarena.testing` verifies the
guarantees written here.

One method is optional, a fast path a space offers where drawing one architecture at a time
is the cost of a cheap optimizer: ``sample_many(rng, count)`` returns the same ``count``
architectures as ``count`` calls of :meth:`SearchSpace.sample` and leaves the generator in the
same state (NB101's raw sampler decodes them in vectorised batches). Random search and the
evolutions' first population draw through it when the space has it (:func:`sample_many`);
``check_space`` holds it to that promise.

Optional capabilities: what a space knows beyond the protocol, declared on the space's class
so that no other module compares space names. A capability that is code of a higher layer
(training, surrogates) is named, never imported, by the space: a ``"module:attribute"`` string
that :func:`resolve` imports on use, so a space module imports neither torch nor the
surrogates. Callers look a capability up with ``getattr(space, NAME, None)`` (the registry's
class or object answers without building a space: :func:`nasarena.spaces.registry.spaces_with`).

``network``, ``network_scale``, ``network_minimums``, ``architecture`` (a space that can be trained)
    ``network`` is the ``"module:class"`` of the ``torch.nn.Module`` that trains an architecture
    (``class(arch, **knobs)``); ``network_scale`` its scale knobs at full (paper) size, in
    order; ``network_minimums`` (optional) ``{knob: (least value, why)}`` beyond the rule that
    every whole-number knob is >= 1; ``architecture`` the class of the space's architectures.
    :func:`nasarena.training.networks.build.build_network` and the live benchmark take only the
    spaces that declare ``network`` (NB101, NB201, DARTS).
``at_row(row)``, ``encode_rows(rows, kind)``, ``identities(rows)`` (a finite space's whole table)
    The architecture of one row of :meth:`FiniteSpace.enumerate` (without building the
    enumeration), the ``encode(arch, kind)`` vectors of many rows at once as float32 (vectorised
    where the space can), and their identities as an object array of strings (``identities``
    alone is optional: it defaults to ``identity(at_row(row))``). The surrogates fit on whole
    tables through them (:func:`nasarena.surrogates.spaces.finite_index`); NB101 and NB201 have them.
``exact_parameters(dataset)``
    A function ``arch -> int``: the trainable parameters of an architecture's network for
    ``dataset`` (None: the space's default), without building it; the surrogates report them
    (:func:`nasarena.surrogates.spaces.exact_parameters`). NB101 and NB201 have it.
``representatives()`` (a finite space whose benchmark de-duplicates equivalent architectures)
    For each row, the row of its class's representative (a row is a representative exactly when
    it maps to itself): ``nasarena estimators compute --unique`` draws one architecture per class
    (:func:`nasarena.studies.estimator_table.plan`). NB201 has it (6,466 classes).
``dataset_study``
    The ``"module:function"`` that writes the dataset study of a tabular benchmark of the space
    (``function(benchmark, out, *, seed, locality, started) -> report path``): ``nasarena
    analyze`` runs it on a benchmark with a table. NB101 (the NB101 paper's study) and NB201 have it.
``from_mapping(entry)``
    The architecture of a JSON object (NB101: ``{"matrix": [[...]], "ops": [...]}``), a
    ``ValueError`` for a malformed one: ``nasarena query`` accepts JSON architectures of the
    spaces that have it. NB101 has it.
``estimator_comparison``
    The ``"module:function"`` that judges every estimator of a zero-cost proxy table of the
    space beyond its proxies (``function(table, benchmark, ks, surrogate=...)``, rows as
    :func:`nasarena.studies.estimator_evaluation.evaluate_proxies`): ``nasarena estimators evaluate``
    uses it, else the proxies alone. NB201 has it (short training, the embedded GDAS supernet,
    the built-in surrogate).
``supernet_truth``
    The ``"module:function"`` that gives what ``nasarena supernet evaluate`` judges a supernet's
    scores against on a tabular benchmark of the space (true accuracies and choices by row, how
    an architecture's text finds its row; :class:`nasarena.cli.supernet.SupernetTruth`). NB201
    (a whole table) and the NB-1Shot1 spaces (the authors' set without loose ends) have it.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np


class Rows(Protocol):
    """Architectures by row, built on access (a table of 423,624 cells is not a list of objects)."""

    def __len__(self) -> int: ...

    def __getitem__(self, row: int) -> Any: ...


@runtime_checkable
class SearchSpace(Protocol):
    """What an optimizer or benchmark may ask of a search space."""

    #: The space's registry name (``nb101``, ``nb201``, ``darts``, ``fbnet``, ``nb1shot1-3``).
    name: str
    @property
    def encodings(self) -> Sequence[str]:
        """Encodings :meth:`encode` accepts; each gives a fixed-length vector for every architecture."""

    @property
    def config_encodings(self) -> Sequence[str]:
        """Encodings :meth:`config_space` accepts (``categorical`` in every space)."""

    # -- identity and text ------------------------------------------------------------------

    def identity(self, arch) -> str | None:
        """The canonical identity: equal for architectures that train the same network
        (NB101: the module hash of the pruned cell), stable across processes and versions.
        None only for an invalid architecture that the space's encodings can express (NB101's
        raw cells): optimizers then key it by their own choices.
        Called wherever results are cached or de-duplicated."""

    def to_text(self, arch) -> str:
        """The architecture as text for data files and the CLI; ``from_text(to_text(a))`` has
        the same identity as ``a``."""

    def from_text(self, text: str):
        """Parse :meth:`to_text`'s form (and the space's usual published forms). Malformed text
        raises a ``ValueError`` (an :class:`~nasarena.errors.InvalidArchitectureError`) that says
        what is wrong."""

    # -- membership ---------------------------------------------------------------------------

    def violation(self, arch) -> str | None:
        """Why ``arch`` is not in the space (None when it is). Called by benchmarks before a
        query, so an architecture outside the space is reported rather than looked up."""

    def contains(self, arch) -> bool:
        """``violation(arch) is None``."""

    # -- search operators (every stochastic one takes the caller's generator) ------------------

    def sample(self, rng: np.random.Generator):
        """A random architecture of the space (the space's documented sampling distribution);
        the same generator state gives the same architecture."""

    def mutate(self, arch, rng: np.random.Generator, rate: float = 1.0):
        """A random child of ``arch`` (may equal it where the space's rule allows)."""

    def neighbours(self, arch) -> list:
        """Every architecture one edit away, in a fixed order (local search walks it)."""

    # -- encodings ---------------------------------------------------------------------------

    def encode(self, arch, kind: str) -> np.ndarray:
        """A fixed-length vector of ``arch`` for predictors (``kind`` one of ``encodings``)."""

    def categorical_dims(self) -> tuple[int, ...]:
        """The number of choices of each independent categorical dimension (DE, REINFORCE, irace)."""

    def from_categorical(self, values: Iterable[int]):
        """The architecture of one choice per categorical dimension (it may be outside the space)."""

    def config_space(self, encoding: str = "categorical"):
        """A new ``ConfigSpace.ConfigurationSpace`` of the space (SMAC, TPE, BOHB)."""

    def from_config(self, values: Mapping, encoding: str = "categorical"):
        """The architecture a configuration of :meth:`config_space` decodes to."""

    def to_config(self, arch, encoding: str = "categorical") -> dict:
        """A configuration of :meth:`config_space` that decodes back to ``arch``'s identity."""


@runtime_checkable
class FiniteSpace(SearchSpace, Protocol):
    """A space small enough to enumerate, whose architectures are numbered by row."""

    #: Number of distinct architectures (rows ``0 .. size - 1``).
    size: int

    def enumerate(self) -> Rows:
        """Every architecture, indexed by row: ``enumerate()[row]`` is the architecture of ``row``."""

    def row(self, arch) -> int:
        """The row of an architecture of the space (its position in :meth:`enumerate`)."""


def sample_many(space: SearchSpace, rng: np.random.Generator, count: int) -> list:
    """``count`` architectures of ``space.sample``: through the space's optional ``sample_many``
    fast path when it has one (the same architectures and generator state), else one by one."""
    draw = getattr(space, "sample_many", None)
    return draw(rng, count) if draw is not None else [space.sample(rng) for _ in range(count)]


def resolve(target: str):
    """The object a capability's ``"module:attribute"`` names, imported now."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)
