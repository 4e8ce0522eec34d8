"""One list of metric conventions and of tie modes: the core's (``Convention::ALL``,
``Ties::ALL``), exported as ``_core.CONVENTIONS`` / ``_core.TIES``; Python modules use it."""
import ast
from pathlib import Path
from typing import get_args

import pytest

import rankselect
from rankselect import _core
from rankselect.metrics import checks

PACKAGE = Path(rankselect.__file__).parent


def test_the_lists_are_the_cores():
    assert _core.CONVENTIONS == ("standard", "exponential", "trec", "lightgbm", "letor")
    assert _core.TIES == ("stable", "pessimistic")
    assert checks.CONVENTIONS == _core.CONVENTIONS and checks.TIES == _core.TIES
    # the type checkers' names are the same, in the same order
    assert get_args(checks.Convention) == _core.CONVENTIONS
    assert get_args(checks.Ties) == _core.TIES


@pytest.mark.parametrize("value,expected", [("letor", "letor"), (" LETOR ", "letor"), ("Standard", "standard")])
def test_check_convention(value, expected):
    assert checks.check_convention(value) == expected


@pytest.mark.parametrize("value", ["trec_eval", "", None, 1])
def test_check_convention_refuses(value):
    with pytest.raises(ValueError, match="^convention must be one of 'standard', 'exponential', 'trec', "
                                         "'lightgbm', 'letor', got"):
        checks.check_convention(value)


def _literal_lists(tree):
    """The tuples, lists and sets of string constants written in a module."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            yield node.lineno, {e.value for e in node.elts}


def test_no_module_writes_the_lists_again():
    lists = ({"standard", "exponential", "trec", "lightgbm", "letor"}, {"standard", "letor"},
             {"stable", "pessimistic"})
    found = []
    for path in PACKAGE.rglob("*.py"):
        for line, values in _literal_lists(ast.parse(path.read_text())):
            if values in lists and path.relative_to(PACKAGE).as_posix() != "metrics/checks.py":
                found.append(f"{path.relative_to(PACKAGE)}:{line}")
    assert found == []


def test_the_scan_finds_a_written_list():
    tree = ast.parse('CONVENTIONS = ("letor", "standard")\nx = {"stable", "pessimistic"}')
    assert [v for _, v in _literal_lists(tree)] == [{"letor", "standard"}, {"stable", "pessimistic"}]
