"""Entry point of the ``nasarena`` command; sub-commands live in one module each."""

import typer

from .errors import ReportingGroup
from .benchmarks import benchmarks
from .nb101 import app as nb101_app
from .report import report_command
from .run import optimizers_command, run_command
from .supernet import app as supernet_app
from .surrogate import app as surrogate_app

app = typer.Typer(cls=ReportingGroup, help="nasarena: exact, fast, reproducible NAS benchmarking.", no_args_is_help=True)
app.add_typer(nb101_app, name="nb101")
app.add_typer(supernet_app, name="supernet")
app.add_typer(surrogate_app, name="surrogate")
app.command()(benchmarks)
app.command("run")(run_command)
app.command("optimizers")(optimizers_command)
app.command("report")(report_command)

if __name__ == "__main__":  # pragma: no cover
    app()
