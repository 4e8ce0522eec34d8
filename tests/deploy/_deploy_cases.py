"""Rankers to deploy: a synthetic problem that always runs (values repeated, so that
documents sit exactly on split values; zeros; a feature with thresholds near 0), and
MQ2008 Fold1 with a 12-feature greedy RankRLS selection and 100-tree rankers (skipped
without the data). XGBoost and CatBoost tests skip without the library."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import rankselect as rs
from conftest import shared_path


def groups(qid: np.ndarray) -> np.ndarray:
    """Sizes of the runs of equal qid (LightGBM's ``group``)."""
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    return np.diff(np.r_[starts, len(qid)])


@dataclass
class Case:
    """A selection, the test rows of its columns (selection order), and the fitted rankers."""

    name: str
    selection: Any
    columns: list[int]
    X_test: np.ndarray
    qid_test: np.ndarray
    models: dict[str, Any]


def _fit(library: str, X, y, qid, n_trees: int, **extra):
    if library == "lightgbm":
        lgb = pytest.importorskip("lightgbm")
        return lgb.LGBMRanker(n_estimators=n_trees, verbose=-1, random_state=0, **extra).fit(X, y, group=groups(qid))
    if library == "catboost":
        cb = pytest.importorskip("catboost")
        return cb.CatBoostRanker(iterations=n_trees, random_seed=0, verbose=0, thread_count=1,
                                 allow_writing_files=False, **extra).fit(X, y, group_id=qid)
    xgb = pytest.importorskip("xgboost")
    return xgb.XGBRanker(n_estimators=n_trees, tree_method="hist", random_state=0, n_jobs=1,
                         **extra).fit(X, y, qid=qid)


def synthetic_data(seed: int = 0):
    """Queries of 20 documents over 10 features, values on a grid (many ties), zeros, one
    feature of tiny values (thresholds within 1e-6 of zero), one negative."""
    rng = np.random.default_rng(seed)
    n_q, per = 60, 20
    qid = np.repeat(np.arange(n_q), per)
    X = np.round(rng.random((n_q * per, 10)), 2)
    X[rng.random(X.shape) < 0.25] = 0.0
    X[:, 3] *= 1e-6
    X[:, 5] -= 0.5
    y = np.clip(np.round(2 * X[:, 0] + X[:, 3] * 1e6 - X[:, 5] + rng.normal(0, 0.3, len(qid))), 0, 3).astype(int)
    return X, y, qid


class _Lazy:
    """library -> ranker, fitted when first asked for (a test of one library does not fit the other)."""

    def __init__(self, fit):
        self._fit, self._done = fit, {}

    def __getitem__(self, library):
        if library not in self._done:
            self._done[library] = self._fit(library)
        return self._done[library]


@pytest.fixture(scope="session")
def synthetic() -> Case:
    X, y, qid = synthetic_data()
    train = qid < 40
    sel = rs.GreedyRankRLS(n_features_to_select=6).fit(X[train], y[train], qid=qid[train])
    cols = [int(j) for j in sel.selected_features_]
    models = _Lazy(lambda lib: _fit(lib, X[train][:, cols], y[train], qid[train], 30, min_child_weight=1e-3)
                   if lib == "xgboost" else _fit(lib, X[train][:, cols], y[train], qid[train], 30,
                                                 min_child_samples=3))
    return Case("synthetic", sel, cols, X[~train][:, cols], qid[~train], models)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def mq2008_fold1() -> Case:
    fold = shared_path("MQ2008", "Fold1")
    tr = rs.load_letor(fold / "train.txt")
    te = rs.load_letor(fold / "test.txt", n_features=tr.X.shape[1])
    sel = rs.GreedyRankRLS(n_features_to_select=12).fit(tr.X, tr.y, qid=tr.qid)
    cols = [int(j) for j in sel.selected_features_]
    models = _Lazy(lambda lib: _fit(lib, tr.X[:, cols], tr.y, tr.qid, 100))
    return Case("MQ2008", sel, cols, te.X[:, cols], te.qid, models)  # type: ignore[arg-type]


def nan_data(seed: int = 3):
    """The synthetic problem with 10 % of the values missing (NaN), the label depending on
    which are missing (so that splits separate NaN: LightGBM writes ``threshold=inf``), and
    zeros and negative values left in."""
    X, y, qid = synthetic_data(seed)
    rng = np.random.default_rng(seed + 100)
    X[rng.random(X.shape) < 0.10] = np.nan
    y = np.clip(y + np.isnan(X[:, 0]) - np.isnan(X[:, 5]), 0, 3).astype(int)
    return X, y, qid


@pytest.fixture(scope="session")
def nan_trained() -> Case:
    """LightGBM rankers trained with 10 % NaN: missing type NaN (``"lightgbm"``) and
    ``zero_as_missing=True`` (``"lightgbm_zero"``), on 6 columns in a chosen order."""
    X, y, qid = nan_data()
    train = qid < 40
    cols = [5, 0, 3, 1, 8, 2]

    def fit(kind: str):
        extra = {"zero_as_missing": True} if kind == "lightgbm_zero" else {}
        return _fit("lightgbm", X[train][:, cols], y[train], qid[train], 40, min_child_samples=3, **extra)

    return Case("nan_trained", cols, cols, X[~train][:, cols], qid[~train], _Lazy(fit))  # type: ignore[arg-type]
