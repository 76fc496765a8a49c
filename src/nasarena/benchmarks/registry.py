"""Benchmarks by name: ``nasarena.benchmark("nb101-lite")``, and as data: :class:`BenchmarkSpec`.

A benchmark that work in other processes needs (the workers of an experiment, Ray tasks) is
passed to them as a :class:`BenchmarkSpec`, a registered name and its loader's options (a fitted
surrogate is ``BenchmarkSpec.of("surrogate", path=FILE)``), which every process loads itself.
A name added by :func:`register` exists in the registering process only: its specs are not
:attr:`~BenchmarkSpec.portable`, and work on other processes refuses them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import cast

from ..errors import InvalidSettingError
from ..registry import Registry
from ..surrogates.builtin import BUILTINS
from .protocol import Benchmark

#: Loader options that say where a benchmark's data is or how its answers are computed, not what
#: it answers (an imported store, an artefact file, the live benchmark's result store, CIFAR-10
#: folder and device; nb301's ONNX threads, whose answers are bit-identical on any count).
LOCATION_OPTIONS = frozenset({"path", "store", "data", "device", "threads"})
#: The NAS-Bench-1Shot1 benchmarks (a one-shot space over an NB101 table).
ONESHOT = tuple(f"nb1shot1-{i}" for i in (1, 2, 3))
#: The NB101 benchmark a one-shot benchmark uses when none is named (nb101-lite before issue 29).
DEFAULT_NB101 = "nb101-noisy"


@dataclass(frozen=True)
class Entry:
    name: str
    summary: str
    load: Callable[..., Benchmark]


def result_options(options: Mapping[str, object], benchmark: str | None = None) -> dict[str, object]:
    """The loader options that change what a benchmark answers (the live benchmark's space,
    protocol and scale; NB-1Shot1's NB101 table): they belong in a run's settings hash, so a
    results folder never serves runs made with other options (issue 28, point 8).

    A one-shot ``benchmark`` without ``nb101`` (or ``path``) names its default NB101 table: that
    default changed (issue 29), and runs made on the old one must not share a hash with these.
    Runs on ``nb101-noisy`` (directly or under NB-1Shot1) carry its table's version, whose values
    changed with 2.0 (issue 29): results of the earlier table are never resumed as these. A
    zero-cost fidelity (``proxy``) carries the digest of the proxy table it answers from. An NB201
    benchmark's ``unique`` is recorded as True when set and left out when false (the default), so
    ``unique=true`` from the CLI and ``unique=True`` share a hash and runs without it keep theirs."""
    answering = {key: value for key, value in options.items() if key not in LOCATION_OPTIONS}
    if "unique" in answering and (benchmark or "").startswith("nb201-"):
        from .nb201 import unique_option

        if unique_option(answering.pop("unique")):
            answering["unique"] = True
    if benchmark in ONESHOT and "path" not in options:
        answering.setdefault("nb101", DEFAULT_NB101)
    if benchmark == "nb101-noisy" or (benchmark in ONESHOT and answering.get("nb101") == "nb101-noisy"):
        from .nb101_noisy import VERSION

        answering["nb101_noisy_version"] = VERSION
    if "proxy" in answering:  # a zero-cost fidelity's values: runs on another table never resume as these
        from .zero_cost import table_digest

        answering["proxy_table"] = table_digest()
    return answering


def _nb101_lite(**options):
    from .nb101 import load_lite

    return load_lite(**options)


def _nb101_slice(**options):
    from .nb101 import load_slice

    return load_slice(**options)


def _nb101_noisy(**options):
    from .nb101_noisy import load_noisy

    return load_noisy(**options)


def _nb101_official(path: str, **options):
    from .nb101_store import load_store

    return load_store(path, **options)


def _surrogate_file(path: str, **options):
    from .surrogate import load_surrogate

    return load_surrogate(path, **options)


def _builtin_surrogate(name: str):
    def load(**options):
        from .surrogate import load_builtin

        return load_builtin(name, **options)

    return load


def _nb201(dataset: str):
    def load(**options):
        from .nb201 import load

        return load(dataset, **options)

    return load


def _nb301(**options):
    from .nb301_yahpo import load

    return load(**options)


def _nbgraph(dataset: str):
    def load(**options):
        from .nbgraph import load

        return load(dataset, **options)

    return load


def _live(space: str = "nb201", **options):
    from .live import load

    return load(space, **options)


def _oneshot(space: str):
    def load(nb101: str | None = None, **options):
        """The one-shot benchmark of ``space`` over the NB101 benchmark called ``nb101`` (default
        ``nb101-noisy``, or the imported official ``nb101`` when ``path`` names its store);
        ``options`` go to the NB101 loader (``seed``, ``path``, ``compatible_random_stream``)."""
        from ..spaces.oneshot import search_space
        from .oneshot import OneShotBenchmark

        one_shot = search_space(space)  # an unknown space fails before any table is loaded
        if options.get("path", "") is None:  # path=None: no imported store, the default table
            del options["path"]
        name = nb101 or ("nb101" if "path" in options else DEFAULT_NB101)
        return OneShotBenchmark(one_shot, benchmark(name, **options))

    return load


REGISTRY = Registry("benchmark", {
    entry.name: entry
    for entry in [
        Entry("nb101-lite", "NAS-Bench-101, all 423,624 cells, one real accuracy draw each, used as validation AND "
              "test accuracy (optimistic regret; embedded)", _nb101_lite),
        Entry("nb101-slice", "NAS-Bench-101, 30,001 cells with real validation at 4/12/36/108 epochs (embedded)",
              _nb101_slice),
        Entry("nb101-noisy", "NAS-Bench-101, all 423,624 cells x 3 trials: real draws where embedded, the rest from "
              "a fitted noise model (flagged); regret on mean test accuracy (embedded)", _nb101_noisy),
        Entry("nb101", "NAS-Bench-101 with the official 3-trial data, from `nasarena nb101 import` (path=DIR)",
              _nb101_official),
        *(Entry(f"nb201-{d}", f"NAS-Bench-201 {d}, 15,625 cells, real accuracies at 12 and 200 epochs (embedded)",
                _nb201(d)) for d in ("cifar10", "cifar100", "imagenet16-120")),
        *(Entry(name, f"NAS-Bench-1Shot1 search space {name[-1]} over an NB101 benchmark (nb101=NAME, default "
                "nb101-noisy, or path=DIR of an imported official store); regret against the space's best cell",
                _oneshot(name)) for name in ONESHOT),
        *(Entry(f"nbgraph-{d}", f"NAS-Bench-Graph {d}, {'2,021' if d == 'proteins' else '26,206'} GNNs, real validation "
                "and test performance, latency and parameters (embedded)", _nbgraph(d))
          for d in ("cora", "citeseer", "pubmed", "cs", "physics", "photo", "computers", "arxiv", "proteins")),
        Entry("live", "trains each queried architecture on CIFAR-10 (space=nb101|nb201|darts, protocol, scale "
              "knobs, data, store): real accuracies and measured cost, results stored", _live),
        Entry("nb301", "NAS-Bench-301's DARTS space answered by YAHPO Gym's model fitted on NB301's training data: "
              "validation accuracy at epochs 1-98 and training seconds, all modelled, deterministic (embedded; "
              "needs the nb301 extra, onnxruntime)", _nb301),
        Entry("surrogate", "a surrogate benchmark from an artefact of `nasarena surrogate fit` (path=FILE)",
              _surrogate_file),
        *(Entry(b.name, b.summary, _builtin_surrogate(b.name)) for b in BUILTINS.values()),
    ]
})


#: The names :func:`register` added in this process (unknown to every other process).
_REGISTERED_HERE: set[str] = set()


def register(entry: Entry) -> None:
    """Add (or replace) a benchmark under ``entry.name`` in this process (a plug-in, a test's
    benchmark). Worker processes do not see it: describe what they need as a
    :class:`BenchmarkSpec` of a built-in loader and its options instead."""
    REGISTRY.add(entry.name, entry, replace=True)
    _REGISTERED_HERE.add(entry.name)


@dataclass(frozen=True)
class BenchmarkSpec:
    """A benchmark as data: a registered ``name`` and its loader's ``options``, sorted pairs.

    Picklable and hashable, so it travels to worker processes and Ray tasks, and :meth:`load`
    gives the same benchmark in any process of the same installation. Its :attr:`result_options`
    go into a run's settings hash (the name goes into the run's file name and ``benchmark``
    column): a spec without options hashes as its bare name always did."""

    name: str
    options: tuple[tuple[str, object], ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidSettingError(f"a benchmark spec needs a benchmark name, got {self.name!r}")
        options = tuple(sorted((str(key), value) for key, value in dict(self.options).items()))
        object.__setattr__(self, "options", options)

    @classmethod
    def of(cls, name: str, **options) -> BenchmarkSpec:
        return cls(name, tuple(options.items()))

    def load(self) -> Benchmark:
        """The benchmark, loaded in this process (see :func:`benchmark`)."""
        return benchmark(self.name, **dict(self.options))

    @property
    def result_options(self) -> dict[str, object]:
        """The options that change what the benchmark answers (:func:`result_options`)."""
        return result_options(dict(self.options), self.name)

    @property
    def portable(self) -> bool:
        """Whether another process can load it: False for a name :func:`register` added here."""
        return self.name not in _REGISTERED_HERE


def benchmark(name: str, **options) -> Benchmark:
    """Load a benchmark by name; ``options`` go to its loader (e.g. ``seed``, ``path``). An option
    the loader does not take is an InvalidSettingError naming it (not the loader's TypeError)."""
    entry = _entry(name)
    try:
        return entry.load(**options)
    except TypeError as error:
        refused = re.search(r"(?:unexpected keyword argument|multiple values for argument) '(\w+)'", str(error))
        if refused is None or refused.group(1) not in options:
            raise
        option = refused.group(1)
        raise InvalidSettingError(f"benchmark {name!r} takes no option {option}={options[option]!r}"
                                  + (" (its space is fixed)" if option == "space" else "")
                                  + f": {entry.summary}") from None


def available() -> list[Entry]:
    return [_entry(name) for name in sorted(REGISTRY)]


def _entry(name: str) -> Entry:
    return cast(Entry, REGISTRY[name])
