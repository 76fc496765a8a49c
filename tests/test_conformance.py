"""Every registered space, benchmark and optimizer passes nasarena's conformance checks, and the
checks catch a deliberately broken plug-in."""

import numpy as np
import pytest

import nasarena
from nasarena.optimizers.base import REGISTRY, Optimizer, Setting, Trial, available
from nasarena.spaces.registry import space, space_names
from nasarena.testing import ConformanceError, check_benchmark, check_optimizer, check_space

#: Optimizers on NB201 (cheap, finite, every optimizer supports it); multi-fidelity ones get its
#: two fidelities. The racing, BANANAS and SMAC runs are the slow ones: still a few seconds each.
OPTIMIZERS = [entry.name for entry in available()]
BENCHMARKS = ["nb101-lite", "nb101-slice", "nb201-cifar10", "nb201-cifar100", "nb201-imagenet16-120",
              "nb201-cifar10-xgb-v1.0"]


@pytest.mark.parametrize("name", space_names())
def test_every_space_conforms(name):
    check_space(space(name))


@pytest.mark.parametrize("name", BENCHMARKS)
def test_every_benchmark_conforms(name):
    check_benchmark(nasarena.benchmark(name))


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_every_optimizer_conforms(name, nb201):
    check_optimizer(name, nb201)


class _Forgetful(Optimizer):
    """Broken on purpose: a setting without a declared range and a trajectory that ignores the seed."""

    name = "forgetful-test"
    summary = "broken on purpose"
    calls = [0]

    def __init__(self, space, seed=0, *, width: int = 3):
        super().__init__(space, seed)
        self.width = width

    def _ask(self, number):
        _Forgetful.calls[0] += 1
        return Trial(self.space.sample(np.random.default_rng(_Forgetful.calls[0])))

    def _tell(self, trial, observation):
        pass


def test_the_checks_catch_a_broken_optimizer(nb201):
    REGISTRY.add("forgetful-test", _Forgetful)
    try:
        with pytest.raises(ConformanceError, match="declares the type, range and meaning of every setting"):
            check_optimizer("forgetful-test", nb201)
        _Forgetful.SETTINGS = {"width": Setting(int, "a declared setting", low=1)}
        with pytest.raises(ConformanceError, match="same trajectory for the same seed"):
            check_optimizer("forgetful-test", nb201)
    finally:
        REGISTRY.remove("forgetful-test")


class _NoReasons:
    """A space whose membership test raises for foreign objects instead of giving a reason."""

    def __init__(self):
        self._inner = space("nb201")

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def violation(self, arch):
        return arch.ops and None


def test_the_checks_catch_a_broken_space():
    broken = _NoReasons()
    with pytest.raises(ConformanceError, match="violation\\(\\) of a foreign object raised AttributeError"):
        check_space(broken)
