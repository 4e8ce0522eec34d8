"""The ``rankselect`` command line (the console script ``rankselect = rankselect.cli:main``).

:mod:`~rankselect.cli.app` builds the parser and handles errors and exit codes; each
subcommand is one module (``demo``, ``select``, ``info``, ``evaluate``, ``similarity``,
``train``, ``experiment``, ``export``) with ``add_parser(subparsers)`` and its handler.
"""
from .app import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, cli_wording, main

__all__ = ["main", "cli_wording", "EXIT_INTERRUPTED", "EXIT_BROKEN_PIPE"]
