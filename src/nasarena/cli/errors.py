"""One place where the command line turns errors into ``error: <message>``, exit 2.

The library's errors (:class:`~nasarena.errors.NasarenaError`), a missing optional dependency
and Click's own usage errors (an unknown option, a missing or malformed value, an unknown
command) all come out the same way: one line on stderr, lowercase ``error:``, exit status 2,
never a traceback or Click's boxed ``Error:``.
"""

from __future__ import annotations

import typer
from typer.core import TyperGroup

from ..errors import NasarenaError, as_missing_extra

try:  # Typer 0.2x parses with its own copy of Click (and no longer installs Click)
    from typer._click import exceptions as click_errors
    from typer._click.globals import get_current_context  # noqa: F401  (for .vocabulary)
except ImportError:  # an older Typer parses with Click itself
    from click import exceptions as click_errors


def usage_error(error: click_errors.ClickException) -> typer.Exit:
    """Report Click's ``error`` in nasarena's form; the exit to raise (status 2).

    Click's message is kept (its suggestion too, e.g. "Did you mean --out?"), its first letter
    lowercased and its final full stop dropped as in nasarena's messages, plus where the
    command's help is."""
    message = error.format_message().strip().rstrip(".")
    if len(message) > 1 and message[0].isupper() and message[1].islower():
        message = message[0].lower() + message[1:]
    context = getattr(error, "ctx", None)
    if context is not None and context.command.get_help_option(context) is not None:
        message += f"; see '{context.command_path} --help'"
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


class ReportingGroup(TyperGroup):
    """The root command group: a :class:`NasarenaError` raised by any sub-command is reported
    in one line on stderr with exit status 2, never as a traceback, and so is a missing optional
    dependency (an extra) and a usage error Click finds while parsing the command line (of the
    root, a sub-group or a command: all are parsed within this group's ``make_context`` or
    ``invoke``). Commands therefore raise the library's errors and do not each catch and print
    them. Click's "no arguments: here is the help" stays as Click shows it."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click_errors.NoArgsIsHelpError:
            raise
        except click_errors.ClickException as error:
            raise usage_error(error) from None

    def invoke(self, ctx: typer.Context):
        try:
            return super().invoke(ctx)
        except click_errors.NoArgsIsHelpError:
            raise
        except click_errors.ClickException as error:
            raise usage_error(error) from None
        except NasarenaError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from None
        except ImportError as error:  # an optional dependency imported deep inside (torch by the trainer)
            missing = as_missing_extra(error, "this command")
            if missing is None:
                raise
            typer.echo(f"error: {missing}", err=True)
            raise typer.Exit(2) from None
