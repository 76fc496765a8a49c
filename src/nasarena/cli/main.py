"""Entry point of the ``nasarena`` command; sub-commands live in one module each."""

import typer

from .analyze import analyze_command
from .benchmarks import benchmarks
from .collect import collect_command
from .errors import ReportingGroup
from .estimators import app as estimators_app
from .leaderboard import leaderboard_command
from .nb101 import app as nb101_app
from .oneshot import app as oneshot_app
from .query import query_command
from .report import report_command
from .reproduce import reproduce_command
from .run import optimizers_command, run_command
from .supernet import app as supernet_app
from .surrogate import app as surrogate_app
from .train import train_command

#: The vocabulary every command speaks (see .vocabulary), under the root's --help.
VOCABULARY = ("Every command: --jobs N parallel processes (0: all cores); --workers only an optimizer's own workers "
              "(run: simulated, oneshot tune: BOHB's); lists comma-separated in plural options (--optimizers darts,gdas, "
              "--seeds 0-9,12); --set [NAME.]KEY=VALUE, repeatable (NAME: the one optimizer, protocol or model it is "
              "for; without it, for all); a bad input is one line 'error: ...' on stderr, exit status 2.")

app = typer.Typer(cls=ReportingGroup, help="nasarena: exact, fast, reproducible NAS benchmarking.", no_args_is_help=True,
                  epilog=VOCABULARY)
app.add_typer(estimators_app, name="estimators")
app.add_typer(nb101_app, name="nb101")
app.add_typer(oneshot_app, name="oneshot")
app.add_typer(supernet_app, name="supernet")
app.add_typer(surrogate_app, name="surrogate")
app.command()(benchmarks)
app.command("run")(run_command)
app.command("optimizers")(optimizers_command)
app.command("report")(report_command)
app.command("reproduce")(reproduce_command)
app.command("leaderboard")(leaderboard_command)
app.command("query")(query_command)
app.command("analyze")(analyze_command)
app.command("train")(train_command)
app.command("collect")(collect_command)


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"nasarena {__version__}")
        raise typer.Exit()


@app.callback()
def root(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                      help="Print nasarena's version and exit.")) -> None:
    """nasarena: exact, fast, reproducible NAS benchmarking."""

if __name__ == "__main__":  # pragma: no cover
    app()
