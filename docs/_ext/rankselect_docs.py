"""Sphinx directives of the rankselect documentation.

``.. rankselect-run::``
    Shows a block of Python and runs it at build time; what it prints is shown below it,
    so the numbers on a page are computed by the build, never typed by hand (warnings
    are shown in the output too). The blocks of
    one page share one namespace and run in order, in a temporary working directory. A
    failing block fails the build. ``tests/docs/test_docs_examples.py`` runs the same blocks.

(``NDCG@10`` in prose stays text: docutils would make it an e-mail link.)

``.. rankselect-cli::``
    The command-line reference, rendered from ``rankselect.cli``'s argument parser: the
    main ``--help``, then one section per subcommand with its ``--help``.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import tempfile
import traceback
import warnings

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from sphinx.application import Sphinx

_NAMESPACES: dict[str, dict] = {}


class RunDirective(Directive):
    """Show the code, run it, show its standard output."""

    has_content = True
    option_spec = {"hide-output": directives.flag}

    def run(self):
        env = self.state.document.settings.env
        code = "\n".join(self.content)
        ns = _NAMESPACES.setdefault(env.docname, {"__name__": "__main__"})
        out = io.StringIO()
        cwd = os.getcwd()
        workdir = ns.setdefault("__workdir__", tempfile.mkdtemp(prefix="rankselect-docs-"))
        try:
            os.chdir(workdir)
            with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                exec(compile(code, f"{env.docname}.rst (rankselect-run)", "exec"), ns)
            for w in caught:  # shown as the reader would see them
                print(f"{w.category.__name__}: {w.message}", file=out)
        except Exception:
            # an error of the document: the build goes on and fails at the end (-W)
            error = self.state_machine.reporter.error(
                f"a rankselect-run block failed:\n{traceback.format_exc()}", line=self.lineno)
            return [error]
        finally:
            os.chdir(cwd)
        source = nodes.literal_block(code, code, language="python")
        result = [source]
        text = out.getvalue().rstrip()
        if text and "hide-output" not in self.options:
            output = nodes.literal_block(text, text, language="none")
            output["classes"].append("rankselect-output")
            result.append(output)
        return result


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices.items())
    return []


class CliDirective(Directive):
    """The help of ``rankselect`` and of each subcommand, from the parser itself."""

    has_content = False

    def run(self):
        from rankselect.cli.app import _build_parser

        parser = _build_parser()
        parser.formatter_class = argparse.HelpFormatter
        result: list[nodes.Node] = []
        text = _help(parser, "rankselect")
        result.append(nodes.literal_block(text, text, language="none"))
        for name, sub in _subcommands(parser):
            section = nodes.section(ids=[f"cli-{name}"], names=[f"rankselect {name}"])
            section += nodes.title(text=f"rankselect {name}")
            help_text = _help(sub, f"rankselect {name}")
            section += nodes.literal_block(help_text, help_text, language="none")
            self.state.document.note_implicit_target(section)
            result.append(section)
        return result


def _help(parser: argparse.ArgumentParser, prog: str) -> str:
    parser.prog = prog
    os.environ["COLUMNS"] = "88"  # a fixed width, whatever the terminal of the build
    return parser.format_help().rstrip()


_CUTOFF = re.compile(r"[A-Za-z]+@[0-9.]+[A-Za-z]*")


def _unlink_cutoffs(app: Sphinx, doctree: nodes.document) -> None:
    """``NDCG@10`` in prose is a measure, not an e-mail address: docutils' standalone
    e-mail links are turned back into text when they look like a measure at a cutoff."""
    for ref in list(doctree.findall(nodes.reference)):
        if ref.get("refuri", "").startswith("mailto:") and _CUTOFF.fullmatch(ref.astext()):
            ref.replace_self(nodes.Text(ref.astext()))


def _forget(app: Sphinx, env, docname: str) -> None:
    _NAMESPACES.pop(docname, None)


def constant_doc(name: str, obj) -> list:
    """The ``#:`` doc comment of the constant ``obj`` called ``name`` in the rankselect module
    that defines it (a constant re-exported by a package has its comment where it is defined;
    autodoc reads only the documented module's source and would show ``tuple``'s docstring)."""
    import sys

    from sphinx.pycode import ModuleAnalyzer

    for modname, mod in sorted(sys.modules.items()):
        if not modname.startswith("rankselect") or getattr(mod, name, None) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except Exception:  # a compiled module has no source to read
            continue
        if ("", name) in docs:
            return list(docs[("", name)])
    return []


def _constant_docstrings(app, what, name, obj, options, lines) -> None:
    """A constant whose docstring is its type's gets its ``#:`` comment instead (or none)."""
    doc = getattr(type(obj), "__doc__", None)
    if what not in ("data", "attribute") or not isinstance(doc, str):  # (a slot descriptor is no docstring)
        return
    inherited = [ln.strip() for ln in doc.splitlines() if ln.strip()]
    if [ln.strip() for ln in lines if ln.strip()] != inherited or not inherited:
        return
    lines[:] = constant_doc(name.rpartition(".")[2], obj)


def setup(app: Sphinx) -> dict:
    app.add_directive("rankselect-run", RunDirective)
    app.add_directive("rankselect-cli", CliDirective)
    app.connect("env-purge-doc", _forget)
    app.connect("doctree-read", _unlink_cutoffs)
    # before numpydoc's handler (priority 500), which rewrites the lines and marks them as processed,
    # so that a tuple's docstring would no longer be recognised as the type's
    app.connect("autodoc-process-docstring", _constant_docstrings, priority=400)
    return {"parallel_read_safe": False, "parallel_write_safe": True, "version": "1"}
