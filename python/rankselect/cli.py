"""The ``rankselect`` command line: ``rankselect --help``.

Each subcommand lives in ``rankselect/_cli/<name>.py`` and provides
``add_parser(subparsers)`` (which sets ``handler``) and returns nothing; the handler
returns the exit code. Errors in user input print one line and exit 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import List, Optional

from . import __version__

# One module per subcommand, in the order `--help` lists them.
_COMMANDS = [
    "demo",
    "select",
    "info",
    "evaluate",
    "similarity",
    "train",
    "experiment",
]


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rankselect",
        description="Feature selection for learning to rank (LETOR / SVMlight data).",
    )
    parser.add_argument("--version", action="version", version=f"rankselect {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in _COMMANDS:
        importlib.import_module(f"rankselect._cli.{name}").add_parser(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except (ValueError, TypeError, OSError, MemoryError) as exc:
        print(f"rankselect {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
