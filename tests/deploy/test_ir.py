"""The tree IR (``rankselect.deploy.forest``): one canonical test, ``x <= t`` in float64, from
which every writer converts, whatever library the trees came from.

- A forest built by hand, of a source no reader knows, is written for every engine and
  scored by the engines' ports exactly as the IR scores it: no writer reads the library.
- The canonical threshold of an XGBoost split value reproduces what each engine needs
  (OpenSearch the float32 itself, Solr the float32 below, Vespa / Elasticsearch the float64
  between the values that round below and the others), for every float32 drawn.
- What no engine file can hold is refused, naming the tree and node.
"""
from __future__ import annotations

import engine_ports as ports
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankselect.deploy import export_engine
from rankselect.deploy.floats import (
    le_float32,
    le_float64,
    le_float64_of_float32_lt,
    lt_float32,
    lt_float64_of_float32_lt,
    lt_float64_of_lte,
)
from rankselect.deploy.forest import ForestBuilder
from rankselect.deploy.ranker import TreeRanker

F32 = np.float32
PORTS = {"opensearch": ports.opensearch_scores, "solr": ports.solr_scores,
         "elasticsearch": ports.elasticsearch_scores, "vespa": ports.vespa_scores}


def handmade():
    """Two trees over 3 features: float32 thresholds, an every-number split, NaN both ways."""
    b = ForestBuilder("handmade")
    b.add_tree(feature=[0, 1, -1, -1, 2, -1, -1], threshold=[0.5, np.inf, 0, 0, -0.25, 0, 0],
               nan_left=[True, False, False, False, True, False, False], left=[1, 2, -1, -1, 5, -1, -1],
               right=[4, 3, -1, -1, 6, -1, -1], value=[0, 1.5, -2.0, 0, 0.25, 3.0, -1.0])
    b.add_tree(feature=[2, -1, -1], threshold=[0.75, 0, 0], nan_left=[False, False, False], left=[1, -1, -1],
               right=[2, -1, -1], value=[0, 0.5, -0.5])
    return b.build(["a", "b", "c"], base_score=0.125, objective="custom")


class _Model:
    """Stands for a fitted model whose forest is ``handmade()`` (export_engine takes a model)."""


@pytest.fixture
def handmade_export(monkeypatch):
    import rankselect.deploy.ranker as ranker

    forest = handmade()
    monkeypatch.setattr(ranker, "forest_of", lambda model: forest)
    return forest


@pytest.mark.parametrize("engine", sorted(PORTS))
@pytest.mark.parametrize("non_match", ["zero", "missing"])
def test_writers_convert_from_the_ir_alone(handmade_export, engine, non_match):
    forest = handmade_export
    out = export_engine(engine, [0, 1, 2], _Model(), feature_names=["a", "b", "c"], non_match=non_match)
    rng = np.random.default_rng(0)
    X = rng.choice([0.0, 0.25, 0.5, 0.75, -0.25, 1.0, 2.0, np.nan], size=(200, 3))
    X = np.vstack([X, [[np.nextafter(0.5, 1), 1e300, -0.25]]])
    if engine in ("opensearch", "solr"):
        X = np.minimum(X, 1e38).astype(F32).astype(np.float64)
    ref = forest.predict(X if non_match == "missing" else np.nan_to_num(X, nan=0.0))
    got = PORTS[engine](out.files, X).astype(np.float64)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)
    assert "handmade trees (2)" in out.files["README.md"]
    assert any("every number left" in n for n in out.notes)


def test_the_ranker_knows_no_library_test():
    assert not hasattr(TreeRanker, "library")


finite32 = st.floats(width=32, allow_nan=False, allow_infinity=False).filter(lambda v: abs(v) < 3e38)


@settings(max_examples=500)
@given(finite32)
def test_the_canonical_threshold_reproduces_every_engines_value(s):
    s32 = np.array([F32(s)])
    t = le_float64_of_float32_lt(s32)
    assert lt_float32(t)[0] == s32[0]  # OpenSearch: s itself
    assert le_float32(t)[0] == np.nextafter(s32[0], F32(-np.inf))  # Solr's target: the float32 below s
    assert lt_float64_of_lte(t)[0] == lt_float64_of_float32_lt(s32)[0]  # Vespa
    assert le_float64(t)[0] == t[0]  # Elasticsearch lte
    x = np.array([t[0], np.nextafter(t[0], np.inf)])
    assert ((x <= t[0]) == (x.astype(F32) < s32[0])).all()


def test_every_number_goes_left_at_the_limit_of_each_precision():
    inf = np.array([np.inf])
    assert lt_float32(inf)[0] == np.finfo(F32).max and le_float32(inf)[0] == np.finfo(F32).max
    assert le_float64(inf)[0] == np.finfo(np.float64).max == lt_float64_of_lte(inf)[0]
    with pytest.raises(ValueError, match="NaN or -inf"):
        lt_float32(np.array([np.nan]))


@pytest.mark.parametrize("threshold, value, message", [
    (np.nan, 1.0, r"handmade tree 0 node 0: the threshold is nan"),
    (-np.inf, 1.0, r"handmade tree 0 node 0: the threshold is -inf"),
    (0.5, np.inf, r"handmade tree 0 node 2: the leaf value is inf"),
    (0.5, np.nan, r"handmade tree 0 node 2: the leaf value is nan"),
])
def test_what_no_engine_file_holds_is_refused(threshold, value, message):
    b = ForestBuilder("handmade")
    with pytest.raises(ValueError, match=message):
        b.add_tree([0, -1, -1], [threshold, 0, 0], [False] * 3, [1, -1, -1], [2, -1, -1], [0, 1.0, value])


def test_a_forest_without_trees_is_refused():
    with pytest.raises(ValueError, match="has no trees: it would score every document 0"):
        ForestBuilder("handmade").build(["a"], 0.0, "")


def test_a_leaf_beyond_float32_is_refused_for_float32_engines(monkeypatch):
    import rankselect.deploy.ranker as ranker

    b = ForestBuilder("handmade")
    b.add_tree([0, -1, -1], [0.5, 0, 0], [False] * 3, [1, -1, -1], [2, -1, -1], [0, 1.0, 1e39])
    forest = b.build(["a"], 0.0, "")
    monkeypatch.setattr(ranker, "forest_of", lambda model: forest)
    with pytest.raises(ValueError, match=r"handmade tree 0 node 2: the leaf value 1e\+39 is beyond float32"):
        export_engine("opensearch", [0], _Model(), feature_names=["a"])
    assert "models/rankselect.json" in export_engine("vespa", [0], _Model(), feature_names=["a"]).files


def test_the_canonical_threshold_of_600k_float32_split_values():
    """Every finite float32 split value of 600,000 drawn bit patterns: the IR's threshold
    gives back each engine's value exactly (the conversions the writers had per library)."""
    rng = np.random.default_rng(0)
    s = rng.integers(0, 2**32, size=600_000, dtype=np.uint64).astype(np.uint32).view(F32)
    s = s[np.isfinite(s) & (np.abs(s) < 3e38)]
    t = le_float64_of_float32_lt(s)
    np.testing.assert_array_equal(lt_float32(t), s)
    np.testing.assert_array_equal(le_float32(t), np.nextafter(s, F32(-np.inf)))
    np.testing.assert_array_equal(lt_float64_of_lte(t), lt_float64_of_float32_lt(s))
    x = np.nextafter(t, np.inf)  # the float64 just above goes right: float32(x) >= s
    assert np.all(x.astype(F32) >= s) and np.all(t.astype(F32) < s)
