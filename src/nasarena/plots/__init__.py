"""Publication figures and a self-contained HTML report of an experiment.

Needs the ``plots`` extra (matplotlib). matplotlib is imported only when a figure is drawn,
so ``import nasarena`` (and importing these modules) never loads it.
"""
