"""Thresholds as each engine must read them, so that a split goes the way the ranker's does.

A ranker and an engine compare a feature ``x`` with a split value differently:

- the IR (:mod:`~rankselect.deploy.forest`), like LightGBM, goes left when ``x <= t`` (``t`` a
  float64, ``+inf``: every number);
- XGBoost goes left when ``float32(x) < s`` (``s`` a float32; it rounds every input to float32):
  ``x <= le_float64_of_float32_lt(s)`` in the IR; CatBoost goes right when ``float32(x) > b``:
  ``x <= le_float64_of_float32_lt(next float32 above b)``;
- OpenSearch LTR (``NaiveAdditiveDecisionTree``) goes left when ``t' > x`` with ``t'`` and ``x``
  float32; Solr (``MultipleAdditiveTreesModel``) when ``x <= float32(t' + 1e-6f)``;
  Elasticsearch when ``x < t'`` (``lt``) or ``x <= t'`` (``lte``) in float64; Vespa's
  ``lightgbm(...)`` import when ``x < t'`` in float64.

The functions below compute, vectorised over every node of a model, the ``t'`` for which
the engine's test agrees with the IR's for every value the engine can hold (float32 or
float64): :func:`lt_float32` (OpenSearch), :func:`le_float32` (Solr's target),
:func:`le_float64` (Elasticsearch ``lte``), :func:`lt_float64_of_lte` (Vespa). A threshold
``+inf`` (every number goes left) is written as the largest finite value of the engine's
precision: only a value at that limit (or infinite) goes the other way. And
:func:`exact_text` gives the decimal text that every engine parses back to that exact value
(the shortest text of the float64; a float32 value is written as its float64, so that a
parser reading it as float32, directly or through a float64, gets it exactly).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

__all__ = ["SOLR_SLACK", "exact_text", "le_float32", "le_float64", "le_float64_of_float32_lt", "lt_float32",
           "lt_float64_of_lte", "lt_float64_of_float32_lt", "solr_le", "parse_float32"]

#: Solr's ``RegressionTreeNode.NODE_SPLIT_SLACK``: added (in float32) to every threshold it reads
SOLR_SLACK = np.float32(1e-6)
_INF32 = np.float32(np.inf)
_MAX32 = np.finfo(np.float32).max
_MAX64 = np.finfo(np.float64).max


def exact_text(value: float) -> str:
    """The shortest decimal text that reads back to ``value`` as a float64 (JSON-valid).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.deploy.floats import exact_text
    >>> exact_text(np.float32(0.1))  # the float32 nearest 0.1, exactly
    '0.10000000149011612'
    """
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"a model value is not finite ({v!r}): no engine file can hold it")
    return repr(v)


def _down32(t: np.ndarray) -> np.ndarray:
    """The largest float32 ``<= t`` (t float64)."""
    with np.errstate(over="ignore"):
        f = t.astype(np.float32)
        return np.where(f.astype(np.float64) > t, np.nextafter(f, -_INF32), f)


def lt_float32(t: np.ndarray) -> np.ndarray:
    """For the IR's ``x <= t``: the float32 ``t'`` with ``x < t'`` exactly when ``x <= t``, for
    every finite float32 ``x`` below the largest (the next float32 above the largest float32
    ``<= t``; the largest float32 where that is beyond it, as for ``t = inf``).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.deploy.floats import lt_float32
    >>> t = lt_float32(np.array([0.5, 1e-35]))  # 0.5 is a float32: the next one above
    >>> bool(np.float32(0.5) < t[0]), bool(np.float32(1e-35) < t[1])  # float32(1e-35) > 1e-35
    (True, False)
    """
    t = np.asarray(t, dtype=np.float64)
    _refuse_nan(t)
    with np.errstate(over="ignore"):
        out = np.nextafter(_down32(t), _INF32)
    return np.where(np.isinf(out), _MAX32, out).astype(np.float32)


def le_float32(t: np.ndarray) -> np.ndarray:
    """For the IR's ``x <= t``: the float32 ``t'`` with ``x <= t'`` exactly when ``x <= t``, for
    every float32 ``x`` (the largest float32 ``<= t``; the largest finite one for ``t = inf``).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.deploy.floats import le_float32
    >>> le_float32(np.array([0.5, 0.1, np.inf])).tolist()
    [0.5, 0.09999999403953552, 3.4028234663852886e+38]
    """
    t = np.asarray(t, dtype=np.float64)
    _refuse_nan(t)
    return np.minimum(_down32(t), _MAX32).astype(np.float32)


def le_float64(t: np.ndarray) -> np.ndarray:
    """For the IR's ``x <= t`` as a float64 ``x <= t'``: ``t`` itself, the largest finite float64
    for ``t = inf``.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.deploy.floats import le_float64
    >>> le_float64(np.array([0.25, np.inf])).tolist()
    [0.25, 1.7976931348623157e+308]
    """
    t = np.asarray(t, dtype=np.float64)
    _refuse_nan(t)
    return np.minimum(t, _MAX64)


def le_float64_of_float32_lt(s: np.ndarray) -> np.ndarray:
    """For XGBoost's ``float32(x) < s``: the float64 ``t`` with ``x <= t`` exactly when
    ``float32(x) < s``, for every float64 ``x`` (the float64 below
    :func:`lt_float64_of_float32_lt`).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.deploy.floats import le_float64_of_float32_lt
    >>> t = le_float64_of_float32_lt(np.array([np.float32(0.5)]))[0]
    >>> bool(np.float32(t) < np.float32(0.5)), bool(np.float32(np.nextafter(t, 1.0)) < np.float32(0.5))
    (True, False)
    """
    return np.nextafter(lt_float64_of_float32_lt(s), -np.inf)


def _refuse_nan(t: np.ndarray) -> None:
    if np.any(np.isnan(t)) or np.any(t == -np.inf):
        raise ValueError("a threshold is NaN or -inf: no engine can test it")


def lt_float64_of_lte(t: np.ndarray) -> np.ndarray:
    """For the IR's ``x <= t``: the float64 ``t'`` with ``x < t'`` exactly when ``x <= t`` (the
    next float64; the largest finite one where that is infinite).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.deploy.floats import lt_float64_of_lte
    >>> bool(0.25 < lt_float64_of_lte(np.array([0.25]))[0])
    True
    """
    t = np.asarray(t, dtype=np.float64)
    _refuse_nan(t)
    return np.minimum(np.nextafter(t, np.inf), _MAX64)


def lt_float64_of_float32_lt(s: np.ndarray) -> np.ndarray:
    """For XGBoost's ``float32(x) < s``: the float64 ``t'`` with ``x < t'`` exactly when
    ``float32(x) < s``, for every float64 ``x``.

    ``float32(x) < s`` holds when ``x`` rounds to the float32 ``p`` below ``s`` or lower: ``x``
    below the midpoint ``m = (p + s) / 2`` (exact in float64), or at ``m`` when the tie goes
    to ``p`` (round half to even: ``p``'s last mantissa bit is 0).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.deploy.floats import lt_float64_of_float32_lt
    >>> s = np.float32(0.1)
    >>> d = lt_float64_of_float32_lt(np.array([s]))[0]
    >>> x = np.nextafter(float(s), 0.0)  # below s in float64, but XGBoost reads float32(x) == s
    >>> bool(np.float32(x) < s), bool(x < d), bool(x < s)
    (False, False, True)
    """
    s = np.asarray(s, dtype=np.float32)
    p = np.nextafter(s, -_INF32)
    if not (np.all(np.isfinite(p)) and np.all(np.isfinite(s))):
        raise ValueError("a threshold lies at the float32 limit: it cannot be tested in float64")
    m = (p.astype(np.float64) + s.astype(np.float64)) / 2.0
    p_even = (p.view(np.uint32) & 1) == 0
    return np.where(p_even, np.nextafter(m, np.inf), m)


def _key(f: np.ndarray) -> np.ndarray:
    """float32 -> uint32 in the order of the values (-0 just below +0)."""
    u = f.view(np.uint32)
    return np.where(u & 0x80000000, ~u, u | 0x80000000).astype(np.uint32)


def _unkey(k: np.ndarray) -> np.ndarray:
    u = np.where(k & 0x80000000, k & 0x7FFFFFFF, ~k).astype(np.uint32)
    return u.view(np.float32)


def solr_le(target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For Solr's ``x <= float32(t + 1e-6f)``: the float32 ``t`` to write so that the value Solr
    stores, ``float32(t + 1e-6f)``, is the float32 ``target`` (``x <= target`` is the ranker's
    test) or, where no ``t`` gives it, the smallest value above ``target`` that one does.

    Returns ``(t, stored)``; ``stored != target`` marks a threshold Solr cannot hold: the
    float32 values in ``(target, stored]`` go left in Solr and right in the ranker (only
    thresholds within about 1e-6 of 0, or just below a negative power of two, where the
    float32 spacing of ``t`` is coarser than that of ``target``).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.deploy.floats import SOLR_SLACK, solr_le
    >>> t, stored = solr_le(np.array([0.5, 1e-35], dtype=np.float32))
    >>> bool(t[0] + SOLR_SLACK == np.float32(0.5)), bool(stored[1] == np.float32(1e-35))
    (True, False)
    """
    target = np.asarray(target, dtype=np.float32)
    lo = np.full(target.shape, _key(np.array([-np.finfo(np.float32).max], np.float32))[0], dtype=np.int64)
    hi = np.full(target.shape, _key(np.array([np.finfo(np.float32).max], np.float32))[0], dtype=np.int64)
    # the smallest t (by key) with float32(t + slack) >= target: g is non-decreasing in t
    with np.errstate(over="ignore"):
        while np.any(lo < hi):
            mid = (lo + hi) // 2
            g = _unkey(mid.astype(np.uint32)) + SOLR_SLACK
            ok = g >= target
            hi = np.where(ok, mid, hi)
            lo = np.where(ok, lo, mid + 1)
        t = _unkey(lo.astype(np.uint32))
        stored = t + SOLR_SLACK
    if not np.all(np.isfinite(stored)):
        raise ValueError("a threshold lies at the float32 limit: Solr cannot test it")
    return t, stored


def parse_float32(texts) -> np.ndarray:
    """Decimal texts -> the nearest float32 of each (round half to even, as Java's
    ``Float.parseFloat``), without the double rounding of going through float64.

    Examples
    --------
    >>> from rankselect.deploy.floats import parse_float32
    >>> parse_float32(["0.1", "5E-1"]).tolist()
    [0.10000000149011612, 0.5]
    """
    texts = [str(s) for s in texts]
    d = np.array([float(s) for s in texts], dtype=np.float64)
    with np.errstate(over="ignore"):
        f = d.astype(np.float32)
    # float64 -> float32 can only differ from the decimal's own rounding when the float64 is
    # exactly halfway between two float32 values: settle those with exact arithmetic
    with np.errstate(over="ignore"):
        other = np.where(f.astype(np.float64) > d, np.nextafter(f, -_INF32), np.nextafter(f, _INF32))
    halfway = np.flatnonzero(np.abs(f.astype(np.float64) - d) == np.abs(other.astype(np.float64) - d))
    for i in halfway:
        exact = Fraction(texts[i])
        a, b = f[i], other[i]
        da, db = abs(Fraction(float(a)) - exact), abs(Fraction(float(b)) - exact)
        if db < da or (db == da and int(b.view(np.uint32)) % 2 == 0):
            f[i] = b
    return f
