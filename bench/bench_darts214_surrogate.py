"""Cross-validated Kendall tau of surrogates fitted on the 214 real DARTS architectures.

Run: .venv/bin/python bench/bench_darts214_surrogate.py [--models xgb,lgb,rf,svr] [--folds 10]
     [--target final_epoch_test_acc] [--seed 0] [--members 1] [--no-parameters]

The study is ``nasarena.studies.reproduce.darts214_surrogates`` (data, method and baseline are in
its docstring); this script runs it with other settings and prints its table. At the defaults it
is the table of docs/reproduce/nas-bench-301.md, where ``nasarena reproduce nas-bench-301``
writes the measured numbers with their provenance.
"""

from __future__ import annotations

import argparse

from nasarena.studies.reproduce.darts214_surrogates import FULL_STUDY, TARGETS, Study, run_study, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(FULL_STUDY.models))
    parser.add_argument("--folds", type=int, default=FULL_STUDY.folds)
    parser.add_argument("--target", default=TARGETS[0], choices=TARGETS)
    parser.add_argument("--seed", type=int, default=FULL_STUDY.seed)
    parser.add_argument("--members", type=int, default=FULL_STUDY.members)
    parser.add_argument("--no-parameters", action="store_true", help="skip the parameter-count baseline")
    args = parser.parse_args()
    study = Study(tuple(m.strip() for m in args.models.split(",") if m.strip()), args.folds, args.seed, args.members,
                  args.target, not args.no_parameters)
    values, timings = run_study(study)
    print(table(values, timings, study))


if __name__ == "__main__":
    main()
