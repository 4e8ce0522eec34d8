"""The core's cascade grid (``_core.cascade_grid_per_query``, ``metrics::cascade``) equals a
naive reference (each query's composed ranking from Python sorts, measured by
``rankselect.metrics``), for any measure, convention, ties in the scores and windows, and
gives the same values for any number of threads."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _cascade_reference import reference_grid
from rankselect import _core

U = np.uintp


@st.composite
def grids(draw):
    sizes = draw(st.lists(st.integers(1, 9), min_size=1, max_size=5))
    m = sum(sizes)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(U)
    y = np.array(draw(st.lists(st.integers(0, 3), min_size=m, max_size=m)), dtype=float)
    n1, n2 = draw(st.integers(1, 3)), draw(st.integers(0, 5))
    # small integers: many ties, in both phases
    s1 = np.array(draw(st.lists(st.integers(-2, 2), min_size=m * n1, max_size=m * n1)), float).reshape(n1, m)
    s2 = np.array(draw(st.lists(st.integers(-2, 2), min_size=m * n2, max_size=m * n2)), float).reshape(n2, m)
    phase1 = np.array(draw(st.lists(st.integers(0, n1 - 1), min_size=n2, max_size=n2)), dtype=U)
    windows = np.array(draw(st.lists(st.integers(1, 10), min_size=n2, max_size=n2)), dtype=U)
    measure = draw(st.sampled_from(["ndcg@3", "ndcg@10", "ndcg", "map", "p@2", "err@5", "meanndcg"]))
    convention = draw(st.sampled_from(["exponential", "trec", "letor", "lightgbm"]))
    ties = draw(st.sampled_from(["stable", "pessimistic"]))
    return (measure, convention, ties), y, offsets, s1, s2, phase1, windows


@settings(max_examples=120, deadline=None)
@given(grids())
def test_the_grid_equals_the_naive_reference(args):
    single, cascade = _core.cascade_grid_per_query(*args)
    ref_single, ref_cascade = reference_grid(*args)
    np.testing.assert_allclose(single, ref_single, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cascade, ref_cascade, rtol=1e-12, atol=1e-12)


def test_a_window_covering_every_query_is_phase_two_alone_and_window_one_is_phase_one():
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 30, 40)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(U)
    m = int(offsets[-1])
    y = rng.integers(0, 3, m).astype(float)
    s1, s2 = rng.normal(size=(1, m)), rng.normal(size=(1, m))
    spec = ("ndcg@10", "exponential", "stable")
    single, cascade = _core.cascade_grid_per_query(spec, y, offsets, s1, np.ascontiguousarray(s2[[0, 0]]),
                                                   np.zeros(2, U), np.array([1000, 1], U))
    alone2 = _core.metrics_per_query([spec], y, np.ascontiguousarray(s2[0]), offsets)[0]
    np.testing.assert_array_equal(cascade[:, 0], alone2)
    np.testing.assert_array_equal(cascade[:, 1], single[:, 0])


_CHILD = """
import json, sys
import numpy as np
from rankselect import _core
rng = np.random.default_rng(0)
sizes = rng.integers(1, 200, 700)
off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.uintp)
m = int(off[-1])
y = rng.integers(0, 4, m).astype(float)
s1, s2 = rng.normal(size=(3, m)), np.round(rng.normal(size=(12, m)), 1)
p1 = np.repeat(np.arange(3), 4).astype(np.uintp)
w = np.tile([1, 10, 50, 100], 3).astype(np.uintp)
a, b = _core.cascade_grid_per_query(("ndcg@10", "exponential", "stable"), y, off, s1, s2, p1, w)
print(json.dumps([a.tolist(), b.tolist()]))
"""


def test_the_same_values_for_any_number_of_threads():
    out = {}
    for threads in ("1", "2"):
        env = dict(os.environ, RAYON_NUM_THREADS=threads)
        run = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True)
        out[threads] = json.loads(run.stdout)
    assert out["1"] == out["2"]


def test_the_memory_rule_refuses_before_allocating():
    y = np.array([0.0, 1.0])
    with pytest.raises(MemoryError, match="cascade grid"):
        _core.cascade_grid_per_query(("ndcg@10", "exponential", "stable"), y, np.array([0, 2], U),
                                     np.ones((1, 2)), np.ones((1, 2)), np.zeros(1, U), np.ones(1, U), max_memory=8)
