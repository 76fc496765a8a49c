"""The ``nasarena`` command line."""
