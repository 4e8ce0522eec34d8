"""Validation at the public boundary: every public function calls these first.

Errors name the offending argument (and the row / qid where it helps) and are
``ValueError`` for bad values / shapes and ``TypeError`` for bad types.
"""
from __future__ import annotations

import numbers
import re
import warnings
from typing import Any, Optional, cast

import numpy as np
import scipy.sparse as sp


def check_matrix(X, name: str = "X", *, allow_nan: bool = False, squares: bool = True) -> np.ndarray:
    """Return ``X`` as a C-contiguous float64 (m, n) array, or raise naming ``name``."""
    if sp.issparse(X):
        X = X.toarray()
    try:
        X = np.asarray(X)
    except Exception as exc:  # pragma: no cover - exotic objects
        raise TypeError(f"{name} must be array-like, got {type(X).__name__}") from exc
    if X.dtype == object or not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
        raise TypeError(f"{name} must be numeric, got dtype {X.dtype}")
    refuse_complex(X, name)
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    X = np.ascontiguousarray(X, dtype=np.float64)
    if squares:
        check_magnitude(X, name, finite=not allow_nan)
    elif not allow_nan:
        check_finite(X, name)
    return X


def shown(value: Any) -> str:
    """``repr`` for a message, NumPy scalars as plain Python numbers (``nan``, not
    ``np.float64(nan)``)."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


_NUMPY_REPR = re.compile(r"np\.(?:float|int|uint|bool_?|complex|str_)\d*\((.*?)\)")


def plain_numbers(message: str) -> str:
    """A message with NumPy scalar reprs (``np.float64(nan)``) written as plain numbers."""
    return _NUMPY_REPR.sub(r"\1", message)


def refuse_complex(a: np.ndarray, name: str) -> None:
    """TypeError for a complex array: casting it to float64 would drop the imaginary part."""
    if np.iscomplexobj(a):
        raise TypeError(f"{name} must be real numbers, got complex dtype {a.dtype}")


def check_fit_result(fitted: Any, estimator: Any) -> Any:
    """``fitted`` (what ``estimator.fit`` returned), or TypeError when it is not a fitted
    ranker: scikit-learn's contract is that ``fit`` returns ``self``."""
    if fitted is None or not hasattr(fitted, "predict"):
        raise TypeError(f"{type(estimator).__name__}.fit returned {type(fitted).__name__}: fit must return self "
                        "(the fitted ranker), as scikit-learn requires")
    return fitted


def check_predictions(pred: Any, ranker: Any, n: int) -> np.ndarray:
    """The scores ``ranker.predict`` returned for ``n`` rows as a float64 vector (n,):
    TypeError for complex or non-numeric scores, ValueError for a wrong length or
    non-finite values, each naming the ranker."""
    who = f"{type(ranker).__name__}.predict"
    a = np.asarray(pred)
    if np.iscomplexobj(a):
        raise TypeError(f"{who} returned complex scores ({a.dtype}); a ranker must return real scores")
    if not (np.issubdtype(a.dtype, np.number) or a.dtype == bool):
        raise TypeError(f"{who} returned {a.dtype} values, not numbers")
    a = a.astype(np.float64).ravel()
    if a.shape[0] != n:
        raise ValueError(f"{who} returned {a.shape[0]} scores for {n} rows")
    if not np.isfinite(a).all():
        bad = int(np.flatnonzero(~np.isfinite(a))[0])
        raise ValueError(f"{who} returned a non-finite score ({float(a[bad])}) at row {bad}")
    return a


def check_magnitude(X: np.ndarray, name: str = "X", *, finite: bool = False) -> None:
    """Refuse values whose squares, summed over the rows, would overflow float64 (with
    ``finite``, first NaN and infinity: :func:`check_finite`).

    Every estimator forms squares or products of feature values (Gram matrices, norms, pair
    differences): a column with ``max |x| >= sqrt(DBL_MAX / (16 m))`` (about ``1e150`` for a
    million rows) would give ``inf`` or a wrong model. Raises ValueError naming the column.
    One pass when nothing is wrong: ``max(X.max(), -X.min())`` below the limit (a NaN fails).
    """
    if X.size == 0:
        return
    X2 = X.reshape(X.shape[0], -1)
    limit = np.sqrt(np.finfo(np.float64).max / (16.0 * max(X2.shape[0], 1)))
    if max(float(X2.max()), -float(X2.min())) < limit:
        return
    if finite:
        check_finite(X, name)
    # Column maxima and minima: no temporary of the size of X.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        top = np.maximum(np.abs(np.nanmax(X2, axis=0)), np.abs(np.nanmin(X2, axis=0)))
    bad = np.flatnonzero(top >= limit)
    if bad.size:
        j = int(bad[0])
        i = int(np.nanargmax(np.abs(X2[:, j])))
        where = f"column {j}" if X.ndim == 2 else "it"
        raise ValueError(
            f"{name}: {where} has a value of magnitude {abs(X2[i, j]):.3g} (row {i}); its squares overflow"
            f" float64 (limit {limit:.3g} for {X2.shape[0]} rows): rescale the feature (e.g. divide by its"
            " maximum or use sklearn.preprocessing.MaxAbsScaler)"
        )


