"""Paired tests of per-query scores, the Holm correction, confidence intervals of a mean
and paired effect sizes (queries are the sampling unit; see :mod:`rankselect.analysis.stats`)."""
from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass

import numpy as np

from ..._validation import as_generator, check_vector, shown

__all__ = [
    "TESTS",
    "TestResult",
    "paired_test",
    "holm",
    "mean_confidence_interval",
    "EffectSize",
    "effect_size",
]

#: the paired tests of :func:`paired_test` (``test=``)
TESTS = ("randomization", "wilcoxon", "t")
_ALTERNATIVES = ("two-sided", "greater", "less")


def _rng_kw(func, gen: np.random.Generator) -> dict:
    """scipy >= 1.15 calls the generator ``rng``; older versions ``random_state``."""
    return {"rng": gen} if "rng" in inspect.signature(func).parameters else {"random_state": gen}


def _pair(a, b):
    a = check_vector(a, "a")
    b = check_vector(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"a and b must hold the same queries: {a.shape[0]} and {b.shape[0]} values")
    if a.shape[0] < 2:
        raise ValueError(f"a paired test needs at least two queries, got {a.shape[0]}")
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.abs(a - b).sum()
    if not np.isfinite(total):
        raise ValueError("the differences a - b (or their sum) overflow float64: rescale the per-query scores")
    return a, b


def _check_resamples(n_resamples, name: str = "n_resamples") -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or n_resamples < 2:
        raise ValueError(f"{name} must be an integer >= 2, got {shown(n_resamples)}")
    return int(n_resamples)


def _interval(res, what: str) -> tuple[float, float]:
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError(f"the bootstrap interval of {what} is undefined (NaN): too few resamples or queries; "
                         "raise n_resamples")
    return low, high


@dataclass(frozen=True)
class TestResult:
    """``statistic`` and ``pvalue`` of a paired test over ``n`` queries.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.analysis import stats
    >>> a, b = np.array([0.5, 0.7, 0.9, 0.6]), np.array([0.4, 0.6, 0.9, 0.5])
    >>> res = stats.paired_test(a, b, test="t")
    >>> type(res).__name__, round(res.pvalue, 4)
    ('TestResult', 0.0577)
    """

    __test__ = False  # not a pytest class

    test: str
    statistic: float
    pvalue: float
    n: int
    alternative: str


def paired_test(a, b, test: str = "randomization", *, alternative: str = "two-sided",
                n_resamples: int = 10000, random_state=None) -> TestResult:
    """Paired test of per-query scores ``a`` against ``b`` (same queries, same order).

    H0: the two systems are exchangeable on every query. ``alternative="greater"``: ``a``
    scores higher. ``"randomization"``: statistic ``mean(a - b)``, p-value from random sign
    flips of the differences (all ``2**n`` flips when ``2**n <= n_resamples``);
    ``"wilcoxon"``: signed-rank statistic (zero differences dropped, scipy's default);
    ``"t"``: paired t statistic. Identical inputs give statistic 0 and p-value 1.

    Parameters
    ----------
    a, b : array-like of shape (n_queries,)
    test : {"randomization", "wilcoxon", "t"}
    alternative : {"two-sided", "greater", "less"}
    n_resamples : int
        Sign flips of the randomization test.
    random_state : None, int or numpy Generator

    Returns
    -------
    TestResult

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.analysis import stats
    >>> rng = np.random.default_rng(0)
    >>> a = rng.uniform(size=50)
    >>> b = a - 0.05 + rng.normal(scale=0.05, size=50)
    >>> res = stats.paired_test(a, b, test="randomization", random_state=0)
    >>> round(res.pvalue, 4)
    0.0002
    >>> stats.paired_test(a, b, test="wilcoxon").pvalue < 0.05
    True
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}, got {shown(test)}")
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {shown(alternative)}")
    a, b = _pair(a, b)
    n = int(a.shape[0])
    if np.array_equal(a, b):
        return TestResult(test, 0.0, 1.0, n, alternative)
    from scipy import stats

    if test == "t":
        r = stats.ttest_rel(a, b, alternative=alternative)
    elif test == "wilcoxon":
        r = stats.wilcoxon(a, b, alternative=alternative)
    else:
        if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or n_resamples < 1:
            raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
        r = stats.permutation_test(
            (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
            vectorized=True, n_resamples=int(n_resamples), alternative=alternative,
            **_rng_kw(stats.permutation_test, as_generator(random_state)))
    return TestResult(test, float(r.statistic), float(r.pvalue), n, alternative)


def holm(pvalues) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (Holm 1979), in the input order.

    With ``p_(1) <= ... <= p_(m)`` sorted: ``adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``.
    Rejecting where ``adj <= alpha`` controls the family-wise error rate at ``alpha``.

    Examples
    --------
    >>> from rankselect.analysis import stats
    >>> stats.holm([0.01, 0.04, 0.03])
    array([0.03, 0.06, 0.06])
    """
    p = check_vector(pvalues, "pvalues")
    if ((p < 0) | (p > 1)).any():
        raise ValueError("pvalues must lie in [0, 1]")
    m = p.shape[0]
    order = np.argsort(p, kind="stable")
    adj_sorted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj_sorted
    return out


