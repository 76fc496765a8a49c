"""Analysis of trajectory tables: regret curves, ECDFs, hypervolume, attainment, statistics.

Everything here reads the trajectory table only (``nasarena.runner.experiment.load_results``).
"""
