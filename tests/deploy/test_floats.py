"""The threshold arithmetic against brute force: for every split value drawn, the engine's
test on the written value agrees with the ranker's test on every value near it (the float32
or float64 neighbours where the two could part)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankselect.deploy.floats import (
    SOLR_SLACK,
    exact_text,
    lt_float32,
    lt_float64_of_float32_lt,
    lt_float64_of_lte,
    parse_float32,
    solr_le,
)

F32 = np.float32
finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False).filter(lambda v: abs(v) < 3e38)
finite64 = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e38, max_value=1e38)


def neighbours32(v: float, n: int = 3) -> np.ndarray:
    f = F32(v)
    out = [f]
    up, down = f, f
    for _ in range(n):
        up, down = np.nextafter(up, F32(np.inf)), np.nextafter(down, F32(-np.inf))
        out += [up, down]
    return np.array(out, dtype=F32)


@settings(max_examples=300)
@given(finite64)
def test_lightgbm_le_as_a_float32_lt(t):
    t_ = lt_float32(np.array([t]))[0]
    for x in neighbours32(t):
        assert (float(x) <= t) == (x < t_)


@settings(max_examples=300)
@given(finite64)
def test_lightgbm_le_as_a_float64_lt(t):
    t_ = lt_float64_of_lte(np.array([t]))[0]
    for x in (t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf)):
        assert (x <= t) == (x < t_)


@settings(max_examples=300)
@given(finite32)
def test_xgboost_float32_lt_as_a_float64_lt(s):
    s32 = F32(s)
    d = lt_float64_of_float32_lt(np.array([s32]))[0]
    p = np.nextafter(s32, F32(-np.inf))
    mid = (float(p) + float(s32)) / 2
    for x in (mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf), float(s32), float(p),
              np.nextafter(float(s32), -np.inf)):
        assert (F32(x) < s32) == (x < d)


@settings(max_examples=300)
@given(finite32)
def test_solr_slack_lands_on_the_target_or_the_nearest_value_above(target):
    tg = F32(target)
    t, stored = solr_le(np.array([tg]))
    assert stored[0] == F32(t[0] + SOLR_SLACK)
    assert stored[0] >= tg
    if stored[0] != tg:  # no float32 t lands on target: the one before t lands below it
        assert F32(np.nextafter(t[0], F32(-np.inf)) + SOLR_SLACK) < tg


def test_solr_slack_reaches_ordinary_thresholds_exactly():
    tg = np.array([0.5, 0.0, 6.65e-5, 123.25, -3.5, 1.0, 0.9999999], dtype=F32)
    t, stored = solr_le(tg)
    np.testing.assert_array_equal(stored, tg)
    assert solr_le(np.array([1e-35], F32))[1][0] > F32(1e-35)  # LightGBM's zero split: out of reach


@settings(max_examples=200)
@given(st.decimals(allow_nan=False, allow_infinity=False, min_value=-10**30, max_value=10**30, places=12))
def test_parse_float32_rounds_the_decimal_once(d):
    text = str(d)
    got = parse_float32([text])[0]
    exact = Fraction(text)
    for c in (np.nextafter(got, F32(np.inf)), np.nextafter(got, F32(-np.inf))):
        assert abs(Fraction(float(c)) - exact) >= abs(Fraction(float(got)) - exact)


def test_parse_float32_at_a_float64_that_is_a_float32_midpoint():
    # 1 + 2**-24 is halfway between two float32 values; a decimal just above it must round up,
    # although its nearest float64 is the midpoint itself (ties to even would round down)
    text = "1.00000005960464477539062500000000001"
    assert float(text) == 1 + 2**-24
    assert parse_float32([text])[0] == np.nextafter(F32(1), F32(2))
    assert F32(float(text)) == F32(1)  # the double rounding the function avoids


def test_exact_text_reads_back():
    for v in (F32(0.1), F32(1e-35), 0.1, -2.5e300):
        assert float(exact_text(v)) == float(v)
    try:
        exact_text(float("nan"))
    except ValueError as exc:
        assert "not finite" in str(exc)
    else:
        raise AssertionError("NaN accepted")
