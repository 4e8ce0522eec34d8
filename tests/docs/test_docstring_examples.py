"""Every public function and class (the ``__all__`` of the API modules) has a numpydoc
``Examples`` section, and its examples run (doctest), as part of the normal suite; so do
the helpers that the package's folders share (the ``__all__`` of its other modules), except
the two Dask backend adapters, which answer the core's solvers inside a fit."""
from __future__ import annotations

import doctest
import inspect

import matplotlib
import pytest
import sklearn

from _docs_source import implementation_callables, public_callables

matplotlib.use("Agg")

#: objects of the package's modules (not re-exported third-party ones, e.g. numpy's uintp)
CALLABLES = [(name, obj) for name, obj in public_callables() if obj.__module__.startswith("rankselect")]
#: built by a Dask fit from its private shards; exercised by tests/dask
NO_EXAMPLE = {"rankselect.dask.greedy_rankrls.ShardActors", "rankselect.dask.pairwise.PairwiseLoss"}
HELPERS = [(name, obj) for name, obj in implementation_callables() if name not in NO_EXAMPLE]
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _has_examples(obj) -> bool:
    doc = inspect.getdoc(obj) or ""
    return "\nExamples\n--------\n" in doc and ">>> " in doc.split("\nExamples\n--------\n", 1)[1]


def test_there_are_public_callables():
    assert len(CALLABLES) > 100


def test_every_public_callable_has_an_examples_section():
    missing = [name for name, obj in CALLABLES + HELPERS if not _has_examples(obj)]
    assert not missing, f"no Examples section with >>> lines: {missing}"


def test_the_exceptions_are_what_they_say():
    assert NO_EXAMPLE <= {name for name, _ in implementation_callables()}


@pytest.mark.parametrize("name, obj", CALLABLES + HELPERS, ids=[name for name, _ in CALLABLES + HELPERS])
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
