"""The module paths that moved, kept importable for one release (removed in
:data:`rankselect.exceptions.REMOVED_IN`).

Until the subpackage layout, every module of the package sat at its top: estimators
pickled then name their class by that path (``rankselect.gas.GAS``,
``rankselect.rankrls.GreedyRankRLS``) and scripts import from it (``from rankselect.kendall
import kendall_similarity``). Later, selectors moved into :mod:`rankselect.selection` and the
redundancy report into :mod:`rankselect.analysis`, and the hand-off formats of a selection
(``analysis.export``) into :mod:`rankselect.deploy` (``deploy.formats``). :data:`MOVED` is the one table of those
paths: each old module name maps to the module(s) that hold its names now (their last home).

The table is resolved lazily, by module name: :class:`MovedModuleFinder` (on
``sys.meta_path``, installed by ``rankselect/__init__``) answers ``import rankselect.gas``,
``from rankselect.gas import GAS`` and unpickling with the new module, and
``rankselect.__getattr__`` answers the attribute ``rankselect.gas`` through :func:`load`;
both emit a :class:`DeprecationWarning` naming the new path. Nothing of the table is
imported before an old path is used, so ``import rankselect`` imports neither the protocol
nor the CLI. A module split in two (``rankrls``: RankRLS in :mod:`rankselect.models`,
GreedyRankRLS in :mod:`rankselect.selection`) is a read-only view holding the public names
of both. (``tests/test_public_paths.py`` checks that no old path has a source file of its own
and that every new one imports.)

A *name* that moved between two packages (``rankselect.models.SparseRankSVM``) is answered by
the old package's module ``__getattr__`` with ``rankselect.exceptions._moved_name``.

``rankselect.data``, ``rankselect.metrics``, ``rankselect.plotting``, ``rankselect.dask`` and
``rankselect.cli`` became packages of the same name that re-export what the modules had.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import Optional

from .exceptions import REMOVED_IN

__all__ = ["LAZY_SUBPACKAGES", "MOVED", "MovedModuleFinder", "import_submodule", "install", "load", "new_paths"]

#: old module name (below ``rankselect``) -> the module(s) below ``rankselect`` holding its names now
MOVED: dict[str, tuple[str, ...]] = {
    # the flat layout (every module at the top of the package)
    "groups": ("data.grouping",),
    "uninformative": ("data.uninformative",),
    "datasets": ("data.datasets",),
    "pairwise": ("models.pairwise",),
    "rankrls": ("models.rankrls", "selection.greedy_rankrls"),
    "ranksvm": ("models.ranksvm",),
    "sparse": ("selection.sparse_ranksvm",),
    "kernel_approximation": ("models.kernel_approximation",),
    "gas": ("selection.gas",),
    "fsmrank": ("selection.fsmrank",),
    "stability": ("selection.stability",),
    "importance": ("selection.importance",),
    "kendall": ("selection.similarity",),
    "costs": ("analysis.costs",),
    "inspection": ("analysis.inspection",),
    "stats": ("analysis.stats",),
    "export": ("deploy.formats",),
    "experiment": ("protocol",),
    # every selector in one folder; the redundancy report with the analyses
    "wrapper": ("selection.wrapper",),
    "wrapper.adapters": ("selection.wrapper.adapters",),
    "wrapper.base": ("selection.wrapper.base",),
    "wrapper.elimination": ("selection.wrapper.elimination",),
    "wrapper.forward": ("selection.wrapper.forward",),
    "wrapper.path": ("selection.wrapper.path",),
    "wrapper.rankers": ("selection.wrapper.rankers",),
    "models.sparse_ranksvm": ("selection.sparse_ranksvm",),
    "selection.redundancy": ("analysis.redundancy",),
    # the hand-off formats with the engines' files: one package for a selection's deployment
    "analysis.export": ("deploy.formats",),
}

#: subpackages that ``import rankselect`` does not import: the attribute imports them on first use
LAZY_SUBPACKAGES = ("protocol", "plotting", "dask", "cli", "report")

_PACKAGE = __name__.rpartition(".")[0]


def new_paths(old: str) -> list[str]:
    """The full module names that hold the names of ``rankselect.<old>`` now."""
    return [f"{_PACKAGE}.{new}" for new in MOVED[old]]


def _message(old: str) -> str:
    new = " and ".join(new_paths(old))
    return (f"{_PACKAGE}.{old} is deprecated and will be removed in {REMOVED_IN}; "
            f"use {new} instead")


def _view(name: str, modules: list[ModuleType]) -> ModuleType:
    """A module named ``name`` holding the public names (``__all__``) of ``modules``."""
    view = ModuleType(name, f"Moved: the names of {', '.join(m.__name__ for m in modules)}.")
    names = [n for m in modules for n in m.__all__]
    for m in modules:
        for n in m.__all__:
            setattr(view, n, getattr(m, n))
    view.__all__ = names  # type: ignore[attr-defined]
    return view


def _resolve(old: str) -> ModuleType:
    modules = [importlib.import_module(name) for name in new_paths(old)]
    return modules[0] if len(modules) == 1 else _view(f"{_PACKAGE}.{old}", modules)


def import_submodule(name: str) -> ModuleType:
    """``rankselect.<name>``, imported now (a lazy subpackage's attribute)."""
    return importlib.import_module(f"{_PACKAGE}.{name}")


def load(old: str, stacklevel: int = 2) -> ModuleType:
    """The module that answers ``rankselect.<old>`` (registered in ``sys.modules`` under the
    old name), with a :class:`DeprecationWarning` that names the new path."""
    warnings.warn(_message(old), DeprecationWarning, stacklevel=stacklevel + 1)
    full = f"{_PACKAGE}.{old}"
    module = sys.modules.get(full)
    if module is None:
        module = sys.modules[full] = _resolve(old)
    return module


class _MovedModuleLoader(importlib.abc.Loader):
    def __init__(self, old: str) -> None:
        self.old = old
        self.spec: Optional[importlib.machinery.ModuleSpec] = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        # stacklevel 2 reaches the importing code: the import system's own frames are skipped
        warnings.warn(_message(self.old), DeprecationWarning, stacklevel=2)
        module = _resolve(self.old)
        self.spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The module is the new one, executed when it was imported; only its own
        ``__spec__`` (which the import system replaced by the old path's) is put back."""
        if self.spec is not None:
            module.__spec__ = self.spec


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds every old path of :data:`MOVED` (others: ``None``)."""

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> Optional[importlib.machinery.ModuleSpec]:
        prefix = _PACKAGE + "."
        if not fullname.startswith(prefix):
            return None
        old = fullname[len(prefix):]
        if old not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, _MovedModuleLoader(old))


def install() -> None:
    """Put one :class:`MovedModuleFinder` first on ``sys.meta_path`` (before the path finder,
    which would otherwise find a moved package's submodules under a second name)."""
    if not any(type(f).__name__ == "MovedModuleFinder" and getattr(f, "__module__", "") == __name__
               for f in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
