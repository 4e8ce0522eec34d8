"""One public path per name.

The public face is the folders (``rankselect.analysis.costs``, ``rankselect.data.datasets``,
``rankselect.models.pairwise``, ``rankselect.protocol``, ...) and the names of
``rankselect.__all__``. The old module paths of ``rankselect._aliases.MOVED`` import for one
release with a DeprecationWarning (tests/test_compat.py checks each of them); here: the move
table is lazy (``import rankselect`` imports neither the protocol nor the CLI), ``dir`` shows
the public face only, and no page, docstring, benchmark or test teaches an old path.
"""
from __future__ import annotations

import importlib
import json
import pickle
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import rankselect as rs
from rankselect import _aliases

ROOT = Path(__file__).resolve().parents[1]

#: one fresh interpreter for what only a fresh one shows: run in order, each step prints a line
FRESH = r"""
import json, pickle, sys, warnings
warnings.simplefilter("error")
import rankselect
print(json.dumps(sorted(m for m in sys.modules if m.startswith("rankselect"))))
warnings.simplefilter("always")
modules = sys.modules
print(rankselect.protocol is modules["rankselect.protocol"] and rankselect.cli.main is modules["rankselect.cli"].main)
from rankselect.kendall import kendall_similarity
import rankselect.costs
print(json.dumps(sorted(set(dir(rankselect)) - set(rankselect.__all__))))
e = pickle.loads(sys.stdin.buffer.read())
print(type(e).__module__, e.n_features_to_select)
"""


