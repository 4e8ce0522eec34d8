"""The estimator contract shared by every rankselect estimator and selector.

One layer, so that each rule lives once:

- **qid routing**: ``fit`` and ``score`` request ``qid`` by default under scikit-learn's
  metadata routing (``sklearn.set_config(enable_metadata_routing=True)``), so a pipeline or a
  grid search routes it with no ``set_fit_request``. The kernel maps (transformers that
  ignore ``qid``) mark it unused instead.
- **validation once per fit** (scikit-learn's ``_fit_context``): ``fit`` calls
  :meth:`RankingEstimator._validate_training_data`, which checks the parameters, the data and
  ``qid`` once and groups the rows by query once, into one :class:`TrainingData`; ``fit``
  hands it to ``_fit(data)``, and every helper below (:func:`warn_if_degenerate`, the
  importance, the similarity, the LQO checks, the kernels' Python faces) takes it or its
  :class:`GroupedData` instead of ``(X, y, qid)``. An estimator fitted inside another's
  ``fit`` (FSMSVM's FSMRank and RankSVM) takes the same object
  (:meth:`RankingEstimator._fit_validated`).
- **checks** through scikit-learn's own machinery: ``_parameter_constraints``
  (``Interval`` / ``StrOptions``) checked at ``fit``, and ``validate_data``, which sets
  ``n_features_in_`` and, for a DataFrame, ``feature_names_in_`` (so ``get_feature_names_out``
  gives the input's column names and ``set_output(transform="pandas")`` works). Refused with
  a message that names the argument: complex values, 0 rows, 0 columns, NaN / infinity (with
  the row and column), values whose squares overflow float64 (with the column and row), a
  ``qid`` of another length, labels that are strings or mix strings and numbers (``1`` and
  ``"1"`` would be one grade). A ``y`` of shape (n, 1) is ravelled with a
  ``DataConversionWarning`` and numeric object arrays are converted, as in scikit-learn (its
  ``check_estimator`` asks for both); every other 2-D ``y`` is refused, and outside ``fit``
  (metrics, pairs, :class:`~rankselect.RankingData`) any 2-D ``y``.
- **sparse input** (scipy.sparse) is accepted and densified (the kernels work on dense
  query blocks); the tags declare it, and densifying obeys :func:`rankselect.set_config`'s
  memory limit.
- **tags**: ``y`` is required (except by the kernel maps). A ranker is neither a classifier
  nor a regressor: scikit-learn has no ranker type, so rankselect declares no estimator type
  (``estimator_type=None``; ``is_regressor`` is False) and gives every ranker
  :meth:`RankerMixin.score`, the mean NDCG@10 over queries.
- **pickles** hold the rankselect version that made them; loading one made by another
  version (or by one that did not record it) warns with
  :class:`rankselect.exceptions.InconsistentVersionWarning`, as scikit-learn does.
- **degenerate data** warn with :class:`rankselect.exceptions.DegenerateDataWarning`
  (:func:`warn_if_degenerate`).
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.base import BaseEstimator
from sklearn.utils import metadata_routing
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import check_array, column_or_1d, validate_data

from ._config import check_memory
from ._core import __version__
from ._search import check_search_split
from ._validation import check_finite, check_labels, check_magnitude, check_qid, plain_numbers
from .data.grouping import GroupedData, TrainingData
from .exceptions import DegenerateDataWarning, InconsistentVersionWarning
from .metrics import ndcg

__all__ = ["RankingEstimator", "RankerMixin", "KernelMapBase", "warn_if_degenerate", "warn_degenerate",
           "PICKLE_VERSION_KEY"]

#: the key of the rankselect version in a pickled estimator's state
PICKLE_VERSION_KEY = "_rankselect_version"


def _named(name, fn, *args, **kwargs):
    """Call a scikit-learn validator; its ValueError / TypeError messages get ``name: `` in
    front when they do not say which argument they are about."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        if isinstance(exc, ValueError) and "could not convert" in msg:
            raise TypeError(f"{name} must be numeric: {msg}") from exc
        if msg.startswith(f"{name}") or f"Input {name} " in msg or f" {name} " in msg[:40]:
            raise
        raise type(exc)(f"{name}: {msg}") from exc


def _densify(X, name="X"):
    """scipy.sparse -> dense float64 (after a memory check); other inputs unchanged."""
    if sp.issparse(X):
        check_memory(8 * X.shape[0] * X.shape[1], f"{name} densified ({X.shape[0]} x {X.shape[1]} float64)",
                     "pass fewer rows or columns, or raise rankselect.set_config(max_memory=...)")
        return X.toarray()
    return X


