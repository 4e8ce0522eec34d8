"""The model to deploy, tied to the subset: a tree ensemble whose features are the set's
positions, or a linear model's weights in selection order.

The model must have been trained on exactly the selected columns: under the set's names
(in any order), or under a library's positional default names (LightGBM ``Column_<i>``,
XGBoost ``f<i>`` or none), the i-th being the i-th selected feature. A linear model may
also be as wide as the data when it weighs no column outside the selection (a selector's
``coef_``, a step of ``GreedyRankRLS.coef_path_``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from .names import stored_names
from .subset import Subset
from .trees import Forest, forest_of

__all__: list[str] = []  # used by export_engine, inside rankselect.deploy


@dataclass
class TreeRanker:
    """A :class:`~rankselect.deploy.trees.Forest` and ``position[f]``: the set position of
    the model's feature ``f``."""

    forest: Forest
    position: np.ndarray

    @property
    def library(self) -> str:
        return self.forest.library


@dataclass
class LinearRanker:
    """Score ``sum_i weights[i] * x[i]`` over the set's features in selection order."""

    weights: np.ndarray


Ranker = Union[TreeRanker, LinearRanker]


def _positional(library: str, names: list[str]) -> bool:
    pattern = "Column_{}" if library == "lightgbm" else "f{}"
    return all(s == pattern.format(i) for i, s in enumerate(names))


def _differ(model_names, set_names) -> str:
    only_model = [s for s in model_names if s not in set(set_names)]
    only_set = [s for s in set_names if s not in set(model_names)]
    return f"only in the model: {only_model or 'none'}; only in the selection: {only_set or 'none'}"


def _tree_ranker(forest: Forest, subset: Subset) -> TreeRanker:
    names, k = forest.names, len(subset.columns)
    if len(names) != k:
        raise ValueError(f"the {forest.library} model was trained on {len(names)} features, the selection has {k}: "
                         "train it on X[:, columns], the selected columns in selection order"
                         + (f" ({_differ(names, subset.names)})" if not _positional(forest.library, names) else ""))
    if _positional(forest.library, names):
        return TreeRanker(forest, np.arange(k))
    where = {s: i for i, s in enumerate(subset.names)}
    if set(names) != set(where):
        # LightGBM stores "LMIR.JM (url)" as "LMIR.JM_(url)" (names.stored_names): the names
        # it stored in selection order, or, if they tell the features apart, in any order
        stored = stored_names(forest.library, subset.names)
        if names == stored:
            return TreeRanker(forest, np.arange(k))
        if len(set(stored)) == k and set(names) == set(stored):
            where = {s: i for i, s in enumerate(stored)}
    if set(names) != set(where):
        raise ValueError(f"the {forest.library} model's features are not the selection's: "
                         f"{_differ(names, subset.names)}")
    return TreeRanker(forest, np.array([where[s] for s in names]))


def _linear_ranker(model, subset: Subset) -> LinearRanker:
    names_in = None
    if isinstance(model, (list, tuple, np.ndarray)):
        coef = np.asarray(model, dtype=np.float64)
    else:
        if getattr(model, "kernel", None) is not None:
            raise TypeError(f"the {type(model).__name__} uses a kernel map: it is not linear in the features")
        coef = np.asarray(model.coef_, dtype=np.float64)
        intercept = np.ravel(getattr(model, "intercept_", 0.0))
        if intercept.size and np.any(intercept != 0):
            raise ValueError(f"the model has an intercept ({float(intercept[0])!r}): the engines' linear models have "
                             "none; the ranking is the same without it: pass model.coef_")
        found = getattr(model, "feature_names_in_", None)
        names_in = None if found is None else [str(s) for s in found]
    if coef.ndim == 2 and coef.shape[0] == 1:
        coef = coef[0]
    if coef.ndim != 1:
        raise ValueError(f"a linear model's coefficients must be 1-D, got shape {coef.shape}")
    if not np.all(np.isfinite(coef)):
        raise ValueError("the linear model has non-finite weights")
    k, n, cols = len(subset.columns), subset.n_features, list(subset.columns)
    if coef.shape[0] == k and (k != n or names_in is not None and len(names_in) == k):
        if names_in is not None:
            if set(names_in) != set(subset.names):
                raise ValueError("the linear model's features are not the selection's: "
                                 f"{_differ(names_in, subset.names)}")
            where = {s: i for i, s in enumerate(names_in)}
            return LinearRanker(coef[[where[s] for s in subset.names]])
        return LinearRanker(coef.copy())
    if coef.shape[0] == n:
        if names_in is not None and names_in != list(subset.all_names):
            raise ValueError("the linear model's features are not the data's: "
                             f"{_differ(names_in, subset.all_names)}")
        outside = [j for j in np.flatnonzero(coef) if j not in set(cols)]
        if outside:
            shown = ", ".join(subset.all_names[int(j)] for j in outside[:10]) + (" ..." if len(outside) > 10 else "")
            raise ValueError(f"the linear model weighs {len(outside)} feature(s) outside the selection: {shown}")
        return LinearRanker(coef[cols])
    raise ValueError(f"the linear model has {coef.shape[0]} weights: expected {k} (the selection) or {n} (the data)")


def ranker_of(model, subset: Subset) -> Optional[Ranker]:
    """The model tied to the subset (None for no model); see the module docstring."""
    if model is None:
        return None
    if isinstance(model, (list, tuple, np.ndarray)) or (hasattr(model, "coef_") and not hasattr(model, "booster_")
                                                        and not hasattr(model, "get_booster")):
        return _linear_ranker(model, subset)
    return _tree_ranker(forest_of(model), subset)
