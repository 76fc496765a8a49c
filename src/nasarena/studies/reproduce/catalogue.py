"""Every generated page and its blocks: what ``nasarena reproduce`` can regenerate."""

from __future__ import annotations

from ...errors import unknown_name
from . import (
    anytime_table,
    darts214_surrogates,
    estimators_page,
    hardware_latency,
    leaderboard_page,
    multiobjective_bench,
    multiobjective_nb201,
    nb1shot1_discrete,
    nb1shot1_oneshot,
    nb101_table,
    nb301_findings,
    nb301_model,
    nbgraph_transfer,
    speed_claims,
)
from .pages import Block, Page

PAGES: dict[str, Page] = {
    page.name: page
    for page in (
        Page("anytime", "reproduce/anytime.md", (
            # SMAC's share: its optimizer CPU time in the runs' timings/ files, on a 2 GHz Xeon core
            # (1 to 3 min a run in O and VS; 60 and 80 min for one run each of C and CVS).
            Block("table-i", anytime_table.generate,
                  "240 runs at 1e7 s: about 2 CPU hours for RE and irace, 1 for SMAC in O and VS, and 1 to 1.5 "
                  "a run for SMAC in the cached setups C and CVS (40 to 60 hours for their 40 runs)"),
            Block("differences", anytime_table.generate_differences, "the runs of table-i, loaded again"))),
        Page("leaderboard", "leaderboard.md", (
            Block("full", leaderboard_page.generate, "8 optimizers x 20 seeds x 17 benchmarks, 300 trainings' "
                  "worth each: about an hour of one core, most of it BANANAS"),)),
        Page("nas-bench-1shot1", "reproduce/nas-bench-1shot1.md", (
            Block("discrete", nb1shot1_discrete.generate, "360 runs at 1e6 s: about 20 CPU minutes"),
            Block("note", nb1shot1_discrete.generate_note, "the runs of discrete, loaded again"),
            Block("oneshot-speed", nb1shot1_oneshot.generate, "6 quick searches, 4 paper-size steps each: 5 CPU min"))),
        Page("nas-bench-101", "reproduce/nas-bench-101.md", (
            Block("optima", nb101_table.generate_optima, "two tables loaded: seconds"),
            Block("op-replacement", nb101_table.generate_replacements, "joins over 423,624 cells: seconds"))),
        Page("nas-bench-301", "reproduce/nas-bench-301.md", (
            Block("darts214", darts214_surrogates.generate,
                  "4 models x 10 folds on 214 architectures, and 214 networks built to count parameters: about "
                  "2 CPU minutes"),
            Block("model-checks", nb301_model.generate,
                  "10,000 architectures queried and timed, 1,000 curves, 214 real architectures: under a minute"),
            Block("optimizer-findings", nb301_findings.generate,
                  "8 optimizers x 20 seeds at 1e7 s on nb301: about 2 CPU hours, most of it BANANAS"))),
        Page("nas-bench-graph", "nas-bench-graph.md", (
            Block("transfer", nbgraph_transfer.generate, "36 pairs of tables of up to 26,206 networks: seconds"),)),
        Page("estimators", "estimators.md", (
            Block("suite-zero", estimators_page.generate_agreement,
                  "reads the saved values (recomputing them: bench/bench_suite_zero_agreement.py, CPU hours)"),
            Block("published", estimators_page.generate_published, "seconds: the embedded table, the saved table of the image-reading proxies and shared scores"),
            Block("nb101-short-training", estimators_page.generate_short_training, "look-ups and correlations over "
                  "the embedded table's 500 NB101 cells: seconds"),
            Block("warmup", estimators_page.generate_warmup, "200 runs of 3e5 s on nb201-cifar10 (RE and BANANAS, "
                  "50 seeds, with and without the warm-up): about a CPU minute, most of it BANANAS"),
            Block("proxy-speed", estimators_page.generate_proxy_speed, "every proxy timed on 5 NB201 cells after one "
                  "unmeasured: about a CPU minute (2 minutes' wall on the loaded 2-core machine)"))),
        Page("hardware", "hardware.md", (
            Block("kendall", hardware_latency.generate_kendall, "351 Kendall taus over 15,625 cells: seconds"),
            Block("fbnet-fit", hardware_latency.generate_fbnet, "read from the embedded table: seconds"))),
        Page("multi-objective", "multi-objective.md", (
            Block("nb201-latency", multiobjective_nb201.generate,
                  "400 runs of about 200 NB201 evaluations: about 20 CPU minutes"),
            Block("bench", multiobjective_bench.generate, "240 runs of 3e5 s on NB201 (MO-ASHA and EHVI against "
                  "mo-rs, mo-re, nsga2 and parego-smac, 20 seeds): about 7 CPU minutes, most of it ehvi-rf and "
                  "parego-smac"))),
        Page("speed", "speed.md", (
            Block("claims", speed_claims.generate, "timed runs and queries: about 10 CPU minutes, most of it the library "
                  "references and BANANAS training new networks at every retraining"),)),
    )
}


def page(name: str) -> Page:
    try:
        return PAGES[name]
    except KeyError:
        raise unknown_name("page", name, PAGES) from None