def mean_confidence_interval(values, confidence: float = 0.95, method: str = "t", *,
                             n_resamples: int = 2000, random_state=None):
    """Confidence interval of the mean of per-query ``values`` (n_queries,).

    ``method="t"``: Student's t-interval ``mean +- t_{(1+confidence)/2, n-1} s / sqrt(n)``;
    ``"bootstrap"``: the BCa bootstrap over queries (:func:`scipy.stats.bootstrap`,
    ``n_resamples`` resamples). Returns ``(low, high)``; ``(mean, mean)`` when all values
    are equal.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.analysis import stats
    >>> low, high = stats.mean_confidence_interval(np.array([0.5, 0.6, 0.7, 0.8]))
    >>> round(low, 4), round(high, 4)
    (0.4446, 0.8554)
    """
    from scipy import stats

    d = check_vector(values, "values")
    if d.ndim != 1 or d.size < 2:
        raise ValueError(f"need at least two per-query values for a confidence interval, got shape {d.shape}")
    if method not in ("t", "bootstrap"):
        raise ValueError(f"ci must be one of ('t', 'bootstrap'), got {method!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    mean = float(d.mean())
    if np.all(d == d[0]):
        return mean, mean
    if method == "t":
        half = float(stats.t.ppf((1 + confidence) / 2, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size))
        return mean - half, mean + half
    res = stats.bootstrap((d,), np.mean, confidence_level=confidence, n_resamples=_check_resamples(n_resamples),
                          method="BCa", **_rng_kw(stats.bootstrap, as_generator(random_state)))
    return _interval(res, "the mean")


@dataclass(frozen=True)
class EffectSize:
    """Effect of ``a`` over ``b``: ``mean_diff`` with its interval ``diff_ci``, and the
    paired standardised mean difference ``d_z`` with its interval ``d_z_ci``.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.analysis import stats
    >>> es = stats.effect_size(np.array([0.5, 0.7, 0.9, 0.6]), np.array([0.4, 0.6, 0.85, 0.5]), random_state=0)
    >>> type(es).__name__, round(es.mean_diff, 4)
    ('EffectSize', 0.0875)
    """

    mean_diff: float
    diff_ci: tuple
    d_z: float
    d_z_ci: tuple
    confidence: float


def _dz(d, axis=-1, noise=0.0, flat_value=None):
    """``mean(d) / sd(d)``; a standard deviation at or below ``noise`` (the rounding level, see
    :func:`_rounding_sd`) gives ``sign(mean) * inf`` (0 for a zero mean), or ``flat_value``
    when given (the bootstrap's resamples of one repeated query keep 0), instead of noise."""
    sd = np.std(d, axis=axis, ddof=1)
    mean = np.mean(d, axis=axis)
    flat = sd <= noise
    with np.errstate(divide="ignore", invalid="ignore"):
        flat_dz = np.where(mean != 0, np.sign(mean) * np.inf, 0.0) if flat_value is None else flat_value
        return np.where(flat, flat_dz, mean / np.where(flat, 1.0, sd))


def _rounding_sd(a, b) -> float:
    """Largest standard deviation of ``d = a - b`` that rounding alone can produce:
    ``8 * eps * sqrt(n) * max(|a|, |b|)`` (each ``a_i - b_i`` is exact to ``eps * max(|a_i|,
    |b_i|)``; the mean and the sum of squares add at most ``sqrt(n)`` such errors)."""
    scale = float(max(np.max(np.abs(a)), np.max(np.abs(b))))
    return 8.0 * np.finfo(np.float64).eps * np.sqrt(a.size) * scale


def effect_size(a, b, *, confidence: float = 0.95, n_resamples: int = 2000, random_state=None) -> EffectSize:
    """Paired effect size of ``a`` over ``b`` (per-query scores of the same queries).

    ``mean_diff = mean(d)``, ``d = a - b``, with the t-interval of the mean; ``d_z =
    mean(d) / sd(d)`` (Cohen's d for paired samples, ``sd`` with ``ddof=1``) with a BCa
    bootstrap interval over queries. When the differences are constant up to rounding
    (``sd(d) <= 8 * eps * sqrt(n) * max(|a|, |b|)``), ``d_z`` and its interval are
    ``+inf``/``-inf`` by the sign of the mean (0 when all differences are zero) and a
    :class:`RuntimeWarning` says so, instead of a ratio of rounding noise.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.analysis import stats
    >>> rng = np.random.default_rng(0)
    >>> a = rng.uniform(size=30)
    >>> es = stats.effect_size(a, a - 0.1 + rng.normal(scale=0.05, size=30), random_state=0)
    >>> round(es.mean_diff, 3), es.diff_ci[0] > 0
    (0.086, True)
    """
    a, b = _pair(a, b)
    d = a - b
    diff_ci = mean_confidence_interval(d, confidence, "t")
    noise = _rounding_sd(a, b)
    dz = float(_dz(d, noise=noise))
    if not np.isfinite(dz) or np.all(d == d[0]):
        if dz != 0.0:
            import warnings

            sd = float(np.std(d, ddof=1))
            warnings.warn(f"effect_size: the differences are constant up to rounding (sd {sd:.3g} <= {noise:.3g}), "
                          f"so d_z is {dz} rather than a ratio of rounding noise",
                          RuntimeWarning, stacklevel=2)
        dz_ci = (dz, dz)
    else:
        from scipy import stats

        def stat(x, axis=-1):
            return _dz(x, axis, noise, 0.0)

        res = stats.bootstrap((d,), stat, confidence_level=confidence, n_resamples=_check_resamples(n_resamples),
                              method="BCa", **_rng_kw(stats.bootstrap, as_generator(random_state)))
        dz_ci = _interval(res, "d_z")
    return EffectSize(float(d.mean()), diff_ci, dz, dz_ci, float(confidence))