def check_vector(v, name: str, *, n: Optional[int] = None, allow_nan: bool = False,
                 of: str = "X") -> np.ndarray:
    """Return ``v`` as a contiguous float64 1-D array of length ``n`` (when given: the number
    of rows of the argument named ``of``)."""
    v = np.asarray(v)
    if v.dtype == object or not (np.issubdtype(v.dtype, np.number) or v.dtype == bool):
        raise TypeError(f"{name} must be numeric, got dtype {v.dtype}")
    refuse_complex(v, name)
    if v.ndim != 1:  # (n, 1) too: a column flattened silently hides a transposed or stacked array
        raise ValueError(f"{name} must be 1-D, got shape {v.shape}" + (f" (pass {name}.ravel() for one column)"
                                                                        if v.ndim == 2 and 1 in v.shape else ""))
    if n is not None and v.shape[0] != n:
        raise ValueError(f"{name} has {v.shape[0]} entries but {of} has {n} {'rows' if of == 'X' else 'entries'}")
    v = np.ascontiguousarray(v, dtype=np.float64)
    if not allow_nan:
        check_finite(v, name)
    return v


def check_labels(y, name: str = "y") -> np.ndarray:
    """``y`` as an array, refused (TypeError naming a row) when it holds strings or other
    non-numbers: relevance labels are numbers, and ``1`` and ``"1"`` would otherwise become one
    grade. An object array of numbers becomes float64; the shape is not checked here.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect._validation import check_labels
    >>> check_labels(np.array([2, 1.5, 0], dtype=object))
    array([2. , 1.5, 0. ])
    >>> check_labels(np.array([1, "1"], dtype=object))
    Traceback (most recent call last):
    ...
    TypeError: y mixes numbers and strings (1 at row 0, '1' at row 1): ...
    """
    a = np.asarray(y)
    if a.dtype.kind not in "USO":
        return a
    flat = a.ravel().tolist()  # Python objects: a NumPy str prints as '1', not np.str_('1')
    text = next((i for i, v in enumerate(flat) if isinstance(v, (str, bytes))), None)
    number = next((i for i, v in enumerate(flat) if isinstance(v, numbers.Real)), None)
    hint = f"relevance labels are numbers: convert them first (e.g. np.asarray({name}, dtype=float))"
    if text is not None and number is not None:
        first, second = sorted((text, number))
        raise TypeError(f"{name} mixes numbers and strings ({flat[first]!r} at row {first}, {flat[second]!r} at "
                        f"row {second}): {hint}")
    if text is not None:
        raise TypeError(f"{name} holds strings ({flat[text]!r} at row {text}): {hint}")
    other = next((i for i, v in enumerate(flat) if not isinstance(v, numbers.Real)), None)
    if other is not None:
        raise TypeError(f"{name} must hold numbers; row {other} holds {type(flat[other]).__name__} "
                        f"({flat[other]!r})")
    return a.astype(np.float64)


