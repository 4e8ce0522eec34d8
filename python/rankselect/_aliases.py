"""The module paths of the flat layout, kept importable.

Until the subpackage layout, every module of the package sat at its top: estimators
pickled then name their class by that path (``rankselect.gas.GAS``,
``rankselect.rankrls.GreedyRankRLS``) and scripts import from it (``from rankselect.kendall
import kendall_similarity``). :data:`MOVED` is the one table of those paths: each old
module name maps to the module(s) that now hold its names. :func:`register_moved_modules`
(called by ``rankselect/__init__``) makes every old path importable: ``import
rankselect.gas``, ``from rankselect.gas import GAS`` and unpickling find the new module. A
module split in two (``rankrls``: RankRLS in :mod:`rankselect.models`, GreedyRankRLS in
:mod:`rankselect.selection`) is a read-only view holding the public names of both.

``rankselect.data``, ``rankselect.metrics``, ``rankselect.plotting``, ``rankselect.dask`` and
``rankselect.cli`` became packages of the same name that re-export what the modules had.
"""
from __future__ import annotations

import sys
from types import ModuleType

from . import protocol
from .analysis import costs, export, inspection, stats
from .data import datasets, grouping, uninformative
from .models import kernel_approximation, pairwise, rankrls, ranksvm
from .selection import fsmrank, gas, greedy_rankrls, importance, similarity, sparse_ranksvm, stability

__all__ = ["MOVED", "register_moved_modules"]

#: old module name (``rankselect.<name>``) -> the module(s) holding its names now
MOVED: dict[str, tuple[ModuleType, ...]] = {
    "groups": (grouping,),
    "uninformative": (uninformative,),
    "datasets": (datasets,),
    "pairwise": (pairwise,),
    "rankrls": (rankrls, greedy_rankrls),
    "ranksvm": (ranksvm,),
    "sparse": (sparse_ranksvm,),
    "kernel_approximation": (kernel_approximation,),
    "gas": (gas,),
    "fsmrank": (fsmrank,),
    "stability": (stability,),
    "importance": (importance,),
    "kendall": (similarity,),
    "costs": (costs,),
    "inspection": (inspection,),
    "stats": (stats,),
    "export": (export,),
    "experiment": (protocol,),
}

_PACKAGE = __name__.rpartition(".")[0]


def _view(name: str, modules: tuple[ModuleType, ...]) -> ModuleType:
    """A module named ``name`` holding the public names (``__all__``) of ``modules``."""
    view = ModuleType(name, f"Moved: the names of {', '.join(m.__name__ for m in modules)}.")
    names = [n for m in modules for n in m.__all__]
    for m in modules:
        for n in m.__all__:
            setattr(view, n, getattr(m, n))
    view.__all__ = names  # type: ignore[attr-defined]
    return view


def register_moved_modules() -> dict[str, ModuleType]:
    """Register every old path of :data:`MOVED` in ``sys.modules``; returns ``{old name:
    module}`` for the package's namespace (``rankselect.gas`` as an attribute)."""
    out = {}
    for old, modules in MOVED.items():
        module = modules[0] if len(modules) == 1 else _view(f"{_PACKAGE}.{old}", modules)
        sys.modules[f"{_PACKAGE}.{old}"] = module
        out[old] = module
    return out
