"""The documentation works offline (issue 35): MathJax is served from the build, no page
loads a script or stylesheet from a CDN. The whole site is checked by
``tests/docs/check_offline.py`` after ``sphinx-build`` in ``.ci/run``; here the checker itself,
the site's configuration, and a tiny page with a formula built with the site's math set-up."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from check_offline import main, offline_problems

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _conf() -> dict:
    """The top-level assignments of docs/conf.py that are literals."""
    values = {}
    for node in ast.parse((DOCS / "conf.py").read_text()).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return values


def test_checker_finds_cdn_scripts_and_missing_files(tmp_path, capsys):
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "ok.js").write_text("")
    (tmp_path / "index.html").write_text('<script src="_static/ok.js"></script><link rel="stylesheet" '
                                         'href="_static/ok.js">')
    assert offline_problems(tmp_path) == []
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "page.html").write_text(
        '<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"></script>'
        '<link rel="stylesheet" href="//cdn.example.org/x.css"><script src="../_static/gone.js"></script>'
        '<a href="https://example.org">a link is fine</a>')
    problems = offline_problems(tmp_path)
    assert len(problems) == 3 and all(p.startswith("sub/page.html") for p in problems)
    assert main([str(tmp_path)]) == 1 and "network" in capsys.readouterr().out
    assert offline_problems(tmp_path / "empty")[0].endswith("no HTML page (build the documentation first)")


def test_site_configuration_serves_mathjax_and_drops_cdn_tables():
    conf = _conf()
    assert "sphinx-mathjax-offline" in conf["extensions"]
    assert conf["sphinx_gallery_conf"]["write_computation_times"] is False  # DataTables from CDNs


def test_a_formula_page_builds_without_the_network(tmp_path):
    sphinx = pytest.importorskip("sphinx.application")
    pytest.importorskip("sphinx-mathjax-offline")
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["sphinx.ext.mathjax", "sphinx-mathjax-offline"]\n')
    (src / "index.rst").write_text("Title\n=====\n\n.. math:: \\mathrm{NDCG@k} = \\frac{DCG@k}{IDCG@k}\n")
    out = tmp_path / "html"
    app = sphinx.Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "html",
                        status=None, warning=None, freshenv=True)
    app.build()
    page = (out / "index.html").read_text()
    assert "mathjax/tex-chtml.js" in page and "cdn.jsdelivr" not in page
    assert (out / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert offline_problems(out) == []


def test_the_built_site_if_present():
    build = DOCS / "_build" / "html"
    if not (build / "index.html").is_file():
        pytest.skip("docs/_build/html not built (.ci/run checks it after sphinx-build)")
    assert offline_problems(build) == []


def test_a_reexported_constant_shows_its_own_doc_comment(tmp_path):
    """Constants' API pages showed ``tuple``'s docstring (issue 35): a constant re-exported by
    a package gets the ``#:`` comment of the module that defines it."""
    sphinx = pytest.importorskip("sphinx.application")
    import sys

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(f"import sys\nsys.path.insert(0, {str(DOCS / '_ext')!r})\n"
                                 'extensions = ["sphinx.ext.autodoc", "rankselect_docs"]\n')
    (src / "index.rst").write_text("Title\n=====\n\n.. autodata:: rankselect.selection.wrapper.SELECTION_RULES\n"
                                   "   :no-value:\n")
    out = tmp_path / "text"
    try:
        sphinx.Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "text",
                      status=None, warning=None, freshenv=True).build()
    finally:
        sys.path[:] = [p for p in sys.path if p != str(DOCS / "_ext")]
    text = (out / "index.txt").read_text()
    assert "the rules that pick the selected subset" in text
    assert "Built-in immutable sequence" not in text
