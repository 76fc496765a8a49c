"""One place where the command line turns nasarena's errors into ``error: <message>``, exit 2."""

from __future__ import annotations

import typer
from typer.core import TyperGroup

from ..errors import NasarenaError, as_missing_extra


class ReportingGroup(TyperGroup):
    """The root command group: a :class:`NasarenaError` raised by any sub-command is reported
    in one line on stderr with exit status 2, never as a traceback, and so is a missing optional
    dependency (an extra). Commands therefore raise the library's errors and do not each catch
    and print them."""

    def invoke(self, ctx: typer.Context):
        try:
            return super().invoke(ctx)
        except NasarenaError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from None
        except ImportError as error:  # an optional dependency imported deep inside (torch by the trainer)
            missing = as_missing_extra(error, "this command")
            if missing is None:
                raise
            typer.echo(f"error: {missing}", err=True)
            raise typer.Exit(2) from None
