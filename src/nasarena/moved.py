"""Import paths of modules that moved, kept working: the old name is the new module, with a
:class:`DeprecationWarning` that names the new path.

Issue 39 gathered the studies (compositions that plan, run and analyse experiments) into
:mod:`nasarena.studies`; their old homes were folders of the layers they compose. A stub file
left in an old folder would import the study back up from below it, so the old names are served
by a finder on ``sys.meta_path`` that the package root installs instead: ``import
nasarena.runner.presets`` gives the module object of ``nasarena.studies.anytime_presets`` itself
(one module, one set of globals, whichever name imported it first).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

#: Old module name -> the module that holds its code now.
MOVED: dict[str, str] = {
    "nasarena.training.collection": "nasarena.studies.collection",
    "nasarena.estimators.table": "nasarena.studies.estimator_table",
    "nasarena.estimators.evaluation": "nasarena.studies.estimator_evaluation",
    "nasarena.oneshot.experiment": "nasarena.studies.oneshot_experiment",
    "nasarena.oneshot.correlation": "nasarena.studies.oneshot_correlation",
    "nasarena.oneshot.tuning": "nasarena.studies.oneshot_tuning",
    "nasarena.oneshot.regularisation": "nasarena.studies.oneshot_regularisation",
    "nasarena.runner.presets": "nasarena.studies.anytime_presets",
    "nasarena.analysis.paper_notes": "nasarena.studies.paper_notes",
}


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old names of :data:`MOVED` and loads each as the module it moved to."""

    def __init__(self) -> None:
        self._own_specs: dict[str, object] = {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {new} (issue 39: the studies are one package); import it from there",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        self._own_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module) -> None:
        """Nothing to run (the module was executed under its new name), but the import system has
        just set the module's ``__spec__`` to the old name's: give it back its own."""
        module.__spec__ = self._own_specs.pop(module.__spec__.name)


def install() -> None:
    """Serve the old names (once per process; the package root calls it)."""
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
