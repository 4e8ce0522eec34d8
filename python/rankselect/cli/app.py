"""The ``rankselect`` command line: ``rankselect --help``.

Each subcommand lives in ``rankselect/cli/<name>.py`` and provides
``add_parser(subparsers)`` (which sets ``handler``) and returns nothing; the handler
returns the exit code. Errors in user input print one line and exit 2; warnings print one
line each (``rankselect CMD: warning: ...``, features numbered as in the file). Ctrl-C
exits with 130 and a broken pipe (``rankselect ... | head``) with 141 (128 + SIGPIPE),
both without a traceback.
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
import warnings
from typing import NoReturn, Optional

from .._core import __version__, simd_level
from ..exceptions import warnings_once
from ..methods import METHODS
from . import (
    cascade,
    demo,
    evaluate,
    experiment,
    export,
    info,
    log2letor,
    redundancy,
    report,
    select,
    similarity,
    train,
)

__all__ = ["main", "cli_wording", "EXIT_INTERRUPTED", "EXIT_BROKEN_PIPE"]

# One module per subcommand, in the order `--help` lists them.
_COMMANDS = [demo, log2letor, select, info, evaluate, similarity, redundancy, train, experiment, cascade, export,
             report]

#: exit code after Ctrl-C: 128 + SIGINT (the shell's convention)
EXIT_INTERRUPTED = 130
#: exit code when the reader of standard output went away: 128 + SIGPIPE
EXIT_BROKEN_PIPE = 141


_INVALID_CHOICE = re.compile(r"invalid choice: '?(?P<value>.*?)'? \(choose from (?P<choices>.*)\)$")


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``rankselect select: error: ...`` without the usage
    (which lists every option: 20 lines before the one that matters), a wrong choice with the
    closest valid one; the subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {choice_hint(message)} (see {self.prog} --help)\n")


def choice_hint(message: str) -> str:
    """argparse's "invalid choice" message with the closest choice first.

    Examples
    --------
    >>> from rankselect.cli.app import choice_hint
    >>> choice_hint("argument --method: invalid choice: 'gass' (choose from 'gas', 'ngas', 'hcas')")
    "argument --method: invalid choice 'gass'; did you mean 'gas'? (choices: gas, ngas, hcas)"
    """
    m = _INVALID_CHOICE.search(message)
    if m is None:
        return message
    choices = [c.strip().strip("'") for c in m["choices"].split(",")]
    close = difflib.get_close_matches(m["value"], choices, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"{message[:m.start()]}invalid choice {m['value']!r}{hint} (choices: {', '.join(choices)})"


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="rankselect",
        description="Feature selection for learning to rank (LETOR / SVMlight data).",
    )
    parser.add_argument("--version", action="version", version=f"rankselect {__version__} (SIMD: {simd_level()})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for command in _COMMANDS:
        command.add_parser(sub)
    for p in sub.choices.values():
        _plain_help(p)
    return parser


_ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|ref):`~?([^`]+)`")


def _plain_text(text: str) -> str:
    """Docstring text for a terminal: RST roles and double backticks dropped."""
    return _ROLE.sub(r"\1", text).replace("``", "")


def _plain_help(parser: argparse.ArgumentParser) -> None:
    """A subcommand's help in plain text, and each option's metavar named after its flag
    (``--alpha ALPHA``, not the internal ``P_ALPHA``)."""
    if parser.description:
        parser.description = _plain_text(parser.description)
    for action in parser._actions:
        if action.help:
            action.help = _plain_text(action.help)
        long = [s for s in action.option_strings if s.startswith("--")]
        if long and action.metavar is None and action.choices is None and action.nargs != 0:
            action.metavar = long[0][2:].upper().replace("-", "_")


#: the estimators' keyword hints, as ``select``'s options (in this order: the longer first)
_SELECT_FLAGS = (("select_groups=False", "--no-select-groups"), ("solver=\"fista\"", "--solver fista"),
                 ("select_groups=True", "--select-groups"), ("n_features_to_select", "-k (n_features_to_select)"))

#: a keyword hint ``penalty='l1'`` of an estimator's message
_KEYWORD = re.compile(r"\b([a-z_0-9]+)='([^']*)'")

_ZERO_BASED = re.compile(r"0-based (?:columns?|features?) \[([0-9, ]*)\]")


def cli_wording(message: str, command: str = "") -> str:
    """A library message worded for the command line: 0-based column lists become the
    1-based feature numbers of the file, and Python keyword hints become CLI hints.

    Examples
    --------
    >>> from rankselect.cli import cli_wording
    >>> cli_wording("0-based columns [0, 4] are constant")
    'features 1, 5 as numbered in the file are constant'
    """
    def one_based(m: re.Match[str]) -> str:
        nums = [int(s) + 1 for s in m.group(1).split(",") if s.strip()]
        word = "feature" if len(nums) == 1 else "features"
        return f"{word} {', '.join(map(str, nums))} as numbered in the file"

    message = _ZERO_BASED.sub(one_based, message)
    if command == "select":
        for python, flag in _SELECT_FLAGS:
            message = message.replace(python, flag)
        flags = {prm.name: prm.cli_flag for method in METHODS.values() for prm in method.params}
        message = _KEYWORD.sub(lambda m: f"{flags[m[1]]} {m[2]}" if m[1] in flags else m[0], message)
    if command == "info":
        message = message.replace("allow_nonfinite=True", "--allow-nonfinite")
    message = message.replace(
        "pass allow_nonfinite=True to accept it",
        f"rankselect {command} needs finite values; `rankselect info --allow-nonfinite FILE` counts them")
    message = message.replace(
        "or pass allow_nonfinite=True",
        "or see them with `rankselect info --allow-nonfinite FILE`")
    return message


def _message(exc: BaseException) -> str:
    """The text of an error: an OSError about a file as ``FILE: reason`` (not ``[Errno 2] ...``)."""
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc)


def _show_warnings(command: str):
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"rankselect {command}: warning: {cli_wording(str(message), command)}", file=sys.stderr)
    return show


def _quiet_broken_pipe() -> int:
    # The reader closed the pipe: point stdout at /dev/null so that the interpreter's final
    # flush does not raise again (the recipe of the Python docs, "Note on SIGPIPE").
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a real file (e.g. in tests)
        pass
    return EXIT_BROKEN_PIPE


def main(argv: Optional[list[str]] = None) -> int:
    """Run ``rankselect`` with the arguments ``argv`` (default: the command line); returns
    the exit code: 0, 2 for bad input, 130 on Ctrl-C, 141 on a broken pipe.

    Examples
    --------
    >>> import shutil, tempfile
    >>> from rankselect.cli import main
    >>> from rankselect.data.datasets import example_path
    >>> folder = tempfile.TemporaryDirectory()
    >>> train = shutil.copy(example_path("train"), f"{folder.name}/train.txt")
    >>> main(["select", "--method", "gas", "-k", "2", train])
    # gas on ...train.txt: 2 features (numbered as in the file)
            step       feature    gas weight
               1            10      0.737614
               2             4      0.612827
    0
    >>> folder.cleanup()
    """
    command = "?"
    try:
        parser = _build_parser()
        args = parser.parse_args(argv)
        command = args.command
        with warnings.catch_warnings():
            warnings.showwarning = _show_warnings(command)
            with warnings_once():  # a warning repeated by the command's many fits: shown once
                code = int(args.handler(args) or 0)
            sys.stdout.flush()  # a broken pipe surfaces here, not at interpreter exit
        return code
    except KeyboardInterrupt:
        print(f"rankselect {command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return _quiet_broken_pipe()
    # ImportError: an optional ranker (LightGBM, XGBoost, CatBoost) that is not installed
    except (ValueError, TypeError, OSError, MemoryError, OverflowError, ImportError) as exc:
        text = cli_wording(_message(exc), command) or "out of memory"  # a bare MemoryError has no message
        print(f"rankselect {command}: error: {text}", file=sys.stderr)
        return 2
