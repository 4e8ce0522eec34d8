"""No import cycle between sibling Rust modules (issue 40): in ``rust/core`` and ``rust/py``,
modules of the same folder (the same parent module) never use each other both ways, directly
or around a longer circle; what two siblings share goes down into one of them or up into their
parent. Read from the sources: a module uses a sibling when its code (the whole file, comments,
strings and its inline ``#[cfg(test)] mod ... { }`` blocks dropped) names it through a path from
``super::``, ``crate::`` or ``self::``, a ``use`` group included (``use super::{a::X, b}``).
A check on a small crate built to break it shows that the test can fail."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CRATES = [ROOT / "rust" / "core" / "src", ROOT / "rust" / "py" / "src"]

#: known circles left to other work: (crate folder, frozenset of modules) -> why
KNOWN: dict[tuple[str, frozenset[str]], str] = {}

_PATH = re.compile(r"\b((?:super|crate|self)(?:::[A-Za-z_]\w*)*)(?:::\{((?:[^{}]|\{[^{}]*\})*)\})?")


def module_path(src: Path, file: Path) -> tuple[str, ...]:
    parts = list(file.relative_to(src).with_suffix("").parts)
    return tuple(parts[:-1] if parts[-1] in ("mod", "lib") else parts)


def code_of(text: str) -> str:
    """The whole file's code without comments, string and char literals and its inline test
    modules (each ``#[cfg(test)] mod name { ... }`` block to its matching brace, wherever it
    is; the code after it counts)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'r#*"(?:.|\n)*?"#*|"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"'(?:\\.|[^'\\\n])'", "' '", text)  # '{', '}' and '"' as chars
    out, pos = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text):
        if m.start() < pos:
            continue  # nested in a test module already dropped
        out.append(text[pos:m.start()])
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        pos = i
    return "".join(out) + text[pos:]


def paths(code: str) -> list[list[str]]:
    """Every path from super/crate/self, each member of a use group as a path of its own."""
    out = []
    for m in _PATH.finditer(code):
        base = m.group(1).split("::")
        out.append(base)
        for item in re.split(r",(?![^{]*\})", m.group(2) or ""):
            head = item.strip().split("{")[0].strip(": ").split(" as ")[0]
            if head:
                out.append(base + head.split("::"))
    return out


def reexports(files: dict[tuple[str, ...], Path]) -> dict[tuple[str, ...], tuple[str, ...]]:
    """``parent::Name`` -> the child module that defines it, for the parents' ``pub use``
    (``pub use self::child::Name``, ``pub(crate) use child::{A, B}``)."""
    out = {}
    pattern = re.compile(r"\bpub(?:\([\w: ]+\))?\s+use\s+(?:self::)?(\w+)::(\{[^}]*\}|\w+)")
    for mod, file in files.items():
        for m in pattern.finditer(code_of(file.read_text(encoding="utf-8"))):
            child = (*mod, m.group(1))
            if child in files:
                for name in re.findall(r"\w+", m.group(2)):  # `A as B` exports B (and A, harmless)
                    out[(*mod, name)] = child
    return out


def sibling_edges(src: Path) -> dict[tuple[str, ...], set[tuple[str, ...]]]:
    """module -> the sibling modules it uses (through their parent's re-exports too)."""
    files = {module_path(src, f): f for f in sorted(src.rglob("*.rs"))}
    moved = reexports(files)
    edges: dict[tuple[str, ...], set[tuple[str, ...]]] = {m: set() for m in files}
    for mod, file in files.items():
        for p in paths(code_of(file.read_text(encoding="utf-8"))):
            if p[0] == "crate":
                target = p[1:]
            else:
                base, i = list(mod), 0
                while i < len(p) and p[i] in ("super", "self"):
                    base = base[:-1] if p[i] == "super" else base
                    i += 1
                target = base + p[i:]
            found = next((tuple(target[:k]) for k in range(len(target), 0, -1) if tuple(target[:k]) in files), None)
            if found is not None and len(target) > len(found) and (*found, target[len(found)]) in moved:
                found = moved[(*found, target[len(found)])]
            if found and found != mod and len(found) == len(mod) and found[:-1] == mod[:-1]:
                edges[mod].add(found)
    return edges


def cycles(edges: dict[tuple[str, ...], set[tuple[str, ...]]]) -> list[frozenset[str]]:
    """The strongly connected groups of more than one module."""
    def reach(a):
        seen, todo = set(), [a]
        while todo:
            for b in edges.get(todo.pop(), ()):
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        return seen

    reached = {a: reach(a) for a in edges}
    out = []
    for a in edges:
        group = frozenset("::".join(b) for b in reached[a] if a in reached[b]) | {"::".join(a)}
        if len(group) > 1 and group not in out:
            out.append(group)
    return out


@pytest.mark.parametrize("src", CRATES, ids=lambda p: p.parent.name)
def test_no_cycle_between_sibling_modules(src):
    if not src.is_dir():
        pytest.skip("no Rust sources beside this installation (run from a checkout)")
    found = [c for c in cycles(sibling_edges(src)) if (src.parent.name, c) not in KNOWN]
    assert found == [], ("sibling modules that use each other (move what they share into one of them or into "
                         f"their parent): {found}")


def test_the_check_finds_cycles(tmp_path):
    src = tmp_path / "src"
    (src / "a").mkdir(parents=True)
    files = {
        "lib.rs": "mod a;\nmod top;\nmod other;\n",
        "top.rs": "use crate::other::X;\n",
        "other.rs": "// uses crate::top in a comment only\npub struct X;\nfn f() { let s = \"crate::top::Y\"; }\n",
        "a/mod.rs": "mod one;\nmod two;\nmod three;\nmod four;\npub use self::one::P;\n",
        "a/one.rs": "use super::{two::Q, four};\npub struct P;\n",
        "a/two.rs": "#[cfg(test)]\nmod tests;\npub struct Q;\nfn g() { super::three::h(); }\n",
        "a/three.rs": "pub fn h() {}\nfn k() { let _ = super::one::P; }\n",
        "a/four.rs": ("use super::P;\n#[cfg(test)]\nmod tests {\n    use super::super::two::Q;\n"
                      "    fn c() -> char { '}' }\n    mod inner {}\n}\nfn after() { super::three::h(); }\n"),
    }
    for name, text in files.items():
        (src / name).write_text(text)
    edges = sibling_edges(src)
    assert edges[("top",)] == {("other",)} and edges[("other",)] == set()  # comments and strings do not count
    assert edges[("a", "one")] == {("a", "two"), ("a", "four")}
    # through the parent's re-export; the test module does not count, the code after it does
    assert edges[("a", "four")] == {("a", "one"), ("a", "three")}
    assert edges[("a", "two")] == {("a", "three")}  # a test module's declaration does not end the file
    # a circle of three, and one through the re-export
    assert sorted(map(sorted, cycles(edges))) == [["a::four", "a::one", "a::three", "a::two"]]
