"""The documentation works offline (issue 35): MathJax is served from the build, no page
loads a script or stylesheet from a CDN, and every link between its pages lands (issue 40:
the "[source]" / "[docs]" links of viewcode). The whole site is checked by
``tests/docs/check_offline.py`` after ``sphinx-build`` in ``.ci/run``; here the checker itself,
the site's configuration, and tiny sites built with the site's extensions."""
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


def test_checker_finds_links_to_missing_pages_and_anchors(tmp_path):
    (tmp_path / "a.html").write_text('<h1 id="top">A</h1><a href="b.html#there">ok</a><a href="#top">ok</a>'
                                     '<a href="https://example.org/x.html#y">the network is not checked</a>')
    (tmp_path / "b.html").write_text('<div id="there"></div><a href="a.html#gone">1</a><a href="c.html">2</a>'
                                     '<a href="#nowhere">3</a><a href="_downloads/x.py">a file</a>')
    problems = offline_problems(tmp_path)
    assert len(problems) == 3 and all(p.startswith("b.html: links to ") for p in problems)
    assert "no anchor 'gone'" in problems[0] and "c.html, which is not in the build" in problems[1]


def _build(tmp_path, extensions: list[str], index: str, builder: str = "html") -> Path:
    """A tiny site with the site's extensions (docs/_ext on the path); returns its output folder."""
    sphinx = pytest.importorskip("sphinx.application")
    import sys

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(f"import sys\nsys.path.insert(0, {str(DOCS / '_ext')!r})\n"
                                 f"extensions = {extensions!r}\n")
    (src / "index.rst").write_text(index)
    out = tmp_path / builder
    try:
        sphinx.Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), builder,
                      status=None, warning=None, freshenv=True).build()
    finally:
        sys.path[:] = [p for p in sys.path if p != str(DOCS / "_ext")]
    return out


#: objects of one source module (rankselect/data/grouping.py) documented under two public
#: names, as the API pages do: viewcode's back-links pointed at missing anchors
_TWO_NAMES = ("Title\n=====\n\n.. autofunction:: rankselect.center_by_query\n\n"
              ".. autoclass:: rankselect.data.GroupedData\n   :members: gather\n\n"
              ".. autodata:: rankselect.data.datasets.STREAMS\n")


def test_source_pages_link_back_to_the_documented_anchors(tmp_path):
    out = _build(tmp_path, ["sphinx.ext.autodoc", "sphinx.ext.viewcode", "rankselect_viewcode"], _TWO_NAMES)
    source = (out / "_modules" / "rankselect" / "data" / "grouping.html").read_text()
    assert "index.html#rankselect.data.GroupedData.gather" in source
    assert "index.html#rankselect.center_by_query" in source
    assert offline_problems(out) == []  # builtins (a constant's module) is not in the modules index
    assert "rankselect_viewcode" in _conf()["extensions"]


def test_viewcode_alone_breaks_those_links(tmp_path):
    """The reason for the extension: without it the same site has broken back-links."""
    out = _build(tmp_path, ["sphinx.ext.autodoc", "sphinx.ext.viewcode"], _TWO_NAMES)
    assert any("no anchor" in p for p in offline_problems(out))


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
    """Constants' API pages showed ``tuple``'s docstring (issues 35 and 40): a constant
    re-exported by a package gets the ``#:`` comment of the module that defines it, also with
    numpydoc, whose handler rewrites the lines first unless ours runs before it (issue 40)."""
    pytest.importorskip("numpydoc")
    out = _build(tmp_path, ["sphinx.ext.autodoc", "numpydoc", "rankselect_docs"],
                 "Title\n=====\n\n.. autodata:: rankselect.selection.wrapper.SELECTION_RULES\n   :no-value:\n",
                 builder="text")
    text = (out / "index.txt").read_text()
    assert "the rules that pick the selected subset" in text
    assert "Built-in immutable sequence" not in text
