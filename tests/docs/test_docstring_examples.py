"""Every public function and class (the ``__all__`` of the API modules) has a numpydoc
``Examples`` section, and its examples run (doctest), as part of the normal suite."""
from __future__ import annotations

import doctest
import inspect

import matplotlib
import pytest
import sklearn

from _docs_source import public_callables

matplotlib.use("Agg")

CALLABLES = [(name, obj) for name, obj in public_callables() if obj.__module__.startswith("rankselect")]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _has_examples(obj) -> bool:
    doc = inspect.getdoc(obj) or ""
    return "\nExamples\n--------\n" in doc and ">>> " in doc.split("\nExamples\n--------\n", 1)[1]


def test_there_are_public_callables():
    assert len(CALLABLES) > 100


def test_every_public_callable_has_an_examples_section():
    missing = [name for name, obj in CALLABLES if not _has_examples(obj)]
    assert not missing, f"no Examples section with >>> lines: {missing}"


@pytest.mark.parametrize("name, obj", CALLABLES, ids=[name for name, _ in CALLABLES])
def test_docstring_examples_run(name, obj, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    finder = doctest.DocTestFinder(recurse=False)
    tests = finder.find(obj, name, module=False, globs={})
    assert tests and tests[0].examples, f"{name}: no doctest found"
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with sklearn.config_context():
        for test in tests:
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed (output above)"
