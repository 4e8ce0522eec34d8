"""Tests of rankselect.metrics: naive NumPy references (both conventions, both tie
modes), pytrec_eval where the definitions coincide, a hand-checked LETOR example, the
MQ2008 RankRLS reproduction, and bad inputs."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import shared_path
from rankselect import metrics
from rankselect.data import QueryGroups

# --------------------------------------------------------------------------------------
# Naive references, written from the definitions (LETOR: from Eval-Score-4.0.pl's logic:
# DCG as a running sum over positions 1..topN with empty positions as label 0, NDCG as
# DCG / ideal DCG position by position, NDCG@k undefined (0) beyond the query length).
# --------------------------------------------------------------------------------------


def ranked_labels(y, s, ties):
    idx = list(range(len(y)))
    if ties == "stable":
        key = lambda i: (-s[i], i)  # noqa: E731
    else:
        key = lambda i: (-s[i], y[i], i)  # noqa: E731
    return [float(y[i]) for i in sorted(idx, key=key)]


def gain(r):
    return 2.0 ** r - 1.0


def relevant(r, convention):
    return r > 0 if convention == "standard" else r >= 1


def dcg_list(rates, top_n, convention):
    """DCG@1..top_n (LETOR: positions past the end hold label 0)."""
    out, acc = [], 0.0
    for pos in range(top_n):  # 0-based position, rank = pos + 1
        r = rates[pos] if pos < len(rates) else 0.0
        rank = pos + 1
        if convention == "letor":
            d = gain(r) if rank <= 2 else gain(r) * math.log(2.0) / math.log(rank)
        else:
            d = gain(r) / math.log2(rank + 1)
        acc += d
        out.append(acc)
    return out


def naive_ndcg_all(rates, convention):
    """NDCG@1..n of one query."""
    n = len(rates)
    d = dcg_list(rates, n, convention)
    best = dcg_list(sorted(rates, reverse=True), n, convention)
    return [d[i] / best[i] if best[i] != 0 else 0.0 for i in range(n)]


def naive_query(measure, k, rates, convention, max_grade):
    n = len(rates)
    if measure == "ndcg":
        k = n if k is None else k
        if convention == "letor" and k > n:
            return 0.0
        return naive_ndcg_all(rates, convention)[min(k, n) - 1]
    if measure == "p":
        return sum(relevant(r, convention) for r in rates[:k]) / k
    if measure == "ap":
        hits, total = 0, 0.0
        for i, r in enumerate(rates):
            if relevant(r, convention):
                hits += 1
                total += hits / (i + 1)
        return total / hits if hits else 0.0
    if measure == "meanndcg":
        v = naive_ndcg_all(rates, convention)
        return sum(v) / len(v)
    if measure == "err":
        k = n if k is None else k
        p, total = 1.0, 0.0
        for i, r in enumerate(rates[:k]):
            R = gain(r) / 2.0 ** max_grade
            total += p * R / (i + 1)
            p *= 1 - R
        return total
    raise AssertionError(measure)


def naive(measure, y, s, qid, k=None, convention="standard", ties="stable", max_grade=None):
    """Per-query values, queries in order of first appearance."""
    y, s, qid = np.asarray(y, float), np.asarray(s, float), np.asarray(qid)
    order = list(dict.fromkeys(qid.tolist()))
    max_grade = float(y.max()) if max_grade is None else max_grade
    out = []
    for q in order:
        rows = np.flatnonzero(qid == q)
        rates = ranked_labels(y[rows].tolist(), s[rows].tolist(), ties)
        out.append(naive_query(measure, k, rates, convention, max_grade))
    return np.array(out)


def fast(measure, y, s, qid, k=None, convention="standard", ties="stable", per_query=True, max_grade=None):
    kw = dict(convention=convention, ties=ties, per_query=per_query)
    if measure == "ndcg":
        return metrics.ndcg(y, s, qid, k, **kw)
    if measure == "p":
        return metrics.precision(y, s, qid, k, **kw)
    if measure == "ap":
        return metrics.mean_average_precision(y, s, qid, **kw)
    if measure == "meanndcg":
        return metrics.mean_ndcg(y, s, qid, **kw)
    if measure == "err":
        return metrics.err(y, s, qid, k, max_grade=max_grade, **kw)
    raise AssertionError(measure)


# --------------------------------------------------------------------------------------
# Hypothesis: random ranking problems with ties, tiny / single-document queries,
# all-equal labels, queries without relevant documents and unsorted, split qids.
# --------------------------------------------------------------------------------------


@st.composite
def ranking_problem(draw):
    n_q = draw(st.integers(1, 6))
    sizes = draw(st.lists(st.integers(1, 9), min_size=n_q, max_size=n_q))
    m = sum(sizes)
    qid = np.repeat(np.arange(n_q) * 7 + 3, sizes)
    qid = qid[np.array(draw(st.permutations(range(m))))]  # unsorted, split queries
    label_values = draw(st.sampled_from([[0, 1], [0, 1, 2], [0, 0.5, 1, 2, 4], [1], [0]]))
    y = np.array(draw(st.lists(st.sampled_from(label_values), min_size=m, max_size=m)), float)
    score_values = draw(st.sampled_from([[0.0, 1.0], [-1.0, 0.0, 0.5, 2.0], None]))
    if score_values is None:
        s = np.array(draw(st.lists(st.floats(-5, 5, allow_nan=False, width=32), min_size=m, max_size=m)))
    else:
        s = np.array(draw(st.lists(st.sampled_from(score_values), min_size=m, max_size=m)))
    return y, s, qid


MEASURES = [("ndcg", None), ("ndcg", 1), ("ndcg", 3), ("ndcg", 10), ("p", 1), ("p", 3), ("p", 10),
            ("ap", None), ("meanndcg", None), ("err", None), ("err", 2)]


@settings(max_examples=60, deadline=None)
@given(ranking_problem(), st.sampled_from(["standard", "letor"]), st.sampled_from(["stable", "pessimistic"]))
def test_matches_naive_reference(problem, convention, ties):
    y, s, qid = problem
    for measure, k in MEASURES:
        expected = naive(measure, y, s, qid, k, convention, ties)
        got = fast(measure, y, s, qid, k, convention, ties)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12, err_msg=f"{measure}@{k}")
        mean = fast(measure, y, s, qid, k, convention, ties, per_query=False)
        assert isinstance(mean, float)
        assert mean == pytest.approx(expected.mean(), rel=1e-12, abs=1e-12)
    table = metrics.evaluate(y, s, qid, convention=convention, ties=ties, ks=[1, 4])
    assert list(table) == ["MAP", "NDCG@1", "NDCG@4", "P@1", "P@4", "MeanNDCG", "ERR"]
    assert table["NDCG@4"] == pytest.approx(naive("ndcg", y, s, qid, 4, convention, ties).mean(), abs=1e-12)
    assert table["MeanNDCG"] == pytest.approx(naive("meanndcg", y, s, qid, None, convention, ties).mean(), abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(ranking_problem())
def test_stable_ties_are_input_order_and_pessimistic_is_a_lower_bound(problem):
    y, s, qid = problem
    g = QueryGroups.from_qid(qid)
    # stable == ranking by (score desc, input position): break ties explicitly and compare
    rank_in_query = np.empty(len(y))
    for q in range(g.n_queries):
        rows = g.perm[g.offsets[q]:g.offsets[q + 1]]
        rank_in_query[rows] = np.arange(len(rows))
    order = np.lexsort((rank_in_query, -s))
    strict = np.empty(len(y))
    strict[order] = -np.arange(len(y), dtype=float)  # distinct scores, same order
    for conv in ("standard", "letor"):
        np.testing.assert_array_equal(
            metrics.ndcg(y, s, qid, 3, convention=conv, per_query=True),
            metrics.ndcg(y, strict, qid, 3, convention=conv, per_query=True))
        assert (metrics.mean_average_precision(y, s, qid, ties="pessimistic", convention=conv, per_query=True)
                <= metrics.mean_average_precision(y, s, qid, convention=conv, per_query=True) + 1e-12).all()


def test_per_query_order_follows_first_appearance():
    y = [1, 0, 0, 1, 2]
    s = [0.1, 0.2, 0.3, 0.4, 0.5]
    qid = [9, 2, 9, 2, 5]
    ap = metrics.average_precision(y, s, qid)
    # query 9: ranked labels 0, 1 -> 1/2; query 2: 1, 0 -> 1; query 5: 1
    np.testing.assert_allclose(ap, [0.5, 1.0, 1.0])


# --------------------------------------------------------------------------------------
# pytrec_eval (trec_eval): same definitions for binary labels and distinct scores.
# trec_eval's ndcg_cut uses gain = label (2**r - 1 coincides for r in {0, 1}) and breaks
# score ties by docno, hence distinct scores.
# --------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8))
def test_matches_pytrec_eval_binary_no_ties(seed, n_q):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, n_q)
    qid = np.repeat(np.arange(n_q), sizes)
    y = rng.integers(0, 2, len(qid)).astype(float)
    s = rng.permutation(len(qid)).astype(float) / 7.0  # distinct
    qrels, run = {}, {}
    for i, (q, lab, sc) in enumerate(zip(qid, y, s)):
        qrels.setdefault(str(q), {})[f"d{i}"] = int(lab)
        run.setdefault(str(q), {})[f"d{i}"] = float(sc)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_5", "P_10", "ndcg_cut_3", "ndcg_cut_10", "ndcg"})
    res = ev.evaluate(run)
    ours = {
        "map": metrics.mean_average_precision(y, s, qid, per_query=True),
        "P_5": metrics.precision(y, s, qid, 5, per_query=True),
        "P_10": metrics.precision(y, s, qid, 10, per_query=True),
        "ndcg_cut_3": metrics.ndcg(y, s, qid, 3, per_query=True),
        "ndcg_cut_10": metrics.ndcg(y, s, qid, 10, per_query=True),
        "ndcg": metrics.ndcg(y, s, qid, per_query=True),
    }
    for q in range(n_q):  # queries without relevant documents: 0 in both
        for name, values in ours.items():
            assert values[q] == pytest.approx(res[str(q)][name], abs=1e-12), (name, q)
        # LETOR relevance coincides for binary labels
        assert metrics.mean_average_precision(y, s, qid, convention="letor", per_query=True)[q] == \
            pytest.approx(res[str(q)]["map"], abs=1e-12)


# --------------------------------------------------------------------------------------
# Hand-checked LETOR example (Eval-Score-4.0.pl conventions), worked out on paper.
# --------------------------------------------------------------------------------------


def test_letor_hand_checked_example():
    # query 10: labels 1 0 2 0 1, scores .5 .9 .3 .9 .1 -> stable ranking (tie at .9 in
    # file order): labels 0 0 1 2 1; gains 0 0 1 3 1; ideal gains 3 1 1 0 0.
    # LETOR discounts: 1, 1, 1/log2 3, 1/2, 1/log2 5.
    # DCG@1..5  = 0, 0, a, a + 3/2, a + 3/2 + b       with a = 1/log2 3, b = 1/log2 5
    # IDCG@1..5 = 3, 4, 4 + a, 4 + a, 4 + a
    # query 20: labels 0 0 -> everything 0.  query 30: one document, label 1.
    y = [1, 0, 2, 0, 1, 0, 0, 1]
    s = [0.5, 0.9, 0.3, 0.9, 0.1, 1.0, 2.0, 0.0]
    qid = [10, 10, 10, 10, 10, 20, 20, 30]
    a, b = 1 / math.log2(3), 1 / math.log2(5)
    ndcg10 = [0.0, 0.0, a / (4 + a), (a + 1.5) / (4 + a), (a + 1.5 + b) / (4 + a)] + [0.0] * 5
    # as printed by the script with %.4f
    assert [round(v, 4) for v in ndcg10[:5]] == [0.0, 0.0, 0.1362, 0.4602, 0.5532]
    ndcg30 = [1.0] + [0.0] * 9
    for k in range(1, 11):
        got = metrics.ndcg(y, s, qid, k, convention="letor", per_query=True)
        np.testing.assert_allclose(got, [ndcg10[k - 1], 0.0, ndcg30[k - 1]], rtol=0, atol=1e-15)
        p = metrics.precision(y, s, qid, k, convention="letor", per_query=True)
        rel10 = [0, 0, 1, 2, 3, 3, 3, 3, 3, 3][k - 1]
        np.testing.assert_allclose(p, [rel10 / k, 0.0, 1 / k], rtol=0, atol=1e-15)
    ap = metrics.average_precision(y, s, qid, convention="letor")
    np.testing.assert_allclose(ap, [(1 / 3 + 2 / 4 + 3 / 5) / 3, 0.0, 1.0], rtol=0, atol=1e-15)
    assert round(ap[0], 4) == 0.4778
    mn = metrics.mean_ndcg(y, s, qid, convention="letor", per_query=True)
    np.testing.assert_allclose(mn, [sum(ndcg10[:5]) / 5, 0.0, 1.0], rtol=0, atol=1e-15)
    assert metrics.mean_ndcg(y, s, qid, convention="letor") == pytest.approx((sum(ndcg10[:5]) / 5 + 1) / 3)
    # standard convention on the same query: discount 1/log2(i+1), k truncated to n
    std = metrics.ndcg(y, s, qid, 10, per_query=True)
    idcg = 3 + 1 / math.log2(3) + 1 / 2
    assert std[0] == pytest.approx((1 / 2 + 3 / math.log2(5) + 1 / math.log2(6)) / idcg, abs=1e-15)
    assert std[2] == 1.0
    # pessimistic ties: labels 1 and 0 tied at the top
    assert metrics.precision([1, 0], [1, 1], [1, 1], 1) == 1.0
    assert metrics.precision([1, 0], [1, 1], [1, 1], 1, ties="pessimistic") == 0.0
    # relevance thresholds: label 0.5 is relevant in the standard convention only
    assert metrics.mean_average_precision([0.5, 0], [1, 0], [1, 1]) == 1.0
    assert metrics.mean_average_precision([0.5, 0], [1, 0], [1, 1], convention="letor") == 0.0


def test_err_hand_checked():
    # ranked labels 2, 0, 1 with max grade 2: R = 3/4, 0, 1/4
    y, s, q = [1, 2, 0], [0.1, 0.9, 0.5], [4, 4, 4]
    assert metrics.err(y, s, q) == pytest.approx(3 / 4 + (1 / 4) * (1 / 4) / 3)
    assert metrics.err(y, s, q, 2) == pytest.approx(3 / 4)
    assert metrics.err(y, s, q, max_grade=4) == pytest.approx(3 / 16 + (13 / 16) * (1 / 16) / 3)
    assert metrics.err(y, s, q, convention="letor") == metrics.err(y, s, q)


def test_compute_by_name_and_evaluate():
    y, s, q = [1, 0, 2, 0, 1], [0.5, 0.9, 0.3, 0.8, 0.1], [1, 1, 1, 2, 2]
    assert metrics.compute("NDCG@3", y, s, q) == metrics.ndcg(y, s, q, 3)
    by_name = metrics.compute("map", y, s, q, convention="letor")
    assert by_name == metrics.mean_average_precision(y, s, q, convention="letor")
    assert metrics.compute("precision@2", y, s, q) == metrics.precision(y, s, q, 2)
    np.testing.assert_array_equal(metrics.compute("meanndcg", y, s, q, per_query=True),
                                  metrics.mean_ndcg(y, s, q, per_query=True))
    table = metrics.evaluate(y, s, q, convention="letor")
    assert len(table) == 23
    assert table["P@10"] == metrics.precision(y, s, q, 10, convention="letor")
    assert table["ERR"] == metrics.err(y, s, q)
    per = metrics.evaluate(y, s, q, per_query=True, ks=[2])
    assert per["NDCG@2"].shape == (2,)


# --------------------------------------------------------------------------------------
# Real data: MQ2008 with LETOR conventions.
# --------------------------------------------------------------------------------------


def _load(path):
    from sklearn.datasets import load_svmlight_file

    X, y, qid = load_svmlight_file(str(path), query_id=True)
    return X.toarray(), y, qid


def test_mq2008_feature_scores_match_naive():
    X, y, qid = _load(shared_path("MQ2008", "Fold1", "vali.txt"))
    for j in (0, 11, 39):  # raw features with many ties (zeros)
        for conv in ("standard", "letor"):
            for measure, k in [("ndcg", 10), ("p", 10), ("ap", None), ("meanndcg", None)]:
                np.testing.assert_allclose(fast(measure, y, X[:, j], qid, k, conv),
                                           naive(measure, y, X[:, j], qid, k, conv), rtol=0, atol=1e-12)


def test_mq2008_rankrls_reproduces_published_table():
    """RankRLS (ridge on query-centred data) on all 46 features, alpha in 2^-10..2^10
    chosen per fold by validation MAP, reproduces the greedy RankRLS paper's RankRLS row
    (Tables 7-10) with the LETOR conventions."""
    shared_path("MQ2008", "Fold1", "train.txt")
    from rankselect import center_by_query

    res = {"MAP": [], "P@10": [], "MeanNDCG": [], "NDCG@10": []}
    for fold in range(1, 6):
        Xt, yt, qt = _load(shared_path("MQ2008", f"Fold{fold}", "train.txt"))
        Xv, yv, qv = _load(shared_path("MQ2008", f"Fold{fold}", "vali.txt"))
        Xs, ys, qs = _load(shared_path("MQ2008", f"Fold{fold}", "test.txt"))
        Xc, yc = center_by_query(Xt, qt), center_by_query(yt, qt)
        G, b = Xc.T @ Xc, Xc.T @ yc
        best = None
        for e in range(-10, 11):
            w = np.linalg.solve(G + 2.0 ** e * np.eye(G.shape[0]), b)
            v = metrics.mean_average_precision(yv, Xv @ w, qv, convention="letor")
            if best is None or v > best[0]:
                best = (v, w)
        table = metrics.evaluate(ys, Xs @ best[1], qs, convention="letor")
        for key in res:
            res[key].append(table[key])
    got = {key: round(float(np.mean(v)), 4) for key, v in res.items()}
    assert got == {"MAP": 0.4719, "P@10": 0.2477, "MeanNDCG": 0.4838, "NDCG@10": 0.2268}


# --------------------------------------------------------------------------------------
# Bad inputs: clear errors that name the argument.
# --------------------------------------------------------------------------------------

Y, S, Q = [1, 0, 2], [0.1, 0.2, 0.3], [1, 1, 2]


@pytest.mark.parametrize("call, match", [
    (lambda: metrics.ndcg(Y, S[:2], Q), "scores"),
    (lambda: metrics.ndcg(Y, S, Q[:2]), "qid"),
    (lambda: metrics.ndcg(Y, [0.1, np.nan, 0.3], Q), "scores"),
    (lambda: metrics.ndcg([1, np.inf, 0], S, Q), "y"),
    (lambda: metrics.ndcg([1, -1, 0], S, Q), "y"),
    (lambda: metrics.ndcg(Y, S, [1, 1.5, 2]), "qid"),
    (lambda: metrics.ndcg([], [], []), "y"),
    (lambda: metrics.ndcg(np.ones((3, 2)), S, Q), "y"),
    (lambda: metrics.ndcg(Y, S, Q, 0), "k"),
    (lambda: metrics.ndcg(Y, S, Q, -2), "k"),
    (lambda: metrics.ndcg(Y, S, Q, 2.5), "k"),
    (lambda: metrics.ndcg(Y, S, Q, True), "k"),
    (lambda: metrics.precision(Y, S, Q, None), "k"),
    (lambda: metrics.precision(Y, S, Q, "5"), "k"),
    (lambda: metrics.err(Y, S, Q, 0), "k"),
    (lambda: metrics.ndcg(Y, S, Q, convention="trec_eval"), "convention"),
    (lambda: metrics.ndcg(Y, S, Q, convention=None), "convention"),
    (lambda: metrics.precision(Y, S, Q, 3, ties="random"), "ties"),
    (lambda: metrics.mean_ndcg(Y, S, Q, ties=1), "ties"),
    (lambda: metrics.err(Y, S, Q, max_grade=1), "max_grade"),
    (lambda: metrics.err(Y, S, Q, max_grade=np.nan), "max_grade"),
    (lambda: metrics.compute("ndcg@0", Y, S, Q), "metric"),
    (lambda: metrics.compute("recall@5", Y, S, Q), "metric"),
    (lambda: metrics.compute(5, Y, S, Q), "metric"),
    (lambda: metrics.evaluate(Y, S, Q, ks=[1, 0]), "ks"),
    (lambda: metrics.evaluate(Y, S, Q, convention="x"), "convention"),
])
def test_bad_inputs_raise_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_bad_types_raise_type_error():
    with pytest.raises(TypeError, match="y"):
        metrics.ndcg(["a", "b", "c"], S, Q)
    with pytest.raises(TypeError, match="qid"):
        metrics.ndcg(Y, S, ["a", "b", "c"])
