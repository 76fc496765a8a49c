"""Regenerate the documentation's published numbers: ``python scripts/reproduce.py PAGE [--cheap] ...``.

The same as ``nasarena reproduce`` (see ``nasarena reproduce --help`` and docs/reproduce/index.md),
for a checkout where the command is not on the path.
"""

import sys

from nasarena.cli.main import app

if __name__ == "__main__":
    app(["reproduce", *sys.argv[1:]])