def check_qid(qid, n: Optional[int] = None, name: str = "qid", of: str = "X") -> np.ndarray:
    """Return ``qid`` as a contiguous int64 1-D array; floats must hold integers."""
    if qid is None:
        raise ValueError(f"{name} is required: pass the query id of every row (fit(X, y, qid=...))")
    q = np.asarray(qid)
    if q.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {q.shape}")
    if n is not None and q.shape[0] != n:
        raise ValueError(f"{name} has {q.shape[0]} entries but {of} has {n} {'rows' if of == 'X' else 'entries'}")
    if np.issubdtype(q.dtype, np.unsignedinteger) and q.size and int(q.max()) >= 2**63:
        i = int(np.argmax(q >= 2**63))
        raise ValueError(f"{name} must fit in a 64-bit signed integer; row {i} has {int(q[i])} (>= 2^63): pass "
                         "smaller query ids (e.g. np.unique(qid, return_inverse=True)[1])")
    if np.issubdtype(q.dtype, np.integer):
        return np.ascontiguousarray(q, dtype=np.int64)
    if np.issubdtype(q.dtype, np.floating):
        bad = ~np.isfinite(q) | (q != np.round(q))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{name} must hold integers; row {i} has {shown(q[i])}")
        # Outside [-2^63, 2^63) the cast to int64 saturates and distinct queries would merge.
        big = (q >= 2.0**63) | (q < -(2.0**63))
        if big.any():
            i = int(np.flatnonzero(big)[0])
            raise ValueError(
                f"{name} must fit in a 64-bit signed integer; row {i} has {float(q[i])!r} (>= 2^63 in magnitude):"
                " pass integer query ids (e.g. np.unique(qid, return_inverse=True)[1])"
            )
        return np.ascontiguousarray(q, dtype=np.int64)
    raise TypeError(f"{name} must be an integer array, got dtype {q.dtype}")


