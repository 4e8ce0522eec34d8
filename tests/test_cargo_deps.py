"""No unused Rust dependency: every dependency a crate declares (normal, dev, build, per
target) is used in that crate's sources, and every ``[workspace.dependencies]`` entry by a
member crate. Read from the manifests and the ``.rs`` files (no tool to compile in CI, unlike
cargo-machete or cargo-udeps); a use is ``use name``, ``name::`` or ``extern crate name``,
with the crate's ``-`` written ``_``."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9 / 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]

DEPENDENCY_TABLES = ("dependencies", "dev-dependencies", "build-dependencies")


def declared(manifest: dict) -> dict[str, str]:
    """Dependency name (as the code spells it) -> the table that declares it."""
    tables = [(t, manifest.get(t, {})) for t in DEPENDENCY_TABLES]
    for target, spec in manifest.get("target", {}).items():
        tables += [(f"target.{target}.{t}", spec.get(t, {})) for t in DEPENDENCY_TABLES]
    return {name.replace("-", "_"): table for table, deps in tables for name in deps}


def _sources(crate: Path) -> str:
    files = [p for p in crate.rglob("*.rs") if "target" not in p.relative_to(crate).parts]
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(files))


def unused(crate: Path) -> list[str]:
    """The dependencies that ``crate``'s Cargo.toml declares and its sources never use."""
    manifest = tomllib.loads((crate / "Cargo.toml").read_text(encoding="utf-8"))
    text = _sources(crate)
    out = []
    for name, table in sorted(declared(manifest).items()):
        n = re.escape(name)
        if not re.search(rf"\buse\s+{n}\b|(?<![\w:]){n}::|\bextern\s+crate\s+{n}\b", text):
            out.append(f"{crate.name}: [{table}] {name}")
    return out


def unused_in_workspace(root: Path) -> list[str]:
    """``[workspace.dependencies]`` entries that no member crate takes."""
    workspace = tomllib.loads((root / "Cargo.toml").read_text(encoding="utf-8"))["workspace"]
    taken: set[str] = set()
    for member in workspace.get("members", []):
        manifest = tomllib.loads((root / member / "Cargo.toml").read_text(encoding="utf-8"))
        tables = [manifest.get(t, {}) for t in DEPENDENCY_TABLES]
        tables += [spec.get(t, {}) for spec in manifest.get("target", {}).values() for t in DEPENDENCY_TABLES]
        taken |= {name for deps in tables for name, spec in deps.items()
                  if isinstance(spec, dict) and spec.get("workspace")}
    return sorted(set(workspace.get("dependencies", {})) - taken)


def _crates(root: Path) -> list[Path]:
    return sorted(p.parent for p in (root / "rust").glob("*/Cargo.toml"))


def test_every_crate_uses_its_dependencies():
    crates = _crates(ROOT)
    if not crates:
        pytest.skip("no Rust sources beside this installation (run from a checkout)")
    assert {c.name for c in crates} >= {"core", "py"}
    assert [u for c in crates for u in unused(c)] == []


def test_every_workspace_dependency_is_taken():
    if not (ROOT / "Cargo.toml").is_file():
        pytest.skip("no Cargo workspace beside this installation (run from a checkout)")
    assert unused_in_workspace(ROOT) == []


def test_the_checks_find_unused_dependencies(tmp_path):
    (tmp_path / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["rust/a"]\n[workspace.dependencies]\nrayon = "1"\nrand = "0.9"\n')
    crate = tmp_path / "rust" / "a"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "a"\n[dependencies]\nrayon.workspace = true\nfast-float2 = "0.2"\nmemchr = "2"\n'
        'my-core = { path = "../core" }\n[dev-dependencies]\nproptest = "1"\n'
        '[target.\'cfg(unix)\'.dependencies]\nlibc = "0.2"\n')
    (crate / "src" / "lib.rs").write_text(
        "use rayon::prelude::*;\nfn f() { let _ = fast_float2::parse::<f64, _>(\"1\"); }\n"
        "use my_core::{x, y};\n// memchr is mentioned, never used; not_libc::call()\n")
    assert unused_in_workspace(tmp_path) == ["rand"]
    assert sorted(unused(crate)) == ["a: [dependencies] memchr", "a: [dev-dependencies] proptest",
                                     "a: [target.cfg(unix).dependencies] libc"]
