"""Every generated page and its blocks: what ``nasarena reproduce`` can regenerate."""

from __future__ import annotations

from ...errors import unknown_name
from . import anytime_table, leaderboard_page, nb1shot1_discrete
from .pages import Block, Page

PAGES: dict[str, Page] = {
    page.name: page
    for page in (
        Page("anytime", "reproduce/anytime.md", (
            Block("table-i", anytime_table.generate,
                  "240 runs at 1e7 s: about 2 CPU hours for RE and irace, plus SMAC's runs"),
            Block("differences", anytime_table.generate_differences, "the runs of table-i, loaded again"))),
        Page("leaderboard", "leaderboard.md", (
            Block("full", leaderboard_page.generate, "8 optimizers x 20 seeds x every benchmark, 300 trainings' "
                  "worth each: CPU hours"),)),
        Page("nas-bench-1shot1", "reproduce/nas-bench-1shot1.md", (
            Block("discrete", nb1shot1_discrete.generate, "360 runs at 1e6 s: about 20 CPU minutes"),)),
    )
}


def page(name: str) -> Page:
    try:
        return PAGES[name]
    except KeyError:
        raise unknown_name("page", name, PAGES) from None
