"""The "[docs]" back-links of ``sphinx.ext.viewcode``'s source pages, made to land.

viewcode builds the back-link of every object of a source module as ``page#<name>.<object>``
with one ``<name>`` per source module: the module name under which the *first* of its
objects was documented. rankselect documents the objects of one source module under
several public names (``rankselect.center_by_query`` and ``rankselect.data.GroupedData``
both live in ``rankselect/data/grouping.py``), so every object documented under another
name got a back-link to an anchor that does not exist (issue 35 counted 26). This extension
records, for every documented object, the anchor its page really has, and writes it into
the source pages' back-links; the modules index lists only modules with a source file
(viewcode also listed ``builtins``, the module of a documented ``str`` or ``tuple`` constant,
which has no page).
``tests/docs/check_offline.py`` checks every link of the built site.
"""
from __future__ import annotations

import importlib
import re
import sys
from typing import Any, Optional

from sphinx import addnodes
from sphinx.application import Sphinx

#: a source page's block of one object and its back-link
_BLOCK = re.compile(r'(<div class="viewcode-block" id="([^"]+)">\s*<a class="viewcode-back" href=")([^"#]*)#[^"]*(")')
#: an entry of the modules index
_INDEX_ENTRY = re.compile(r'<li><a href="[^"]*">([^<]+)</a></li>\n?')


def _source_module(modname: str, fullname: str) -> Optional[str]:
    """The module that defines ``modname.fullname`` (where viewcode shows its source)."""
    try:
        obj: Any = sys.modules.get(modname) or importlib.import_module(modname)
        for part in fullname.split("."):
            obj = getattr(obj, part)
    except Exception:  # not importable: viewcode has no page for it either
        return None
    module = getattr(obj, "__module__", None)
    return module if isinstance(module, str) else None


def _has_source(modname: str) -> bool:
    return str(getattr(sys.modules.get(modname), "__file__", None) or "").endswith(".py")


def _anchors(env) -> dict:
    """(source module, object name) -> (page, anchor), kept with the environment."""
    if not hasattr(env, "rankselect_anchors"):
        env.rankselect_anchors = {}
    return env.rankselect_anchors


def _record(app: Sphinx, doctree) -> None:
    """Record the page and anchor of every Python object documented on this page."""
    anchors = _anchors(app.env)
    for desc in doctree.findall(addnodes.desc):
        if desc.get("domain") != "py":
            continue
        for sig in desc.findall(addnodes.desc_signature):
            modname, fullname, ids = sig.get("module"), sig.get("fullname"), sig.get("ids")
            if not modname or not fullname or not ids:
                continue
            source = _source_module(modname, fullname)
            if source is not None:
                anchors[(source, fullname)] = (app.env.docname, ids[0])


def _forget(app: Sphinx, env, docname: str) -> None:
    anchors = _anchors(env)
    for key in [k for k, (page, _) in anchors.items() if page == docname]:
        del anchors[key]


def _fix_page(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Rewrite a source page's back-links with the recorded anchors; keep only the package's
    modules in the index."""
    if not pagename.startswith("_modules/") or "body" not in context:
        return
    if pagename == "_modules/index":
        context["body"] = _INDEX_ENTRY.sub(lambda m: m[0] if _has_source(m[1]) else "", context["body"])
        return
    module = pagename[len("_modules/"):].replace("/", ".")
    anchors = _anchors(app.env)

    def fix(m: re.Match) -> str:
        target = anchors.get((module, m[2]))
        if target is None:
            return m[0]
        page, anchor = target
        return f"{m[1]}{app.builder.get_relative_uri(pagename, page)}#{anchor}{m[4]}"

    context["body"] = _BLOCK.sub(fix, context["body"])


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx.ext.viewcode")
    app.connect("doctree-read", _record)
    app.connect("env-purge-doc", _forget)
    app.connect("html-page-context", _fix_page)
    return {"parallel_read_safe": False, "parallel_write_safe": True, "version": "1"}
