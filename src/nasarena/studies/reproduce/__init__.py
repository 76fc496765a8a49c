"""Pages whose numbers are generated: ``nasarena reproduce PAGE`` reruns a documentation page's
experiments and writes its tables into the page between generated markers.

Why a page is generated rather than typed: a number typed into a page stays when the code that
produced it changes, and a reader cannot tell a current value from a stale one. Here each
published table is a *block* of a *page* (:mod:`.pages`): a function that runs the block's
experiments through the runner (resumable, into a results folder) and returns the table's
markdown and the values it prints. ``reproduce`` writes the markdown between the block's markers
(:mod:`.markers`) with a provenance line (:mod:`.provenance`: version and commit, settings hashes,
seeds, machine, date) and records the values (:mod:`.recorded`), package data that the report's
paper notes read too, so the page and the report have one source.

Every block has two scales: ``full`` (the published settings, minutes to hours) and ``cheap``
(a few seeds and small budgets, seconds). Both are recorded; the test suite regenerates every
block at the cheap scale and compares it with its record, so a code change that moves a published
number fails the suite until the page is regenerated (``nasarena reproduce PAGE`` for the full
scale, ``--cheap`` for the record the tests compare against).
"""
