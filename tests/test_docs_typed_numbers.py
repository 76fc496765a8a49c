"""Issue 38, point 3: no measured time or speed ratio is typed into a documentation page by hand.

Measured times and ratios belong in a generated block (``nasarena reproduce``), which records the
values and the machine they came from. Outside the generated blocks, the code blocks and inline
code, a number with a unit of time or an ``x`` ratio is refused unless it is a setting, a target
or an image size, listed here with its page (each listed phrase must still be on its page, so
the list cannot go stale).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]
#: A number with a unit of time, or a ratio such as ``7x`` / ``7 x``.
TIMED = re.compile(r"(?<![\w.+-])\d[\d,]*(?:\.\d+)?\s?(?:us|ms|s|seconds|minutes|min|hours|h|x)(?!\w)")
#: Image sizes (``16 x 16``) are dimensions, not ratios.
DIMENSIONS = re.compile(r"\d+ x \d+")
#: Targets, limits and settings that read like measurements: (page, phrase).
NOT_MEASURED = {
    ("docs/getting-started.md", "under 15 minutes"),  # the project's limit on the test suite
    ("docs/space-analysis.md", "under 3 minutes"),  # the NB101 space study's target
    ("docs/speed.md", "under 3 minutes"),  # the same target
    ("docs/surrogate-benchmarks.md", "10x"),  # the case study's budget factor, a setting
}


def prose(text: str) -> str:
    """The page without its generated blocks, code blocks and inline code."""
    text = re.sub(r"<!-- generated: ([\w-]+) -->.*?<!-- end generated: \1 -->", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return " ".join(DIMENSIONS.sub("", text).split())


def test_no_page_types_a_measured_time_or_ratio_outside_its_generated_blocks():
    typed = []
    for page in PAGES:
        name = page.relative_to(ROOT).as_posix()
        text = prose(page.read_text(encoding="utf-8"))
        for phrase in (phrase for listed, phrase in NOT_MEASURED if listed == name):
            assert phrase in text, f"{name} no longer says {phrase!r}: remove it from NOT_MEASURED"
            text = text.replace(phrase, "")
        typed += [f"{name}: ...{text[max(0, m.start() - 40):m.end()]}" for m in TIMED.finditer(text)]
    assert not typed, ("measured numbers typed outside generated blocks (generate them with `nasarena reproduce`, "
                       "or say in words where they are measured):\n" + "\n".join(typed))


def test_the_check_sees_a_typed_time_and_ignores_generated_ones():
    page = ("Fast: 3.8 ms per evaluation.\n<!-- generated: a -->\n| 4.5 ms |\n<!-- end generated: a -->\n"
            "A `1e7 s` budget on 16 x 16 images.\n")
    assert [m.group(0) for m in TIMED.finditer(prose(page))] == ["3.8 ms"]
