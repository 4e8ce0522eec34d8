"""Internal adapters: fit any ranker on query-grouped rows, with early stopping on
validation queries where the ranker supports it, and read its own feature importance.

The selectors of :mod:`rankselect.selection.wrapper` hand every ranker the same thing: rows grouped
contiguously by query (sorted once, stably, by the selector), the query ids and the query
sizes, and optionally the validation queries. Each library takes the query structure under
its own name:

- LightGBM ``LGBMRanker``: ``group=`` sizes; early stopping with ``eval_set`` /
  ``eval_group`` and ``lightgbm.early_stopping``; importance by gain (``booster_``);
- XGBoost ``XGBRanker``: ``qid=``; early stopping with ``eval_set`` / ``eval_qid`` and the
  ``early_stopping_rounds`` parameter; ``feature_importances_``;
- CatBoost ``CatBoostRanker``: ``group_id=``; early stopping on an ``eval_set`` Pool;
  ``feature_importances_``;
- rankselect's rankers and any scikit-learn-compatible ranker whose ``fit`` takes ``qid``,
  ``group`` (sizes) or ``group_id``: found from the signature of ``fit``; importance
  ``feature_importances_`` or ``|coef_|``.

A ranker whose ``fit`` takes none of them cannot learn from queries: :class:`TypeError`.
"""
from __future__ import annotations

import inspect
import threading
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
from sklearn.base import clone

from ..._validation import check_fit_result
from ..importance import lightgbm_label_gain

__all__ = ["make_adapter"]


@dataclass(frozen=True)
class GroupedSet:
    """Rows grouped contiguously by query: ``X`` (m, n), ``y`` (m,), ``qid`` (m,), ``sizes``
    (n_queries,) in row order."""

    X: np.ndarray
    y: np.ndarray
    qid: np.ndarray
    sizes: np.ndarray

    def columns(self, cols) -> GroupedSet:
        return GroupedSet(np.ascontiguousarray(self.X[:, cols]), self.y, self.qid, self.sizes)

    def rows(self, query_mask: np.ndarray) -> GroupedSet:
        """The queries where ``query_mask`` (n_queries,) is True, still grouped."""
        row_mask = np.repeat(query_mask, self.sizes)
        return GroupedSet(self.X[row_mask], self.y[row_mask], self.qid[row_mask], self.sizes[query_mask])


class Interrupted(Exception):
    """Raised inside a ranker's training loop when the selection has been interrupted."""


def _fit_parameters(estimator) -> set:
    """The parameter names of ``estimator.fit`` (an instance or a class)."""
    try:
        return set(inspect.signature(estimator.fit).parameters)
    except (TypeError, ValueError):  # pragma: no cover - no signature
        return set()


#: the ranking libraries with their own adapter, and the ``fit`` argument of their rankers' queries
_LIBRARIES = {"lightgbm": "group", "xgboost": "qid", "catboost": "group_id"}


def _library(estimator) -> str:
    """The library whose ranker the estimator is (its class or a base class, with a ``fit``
    that takes the library's query argument), or ''."""
    for cls in type(estimator).__mro__:
        lib = cls.__module__.split(".", 1)[0]
        if lib in _LIBRARIES and "fit" in vars(cls):
            return lib if _LIBRARIES[lib] in _fit_parameters(cls) else ""
    return ""


