"""Every public name has an API page: the autosummary lists of docs/api/*.rst against the
``__all__`` of the public modules (read from the sources, no build needed)."""
from __future__ import annotations

import importlib
import pkgutil
import types

import pytest

import rankselect
from _docs_source import API_MODULES, automodules, autosummary_entries, public_names, resolve

ENTRIES = autosummary_entries()
DOCUMENTED = {name for names in ENTRIES.values() for name in names}


def test_every_api_module_has_a_page():
    assert set(API_MODULES) - {"rankselect"} <= automodules()
    assert "rankselect" in automodules()


def test_every_public_subpackage_and_top_level_module_is_an_api_module():
    """A new public folder (``rankselect/<name>/``) or top-level module needs its API page:
    it is one of API_MODULES, or the same module object as one of them. Modules inside a
    folder are its implementation: their public names are documented through the folder's
    ``__all__``; the command line's subcommand modules through the CLI reference."""
    api_objects = {id(importlib.import_module(m)) for m in API_MODULES}
    missing = []
    for info in pkgutil.walk_packages(rankselect.__path__, "rankselect."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts) or not (info.ispkg or len(parts) == 2):
            continue
        if id(importlib.import_module(info.name)) not in api_objects:
            missing.append(info.name)
    assert not missing, f"public modules without an API page (add them to API_MODULES and docs/api): {missing}"


def test_every_module_in_a_public_all_has_a_page():
    pages = automodules()
    for modname, name, obj in public_names():
        if isinstance(obj, types.ModuleType):
            assert f"{modname}.{name}" in pages or f"rankselect.{name}" in pages, f"{modname}.{name}"


@pytest.mark.parametrize("modname", API_MODULES)
def test_every_public_name_is_documented(modname):
    missing = []
    for mod, name, obj in public_names():
        if mod != modname or isinstance(obj, types.ModuleType):
            continue
        top = f"rankselect.{name}"
        if f"{mod}.{name}" in DOCUMENTED:
            continue
        if top in DOCUMENTED and getattr(rankselect, name, None) is obj:
            continue  # re-exported: documented once, at the top level
        missing.append(f"{mod}.{name}")
    assert not missing, f"not in any autosummary list of docs/api: {missing}"


def test_every_documented_name_resolves():
    for name in sorted(DOCUMENTED):
        resolve(name)  # raises for a name that is gone


def test_a_new_public_name_would_be_caught(monkeypatch):
    """The check can fail: a name added to an __all__ without a page is reported."""
    monkeypatch.setattr(rankselect.metrics, "__all__", [*rankselect.metrics.__all__, "brand_new"], raising=True)
    monkeypatch.setattr(rankselect.metrics, "brand_new", lambda: None, raising=False)
    with pytest.raises(AssertionError, match="brand_new"):
        test_every_public_name_is_documented("rankselect.metrics")