def check_ranking_data(
    X, y, qid, *, allow_nan: bool = False, squares: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate a ranking data set: X (m, n) finite, y (m,) finite, qid (m,) integer.

    ``squares``: also refuse values whose squares overflow (:func:`check_magnitude`).
    """
    X = check_matrix(X, "X", allow_nan=allow_nan, squares=squares)
    m = X.shape[0]
    if m == 0:
        raise ValueError("X has no rows")
    y = check_vector(y, "y", n=m)
    if squares:
        check_magnitude(y[:, None], "y")
    qid = check_qid(qid, m)
    return X, y, qid


def check_scores(y, scores, qid) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate (labels, scores, qid) for the metrics."""
    y = check_vector(y, "y")
    scores = check_vector(scores, "scores", n=y.shape[0], of="y")
    qid = check_qid(qid, y.shape[0], of="y")
    return y, scores, qid


#: Largest integer parameter (iterations, counts) the Rust core accepts: int64 / usize.
MAX_INT = 2**63 - 1


def check_positive(value: Any, name: str, *, strict: bool = True, integer: bool = False) -> Any:
    """Raise ValueError / TypeError unless ``value`` is a (strictly) positive number; returns
    it unchanged.

    Integers must also be at most :data:`MAX_INT` (never an OverflowError later).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if integer and not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    number = cast(float, value)  # any real number (the numbers ABCs have no arithmetic in the stubs)
    if integer and number > MAX_INT:
        raise ValueError(f"{name} must be at most 2**63 - 1, got {value!r}")
    if not np.isfinite(number) or (number <= 0 if strict else number < 0):
        bound = "> 0" if strict else ">= 0"
        raise ValueError(f"{name} must be {bound}, got {value!r}")
    return value


def check_similarity(S, n_features: int, name: str = "similarity") -> np.ndarray:
    """A feature-similarity matrix given by the user (GAS, FSMRank): a new C-contiguous
    float64 array of shape (n_features, n_features), finite and symmetric up to rounding
    (``allclose(S, S.T, rtol=1e-10, atol=1e-12)``)."""
    shape = np.shape(S)
    if shape != (n_features, n_features):
        raise ValueError(f"{name} must have shape ({n_features}, {n_features}) to match X, got {shape}")
    S = check_matrix(S, name)
    if not np.allclose(S, S.T, rtol=1e-10, atol=1e-12):
        raise ValueError(f"{name} must be a symmetric matrix")
    return S.copy()


def check_alphas(alpha, name: str = "alpha") -> tuple[np.ndarray, bool]:
    """A ridge parameter or a list of them as a 1-D float array and whether it was a list.

    Parameters
    ----------
    alpha : float or array-like of shape (n_alphas,)
        Each value finite and > 0; a list holds at least one value.

    Returns
    -------
    alphas : ndarray of shape (n_alphas,)
        ``n_alphas = 1`` for a scalar.
    is_list : bool
        Whether ``alpha`` was a sequence (not a scalar).
    """
    if np.ndim(alpha) == 0:
        check_positive(alpha, name)
        return np.array([float(alpha)]), False
    values = np.asarray(alpha, dtype=float).ravel()
    if values.size == 0:
        raise ValueError(f"{name} must hold at least one value")
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"{name} must be > 0, got {alpha!r}")
    return values, True


def check_finite(a: np.ndarray, name: str) -> None:
    """Raise ValueError naming ``name`` and the first row (and column) holding NaN or infinity."""
    if a.size and not np.isfinite(a).all():
        bad = np.argwhere(~np.isfinite(a))[0]
        where = f"row {bad[0]}" + (f", column {bad[1]}" if a.ndim == 2 else "")
        raise ValueError(f"{name} contains NaN or infinity ({where}: {shown(a[tuple(bad)])})")


def as_generator(random_state) -> np.random.Generator:
    """``random_state`` (None, an int or a :class:`numpy.random.Generator`) as a Generator;
    TypeError naming the argument otherwise."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or (isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)):
        return np.random.default_rng(None if random_state is None else int(random_state))
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {random_state!r}")


# -- feature costs and budgets (rankselect.analysis.costs): the selectors' argument checks ----------


#: relative rounding tolerance of a budget: a selection whose cost is at most
#: ``budget * (1 + BUDGET_RTOL)`` fits (three features of cost 0.1 fit ``budget=0.3``, whose
#: float sum is 0.30000000000000004); the core's ``choice::BUDGET_RTOL``
BUDGET_RTOL = 1e-9


def fits_budget(cost, budget: Optional[float]):
    """Whether a total ``cost`` fits ``budget``: ``cost <= budget * (1 + BUDGET_RTOL)``, the one
    budget rule of every selector (and of the core's greedy selection); always with
    ``budget=None``. ``cost`` may be an array (elementwise).

    Examples
    --------
    >>> from rankselect.analysis.costs import fits_budget
    >>> 0.1 + 0.1 + 0.1, fits_budget(0.1 + 0.1 + 0.1, 0.3), fits_budget(0.31, 0.3)
    (0.30000000000000004, True, False)
    """
    if budget is None:
        return True if np.ndim(cost) == 0 else np.ones(np.shape(cost), dtype=bool)
    return cost <= budget * (1 + BUDGET_RTOL)


def check_costs(feature_costs, n_features: int) -> np.ndarray:
    """``feature_costs`` as a float64 array of shape (n_features,), finite and >= 0
    (``None``: 1 per feature).

    Examples
    --------
    >>> from rankselect.analysis.costs import check_costs
    >>> check_costs([1, 2.5, 0], n_features=3)
    array([1. , 2.5, 0. ])
    """
    if feature_costs is None:
        return np.ones(n_features)
    c = check_vector(feature_costs, "feature_costs", allow_nan=True)
    if c.shape[0] != n_features:
        raise ValueError(f"feature_costs has {c.shape[0]} entries but X has {n_features} features")
    bad = ~np.isfinite(c) | (c < 0)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(f"feature_costs must be finite and >= 0; feature {j} has {float(c[j])!r}")
    with np.errstate(over="ignore"):
        total = c.sum()
    if not np.isfinite(total):
        raise ValueError("feature_costs sum to more than the largest float64 (their sum overflows): "
                         "rescale them (only their ratios and the budget's matter)")
    return c


def check_budget(budget) -> Optional[float]:
    """``budget`` as a finite float >= 0, or None.

    Examples
    --------
    >>> from rankselect.analysis.costs import check_budget
    >>> check_budget(3), check_budget(None)
    (3.0, None)
    """
    if budget is None:
        return None
    if (isinstance(budget, bool) or not isinstance(budget, numbers.Real)
            or not np.isfinite(cast(float, budget)) or cast(float, budget) < 0):
        raise ValueError(f"budget must be a finite number >= 0 or None, got {shown(budget)}")
    return float(budget)


def check_costs_and_budget(feature_costs, budget, n_features: int) -> tuple[np.ndarray, Optional[float]]:
    """:func:`check_costs` and :func:`check_budget` together, for a greedy selector: costs of
    shape (n_features,) and the budget (or None), which must admit the cheapest feature.

    Examples
    --------
    >>> from rankselect.analysis.costs import check_costs_and_budget
    >>> check_costs_and_budget(None, 2.0, n_features=3)  # a budget alone: unit costs
    (array([1., 1., 1.]), 2.0)
    """
    costs, budget = check_costs(feature_costs, n_features), check_budget(budget)
    if budget is not None and not fits_budget(costs.min(), budget):
        raise ValueError(f"budget={budget} is below the cheapest feature's cost ({costs.min()}): "
                         "nothing can be selected")
    return costs, budget