class RankerAdapter:
    """How to fit one kind of ranker on grouped rows (see the module's docstring).

    ``kind`` is ``"lightgbm"``, ``"xgboost"``, ``"catboost"``, or the name of the ``fit``
    argument that takes the queries (``"qid"``, ``"group"``, ``"group_id"``).
    """

    def __init__(self, estimator, kind: str, early_stopping_rounds: Optional[int], eval_at: Optional[int]):
        self.estimator = estimator
        self.kind = kind
        self.early_stopping_rounds = early_stopping_rounds
        self.eval_at = eval_at
        self.stop = threading.Event()  # set when the selection is interrupted

    @property
    def early_stops(self) -> bool:
        """Whether the ranker stops early on the validation queries."""
        return self.early_stopping_rounds is not None and self.kind in ("lightgbm", "xgboost", "catboost")

    def _seeded(self, seed: int):
        est = clone(self.estimator)
        params = est.get_params()
        if self.kind == "catboost":
            if params.get("random_seed") is None:
                est.set_params(random_seed=seed)
            if params.get("verbose") is None and params.get("logging_level") is None:
                est.set_params(verbose=False)
            if params.get("allow_writing_files") is None:
                est.set_params(allow_writing_files=False)
        elif "random_state" in params and params["random_state"] is None:
            est.set_params(random_state=seed)
        return est

    def fit(self, train: GroupedSet, seed: int, eval_set: Optional[GroupedSet] = None):
        """A fitted clone of the ranker on ``train``; early stopping on ``eval_set``
        (TypeError when the ranker's ``fit`` does not return the fitted ranker)."""
        if self.stop.is_set():
            raise Interrupted
        est = self._seeded(seed)
        return check_fit_result(self._fit(est, train, eval_set), est)

    def _fit(self, est, train: GroupedSet, eval_set: Optional[GroupedSet]):
        ev = eval_set if self.early_stops else None
        rounds = int(self.early_stopping_rounds or 0)
        if self.kind == "lightgbm":
            import lightgbm

            kw: dict[str, Any] = {"callbacks": [self._lightgbm_check]}
            gain = lightgbm_label_gain(train.y if ev is None else np.concatenate([train.y, ev.y]))
            if gain is not None and est.get_params().get("label_gain") is None:
                est.set_params(label_gain=gain)  # labels above 30: the exponential gain 2^l - 1
            if ev is not None:
                if "eval_X" in _fit_parameters(lightgbm.LGBMRanker):  # LightGBM >= 4.7
                    kw["eval_X"], kw["eval_y"] = (ev.X,), (ev.y,)
                else:
                    kw["eval_set"] = [(ev.X, ev.y)]
                kw["eval_group"] = [ev.sizes]
                if self.eval_at is not None:
                    kw["eval_at"] = [self.eval_at]
                kw["callbacks"].append(lightgbm.early_stopping(rounds, first_metric_only=True, verbose=False))
            return est.fit(train.X, train.y, group=train.sizes, **kw)
        if self.kind == "xgboost":
            kw = {"verbose": False}
            if ev is not None:
                est.set_params(early_stopping_rounds=rounds)
                kw["eval_set"] = [(ev.X, ev.y)]
                kw["eval_qid"] = [ev.qid]
            return est.fit(train.X, train.y, qid=train.qid, **kw)
        if self.kind == "catboost":
            import catboost

            kw = {}
            if ev is not None:
                kw["eval_set"] = catboost.Pool(ev.X, ev.y, group_id=ev.qid)
                kw["early_stopping_rounds"] = rounds
            return est.fit(train.X, train.y, group_id=train.qid, **kw)
        if self.kind == "group":
            return est.fit(train.X, train.y, group=train.sizes)
        return est.fit(train.X, train.y, **{self.kind: train.qid})

    def _lightgbm_check(self, env) -> None:
        """LightGBM callback: stop training at once when the selection is interrupted."""
        if self.stop.is_set():
            raise Interrupted

    def native_importance(self, fitted, n_features: int) -> np.ndarray:
        """The ranker's own importance of each of its ``n_features`` columns: LightGBM's
        total gain, else ``feature_importances_``, else ``|coef_|`` (a linear model: the
        weights' magnitude, meaningful for features on comparable scales)."""
        if self.kind == "lightgbm":
            imp = fitted.booster_.feature_importance(importance_type="gain")
        elif hasattr(fitted, "feature_importances_"):
            imp = fitted.feature_importances_
        elif hasattr(fitted, "coef_"):
            imp = np.abs(np.asarray(fitted.coef_, dtype=np.float64)).ravel()
        else:
            raise TypeError(f"{type(fitted).__name__} has neither feature_importances_ nor coef_: "
                            "use importance='permutation' or 'refit'")
        imp = np.asarray(imp, dtype=np.float64).ravel()
        if imp.shape[0] != n_features:
            raise ValueError(f"{type(fitted).__name__} reports {imp.shape[0]} importances for {n_features} features")
        return imp


def make_adapter(estimator, early_stopping_rounds: Optional[int] = None,
                 eval_at: Optional[int] = None) -> RankerAdapter:
    """The adapter of ``estimator`` (an unfitted ranker), or :class:`TypeError` when its
    ``fit`` cannot take query groups.

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.selection.wrapper.adapters import make_adapter
    >>> adapter = make_adapter(rs.RankRLS())
    >>> adapter.kind, adapter.early_stops  # fitted with qid=; no early stopping
    ('qid', False)
    >>> from sklearn.linear_model import Ridge
    >>> make_adapter(Ridge())
    Traceback (most recent call last):
    ...
    TypeError: Ridge.fit takes no query groups ...
    """
    if not (hasattr(estimator, "fit") and hasattr(estimator, "predict") and hasattr(estimator, "get_params")):
        raise TypeError(f"estimator must be a scikit-learn-compatible ranker with fit, predict and get_params, "
                        f"got {type(estimator).__name__}")
    params = _fit_parameters(estimator)
    lib = _library(estimator)
    if lib:
        kind = lib
    else:
        kind = next((name for name in ("qid", "group", "group_id") if name in params), "")
    if not kind:
        raise TypeError(f"{type(estimator).__name__}.fit takes no query groups (no qid=, group= or group_id= "
                        "argument): a ranker that cannot see queries cannot be selected for; use a ranker "
                        "(LGBMRanker, XGBRanker, CatBoostRanker, rankselect's rankers)")
    return RankerAdapter(estimator, kind, early_stopping_rounds, eval_at)
