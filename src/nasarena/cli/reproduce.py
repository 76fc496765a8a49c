"""``nasarena reproduce PAGE ...``: regenerate the numbers of documentation pages from the current code."""

from __future__ import annotations

from pathlib import Path

import typer

from ..errors import InvalidSettingError


def reproduce_command(
    pages: list[str] = typer.Argument(None, help="Pages to regenerate (see --list); all of them when none is named."),
    cheap: bool = typer.Option(False, help="The cheap scale (a few seeds, small budgets): records the values the "
                                           "test suite compares against; never writes the page."),
    check: bool = typer.Option(False, help="Compare with the recorded values and write nothing; exit status 1 "
                                           "when a value moved."),
    jobs: int = typer.Option(1, help="Processes for the runs (0: all cores)."),
    results: Path = typer.Option(None, help="Folder of the pages' runs (default results/reproduce); runs there "
                                            "are resumed."),
    docs: Path = typer.Option(Path("docs"), help="The documentation folder holding the pages."),
    list_pages: bool = typer.Option(False, "--list", help="List the pages, their blocks and full-scale cost."),
    blocks: str = typer.Option(None, "--blocks", help="Only these blocks of the named page, comma-separated (see "
                                                     "--list), e.g. a block whose saved data grew."),
) -> None:
    """Rerun each page's experiments and write its tables between the page's generated markers,
    with a provenance line (version and commit, settings digest, seeds, machine, date); print the
    values that moved since the last regeneration."""
    import os

    from ..studies.reproduce.catalogue import PAGES, page
    from ..studies.reproduce.recorded import CHEAP, FULL
    from ..studies.reproduce.regenerate import reproduce

    if list_pages:
        for known in PAGES.values():
            for block in known.blocks:
                typer.echo(f"{known.name:18} {block.name:12} docs/{known.path}: {block.cost}")
        return
    if jobs < 0:
        raise InvalidSettingError(f"--jobs must be 0 (all cores) or more, got {jobs}")
    names = list(pages) if pages else list(PAGES)
    for name in names:
        page(name)  # every name checked before any work
    chosen = [block.strip() for block in blocks.split(",") if block.strip()] if blocks else []
    if chosen and len(names) != 1:
        raise InvalidSettingError("--blocks names blocks of one page: name that page, e.g. "
                                  "`nasarena reproduce estimators --blocks published`")
    for block in chosen:
        known = [b.name for b in page(names[0]).blocks]
        if block not in known:
            raise InvalidSettingError(f"--blocks {block}: page {names[0]} has the blocks {', '.join(known)}")
    scale = CHEAP if cheap else FULL
    moved_any = False
    for name in names:
        for outcome in reproduce(name, scale, jobs=jobs or os.cpu_count() or 1, results=results, docs=docs,
                                 check=check, blocks=chosen or None):
            where = f"{outcome.page}/{outcome.block} ({scale})"
            if outcome.moved:
                moved_any = True
                typer.echo(f"{where}: {len(outcome.moved)} value(s) moved against the record:")
                for item in outcome.moved:
                    typer.echo(f"  {item}")
            else:
                typer.echo(f"{where}: every value as recorded")
    if check and moved_any:
        raise typer.Exit(1)