@pytest.fixture(scope="module")
def fresh() -> subprocess.CompletedProcess:
    """FRESH's output; stdin: a GAS pickled under its flat-layout path ``rankselect.gas``."""
    data = pickle.dumps(rs.GAS(3), protocol=2).replace(b"crankselect.selection.gas\n", b"crankselect.gas\n")
    assert b"crankselect.gas\n" in data
    out = subprocess.run([sys.executable, "-c", FRESH], input=data, capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr.decode()
    return out


def test_import_rankselect_imports_neither_the_protocol_nor_the_cli_and_warns_nothing(fresh):
    loaded = json.loads(fresh.stdout.decode().splitlines()[0])  # and no warning (an error then)
    assert "rankselect" in loaded and "rankselect.selection" in loaded
    assert "rankselect.protocol" not in loaded and "rankselect.cli" not in loaded, loaded


def test_lazy_subpackages_load_on_first_use(fresh):
    assert fresh.stdout.decode().splitlines()[1] == "True"


def test_old_path_import_warns_at_the_importing_line(fresh):
    err = fresh.stderr.decode()
    assert "<string>:9: DeprecationWarning: rankselect.kendall is deprecated and will be removed in 0.3.0; " \
           "use rankselect.selection.similarity instead" in err


def test_dir_in_a_fresh_interpreter_after_old_imports(fresh):
    extra = json.loads(fresh.stdout.decode().splitlines()[2])
    assert "costs" not in extra and not any(n.startswith("_") and not n.startswith("__") for n in extra), extra


def test_unpickling_an_old_path_in_a_fresh_interpreter(fresh):
    assert fresh.stdout.decode().splitlines()[3].split() == ["rankselect.selection.gas", "3"]
    assert "rankselect.gas is deprecated" in fresh.stderr.decode()


def test_dir_shows_all_the_subpackages_and_dunder_names_only():
    names = dir(rs)
    subpackages = {"analysis", "cli", "dask", "data", "deploy", "metrics", "models", "plotting", "protocol", "report",
                   "selection", "methods", "exceptions"}
    assert subpackages <= set(names)
    extra = [n for n in names if n not in rs.__all__ and n not in subpackages
             and not (n.startswith("__") and n.endswith("__"))]
    assert extra == []
    assert not {"costs", "inspection", "stats", "export", "datasets", "pairwise", "gas"} & set(names)
    assert not any(n.startswith("_") and not n.startswith("__") for n in names)
    for name in rs.__all__:  # every name of __all__ is there
        assert getattr(rs, name) is not None


def test_flat_aliases_left_all():
    assert not {"datasets", "inspection", "stats", "costs", "pairwise"} & set(rs.__all__)
    assert "metrics" in rs.__all__  # a real subpackage


def test_unknown_attribute_raises():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        rs.nope  # noqa: B018


def test_old_attribute_warns_and_names_the_new_path():
    vars(rs).pop("costs", None)
    with pytest.warns(DeprecationWarning, match=r"rankselect\.costs is deprecated and will be removed in 0\.3\.0; "
                                                r"use rankselect\.analysis\.costs instead"):
        module = rs.costs
    assert module is importlib.import_module("rankselect.analysis.costs")


def test_old_path_keeps_the_new_module_spec():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import rankselect.export as old
    assert old.__spec__.name == "rankselect.deploy.formats" == old.__name__


def test_every_entry_names_modules_of_the_package():
    """Each old path has no source file of its own (the table would hide it) and names the last
    home of its names: modules of the package, none of them an old path itself."""
    package = Path(rs.__file__).resolve().parent
    for old, new in _aliases.MOVED.items():
        assert new and all(isinstance(n, str) for n in new), old
        base = package.joinpath(*old.split("."))
        assert not base.with_suffix(".py").exists() and not (base / "__init__.py").exists(), old
        assert not set(new) & set(_aliases.MOVED), (old, new)
        for name in _aliases.new_paths(old):
            importlib.import_module(name)


@pytest.mark.parametrize("old", [o for o in _aliases.MOVED if "." in o or o == "wrapper"])
def test_moved_selector_modules_warn_and_import(old):
    (new,) = _aliases.new_paths(old)
    sys.modules.pop(f"rankselect.{old}", None)
    with pytest.warns(DeprecationWarning, match=rf"rankselect\.{re.escape(old)} is deprecated .*0\.3\.0; "
                                                rf"use {re.escape(new)} instead"):
        module = importlib.import_module(f"rankselect.{old}")
    assert module is importlib.import_module(new)


# ------------------------------------------------------------- no page teaches an old path

#: files that name the old paths on purpose: the table, and the tests of the deprecation
ALLOWED = {"python/rankselect/_aliases.py", "tests/test_compat.py", "tests/test_public_paths.py"}



def _old_path_pattern() -> re.Pattern:
    old = sorted(_aliases.MOVED, key=len, reverse=True)
    top = sorted((o for o in old if "." not in o), key=len, reverse=True)
    dotted = "|".join(re.escape(o) for o in old)
    top_names = "|".join(top)
    return re.compile(rf"\brankselect\.(?:{dotted})\b(?!\.py)|\brs\.(?:{top_names})\b"
                      rf"|\bfrom rankselect import [^#]*\b(?:{top_names})\b")


def _sources() -> list[Path]:
    files = [ROOT / "README.md"]
    for pattern in ("docs/**/*.rst", "docs/**/*.md", "docs/**/*.py", "python/**/*.py", "benches/**/*.py",
                    "tests/**/*.py"):
        files += [p for p in ROOT.glob(pattern) if not any(part in {"_build", "auto_examples", "generated"}
                                                          for part in p.relative_to(ROOT).parts)]
    return sorted(set(files))


def _uses(paths: list[Path]) -> list[str]:
    pattern = _old_path_pattern()
    out = []
    for path in paths:
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line):
                out.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    return out


def _checked() -> list[Path]:
    if not (ROOT / "README.md").is_file() or not (ROOT / "python").is_dir():
        pytest.skip("run from a checkout (README.md, docs/ and python/ beside tests/)")
    out = []
    for p in _sources():
        rel = p.relative_to(ROOT).as_posix()
        if rel not in ALLOWED:
            out.append(p)
    return out


def test_no_page_docstring_or_test_uses_an_old_path():
    assert _uses(_checked()) == []


def test_the_check_finds_old_paths(tmp_path):
    page = tmp_path / "page.rst"
    page.write_text("import rankselect.costs\nrs.datasets.load_example()\nfrom rankselect.gas import GAS\n"
                    "rankselect.analysis.costs\nrs.data.datasets\nrankselect.models.pairwise\nrankselect.costs.py\n"
                    "from rankselect import metrics, stats\nfrom rankselect import GAS, metrics\n")
    pattern = _old_path_pattern()
    hits = [line for line in page.read_text().splitlines() if pattern.search(line)]
    assert hits == ["import rankselect.costs", "rs.datasets.load_example()", "from rankselect.gas import GAS",
                    "from rankselect import metrics, stats"]