class RankingEstimator(BaseEstimator):
    """Base of every rankselect estimator that learns from ``(X, y, qid)``.

    Subclasses' ``fit`` is ``self._fit(self._validate_training_data(X, y, qid))``: the one
    validation and grouping of the call; ``_fit(data)`` does the work on the
    :class:`TrainingData`. ``predict`` / ``transform`` call :meth:`_validate_X`.
    """

    # qid is always needed: request it by default under metadata routing.
    __metadata_request__fit = {"qid": True}

    _parameter_constraints: dict = {}

    def __getstate__(self) -> dict:
        """The state to pickle, with the rankselect version that made it (``__setstate__``
        warns when another version loads it, as scikit-learn does with its own version)."""
        return {**super().__getstate__(), PICKLE_VERSION_KEY: __version__}

    def __setstate__(self, state) -> None:
        """Unpickle; an :class:`~rankselect.exceptions.InconsistentVersionWarning` when the
        pickle was made by another rankselect version (or by one that did not record it); a
        parameter added after the pickle was made takes its ``__init__`` default, so that
        ``repr``, ``get_params`` and ``clone`` of an old pickle work."""
        state = dict(state)
        made_by = state.pop(PICKLE_VERSION_KEY, None)
        if made_by != __version__:
            warnings.warn(InconsistentVersionWarning(type(self).__name__, made_by, __version__), stacklevel=2)
        super().__setstate__(state)
        init = type(self).__init__
        defaults = inspect.signature(init).parameters if init is not object.__init__ else {}
        for name in self._get_param_names():
            if name not in self.__dict__ and name in defaults:
                default = defaults[name].default
                if default is not inspect.Parameter.empty:
                    setattr(self, name, default)

    def _validate_X(self, X, *, reset: bool):
        """X as a C-contiguous float64 (m, n) array; sets (reset=True) or checks (reset=False)
        ``n_features_in_`` and ``feature_names_in_``."""
        X = _named("X", validate_data, self, X, reset=reset, accept_sparse=("csr", "csc", "coo"),
                   dtype=np.float64, ensure_all_finite=False, ensure_min_features=1)
        X = np.ascontiguousarray(_densify(X), dtype=np.float64)
        check_magnitude(X, "X", finite=True)  # finite; squares / products must not overflow
        return X

    def _validate_params(self) -> None:
        """scikit-learn's check of ``_parameter_constraints``, its message with NumPy scalars
        written as plain numbers (``nan``, not ``np.float64(nan)``)."""
        try:
            super()._validate_params()
        except InvalidParameterError as exc:
            raise InvalidParameterError(plain_numbers(str(exc))) from None

    def _validate_training_data(self, X, y, qid) -> TrainingData:
        """Check the parameters against ``_parameter_constraints`` and the data, once, and
        group the rows by query, once: the :class:`TrainingData` of X (m, n) float64,
        y (m,) float64, qid (m,) int64 and their :class:`GroupedData`."""
        self._validate_params()
        check_search_split(self)  # inside GridSearchCV & co: routing on, queries not split (rankselect._search)
        X = self._validate_X(X, reset=True)
        m = X.shape[0]
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None: "
                             "it learns from relevance labels (fit(X, y, qid=...))")
        y = _named("y", _validate_y, y)
        if y.shape[0] != m:
            raise ValueError(f"y has {y.shape[0]} entries but X has {m} rows")
        check_finite(y, "y")
        check_magnitude(y[:, None], "y")
        qid = check_qid(qid, m)
        return TrainingData.from_arrays(X, y, qid)

    def _fit(self, data: TrainingData):
        """Fit on validated, grouped data (the subclass's work)."""
        raise NotImplementedError

    def _fit_validated(self, data: TrainingData):
        """Fit inside another estimator's ``fit`` on the :class:`TrainingData` it validated
        and grouped, with parameters it validated (its own constraints cover the ones it
        passes, as scikit-learn's ``prefer_skip_nested_validation``): ``n_features_in_`` is
        set; neither the parameters nor the data are checked, nor the rows grouped, again."""
        self.n_features_in_ = data.n_features
        if hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self._fit(data)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # accepted, densified
        tags.target_tags.required = True
        tags.target_tags.single_output = True
        tags.target_tags.multi_output = False
        tags.estimator_type = None  # a ranker: neither classifier nor regressor
        return tags


