"""Every code example of the documentation runs, verbatim: the ``rankselect-run`` and
``code-block:: python`` blocks of each page, in order, in one namespace per page, in a
temporary directory (as the build runs them). The gallery scripts run at build time."""
from __future__ import annotations

import contextlib
import io
import warnings

import matplotlib
import pytest
import sklearn

from _docs_source import DOCS, code_blocks, pages, python_blocks

matplotlib.use("Agg")

PAGES = [p for p in pages() if python_blocks(p)]


def test_the_pages_have_examples():
    names = {p.relative_to(DOCS).as_posix() for p in PAGES}
    assert {"getting_started.rst", "user_guide/metrics.rst", "user_guide/dask.rst"} <= names
    assert len(PAGES) >= 12


def test_no_python_block_is_left_out():
    """A block of code is either run (Python) or marked as something else (``text``,
    ``bash`` ...): no unlabelled ``code-block``."""
    for page in pages():
        for kind, _ in code_blocks(page):
            assert kind != "code-block", f"{page}: a code-block without a language"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_page_examples_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns: dict = {"__name__": "__main__"}
    with sklearn.config_context(), contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, code in enumerate(python_blocks(page)):
            exec(compile(code, f"{page.relative_to(DOCS)} block {i}", "exec"), ns)
