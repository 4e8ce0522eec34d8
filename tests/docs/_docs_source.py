"""Reading the documentation's sources (docs/) for the tests of this folder."""
from __future__ import annotations

import importlib
import inspect
import re
import textwrap
import types
from pathlib import Path

import rankselect

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
API = DOCS / "api"
#: generated or build folders: not sources
SKIP_DIRS = {"_build", "auto_examples", "generated", "_templates", "gallery"}

#: the modules of the API reference: one page each (docs/api/<page>.rst); names in their
#: ``__all__`` are the public API (the package's other modules are its implementation)
API_MODULES = [
    "rankselect",
    "rankselect.data",
    "rankselect.data.datasets",
    "rankselect.metrics",
    "rankselect.models",
    "rankselect.models.pairwise",
    "rankselect.models.penalties",
    "rankselect.selection",
    "rankselect.analysis",
    "rankselect.analysis.costs",
    "rankselect.analysis.inspection",
    "rankselect.analysis.stats",
    "rankselect.deploy.formats",
    "rankselect.deploy",
    "rankselect.methods",
    "rankselect.protocol",
    "rankselect.dask",
    "rankselect.selection.wrapper",
    "rankselect.plotting",
    "rankselect.report",
    "rankselect.cli",
    "rankselect.exceptions",
]


def pages(suffix: str = ".rst") -> list[Path]:
    """Source pages of the site (hand-written), sorted."""
    return sorted(p for p in DOCS.rglob(f"*{suffix}") if not SKIP_DIRS & set(p.relative_to(DOCS).parts))


def _directive_blocks(text: str, names: str) -> list[tuple[str, str]]:
    """(directive, content) of every ``.. <name>::`` directive in order, options dropped."""
    out = []
    lines = text.splitlines()
    pattern = re.compile(rf"^(\s*)\.\. ({names})::(.*)$")
    i = 0
    while i < len(lines):
        m = pattern.match(lines[i])
        if not m:
            i += 1
            continue
        indent, name, arg = len(m.group(1)), m.group(2), m.group(3).strip()
        i += 1
        body = []
        while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
            body.append(lines[i])
            i += 1
        content = textwrap.dedent("\n".join(body))
        content = "\n".join(ln for ln in content.splitlines() if not re.match(r"^:[\w-]+:", ln)).strip("\n")
        out.append((f"{name} {arg}".strip(), content))
    return out


def code_blocks(page: Path) -> list[tuple[str, str]]:
    """The blocks of a page that hold code: ``rankselect-run``, ``code-block`` / ``code``
    (with their language) and ``literalinclude``."""
    return _directive_blocks(page.read_text(encoding="utf-8"), r"rankselect-run|code-block|code|sourcecode")


def python_blocks(page: Path) -> list[str]:
    """The Python of a page, in order: what a test runs."""
    return [code for kind, code in code_blocks(page) if kind in ("rankselect-run", "code-block python",
                                                                   "code python", "sourcecode python")]


def autosummary_entries() -> dict[str, list[str]]:
    """page name -> the fully qualified names its autosummary lists document."""
    out = {}
    for page in sorted(API.glob("*.rst")):
        text = page.read_text(encoding="utf-8")
        current = "rankselect"
        names = []
        for kind, content in _directive_blocks(text, r"currentmodule|module|autosummary"):
            if kind.startswith(("currentmodule", "module")):
                current = kind.split()[1]
                continue
            for entry in content.splitlines():
                entry = entry.strip().lstrip("~")
                if entry:
                    names.append(entry if entry.startswith("rankselect.") else f"{current}.{entry}")
        out[page.stem] = names
    return out


def automodules() -> set[str]:
    """Modules with an ``automodule`` (or ``module``) on an API page."""
    found = set()
    for page in API.glob("*.rst"):
        for kind, _ in _directive_blocks(page.read_text(encoding="utf-8"), r"automodule|module"):
            found.add(kind.split()[1])
    return found


def resolve(dotted: str):
    """The object a dotted name documents (module attribute lookup, as autosummary)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def public_names() -> list[tuple[str, str, object]]:
    """(module, name, object) of every name in the ``__all__`` of the API modules."""
    out = []
    for modname in API_MODULES:
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            out.append((modname, name, getattr(mod, name)))
    return out


def implementation_callables() -> list[tuple[str, object]]:
    """Classes and functions in the ``__all__`` of the package's other public modules (the
    implementation: helpers shared across folders), each once, not already public above."""
    import pkgutil

    api = {id(obj) for _, obj in public_callables()}
    seen: dict[int, tuple[str, object]] = {}
    for info in pkgutil.walk_packages(rankselect.__path__, "rankselect."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        mod = importlib.import_module(info.name)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and id(obj) not in api \
                    and obj.__module__.startswith("rankselect"):
                seen.setdefault(id(obj), (f"{info.name}.{name}", obj))
    return sorted(seen.values(), key=lambda t: t[0])


def public_callables() -> list[tuple[str, object]]:
    """Every public class and function once: (the name it is documented under, object)."""
    seen: dict[int, tuple[str, object]] = {}
    for modname, name, obj in public_names():
        if isinstance(obj, types.ModuleType) or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        where = f"rankselect.{name}" if getattr(rankselect, name, None) is obj else f"{modname}.{name}"
        seen.setdefault(id(obj), (where, obj))
    return sorted(seen.values(), key=lambda t: t[0])