def _validate_y(y):
    y = check_labels(y)  # strings, or numbers mixed with strings ("1" and 1 would be one grade)
    y = check_array(y, ensure_2d=False, dtype=np.float64, ensure_all_finite=False, input_name="y",
                    ensure_min_samples=0)
    return np.ascontiguousarray(column_or_1d(y, warn=True), dtype=np.float64)


#: what a score without qid adds while scikit-learn's metadata routing is off (the usual
#: cause: GridSearchCV / cross_validate pass qid to fit but not to score)
ROUTING_HINT = (". Inside GridSearchCV, cross_validate or a Pipeline, qid reaches score only with "
                "metadata routing: call sklearn.set_config(enable_metadata_routing=True) before fitting "
                "(rankselect's estimators request qid for fit and score)")
_routing_warned = False


def _warn_routing_once(msg: str) -> None:
    """A UserWarning at the first score without qid (GridSearchCV would otherwise turn each
    failure into a NaN score with a traceback, and best_score_ into NaN)."""
    global _routing_warned
    if not _routing_warned:
        _routing_warned = True
        warnings.warn(msg, UserWarning, stacklevel=3)


class RankerMixin:
    """``score(X, y, qid)``: the mean NDCG@10 over queries (standard convention) of
    ``predict(X)``; qid is requested by ``score`` under metadata routing."""

    __metadata_request__score = {"qid": True}

    def score(self, X, y, qid=None, sample_weight=None):
        """Mean NDCG@10 over queries of the ranking by ``predict(X)``.

        Standard convention of :mod:`rankselect.metrics` (gain ``2**r - 1``, discount
        ``1 / log2(i + 1)``, ties in input order); use :func:`rankselect.metrics.make_scorer`
        for another measure or convention.

        Parameters
        ----------
        X : array-like of shape (m, n_features)
        y : array-like of shape (m,)
            Relevance labels (>= 0).
        qid : array-like of shape (m,)
            Query id of every row (required).
        sample_weight : None
            Not supported (present so that ``Pipeline.score`` can route its own default
            ``sample_weight=None``); anything else raises ValueError.

        Returns
        -------
        float
        """
        if sample_weight is not None:
            raise ValueError("sample_weight is not supported by score: every query counts once")
        if qid is None:
            msg = "qid is required: score(X, y, qid=...) ranks the documents of each query"
            if not sklearn.get_config().get("enable_metadata_routing", False):
                msg += ROUTING_HINT
                _warn_routing_once(msg)
            raise ValueError(msg)
        y = _named("y", _validate_y, y)
        return float(ndcg(y, self.predict(X), qid, k=10))


class KernelMapBase(RankingEstimator):
    """Base of the kernel approximation maps: unsupervised transformers whose ``fit``
    accepts and ignores ``y`` and ``qid`` (qid marked unused under metadata routing, so
    pipelines route it only to the ranker)."""

    __metadata_request__fit = {"qid": metadata_routing.UNUSED}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        tags.estimator_type = "transformer"
        return tags


def warn_if_degenerate(estimator, data: GroupedData, stacklevel: int = 4) -> tuple[bool, bool]:
    """Warn with :class:`DegenerateDataWarning` when ``data`` has no preference pair (no query
    with two different labels) or no informative feature (every column constant inside every
    query). Returns ``(has_pair, has_informative_feature)``. O(m n) on the grouped rows.
    ``stacklevel``: 4 points at the user's ``fit`` (this function, ``_fit``, ``fit``).
    """
    has_pair = data.has_preference_pair()
    informative = data.has_informative_feature()
    warn_degenerate(estimator, has_pair, informative, stacklevel=stacklevel + 1)
    return has_pair, informative


def warn_degenerate(estimator, has_pair: bool, informative: bool, stacklevel: int = 3) -> None:
    """The :class:`DegenerateDataWarning` of :func:`warn_if_degenerate`, from its two facts
    (computed in memory, or over query shards by :mod:`rankselect.dask`)."""
    name = type(estimator).__name__
    if not has_pair:
        warnings.warn(
            f"{name}: the training data have no preference pair (no query has two different "
            "labels); nothing can be learnt from them", DegenerateDataWarning, stacklevel=stacklevel)
    elif not informative:
        warnings.warn(
            f"{name}: the training data have no informative feature (every feature is constant "
            "inside every query); nothing can be learnt from them", DegenerateDataWarning,
            stacklevel=stacklevel)
