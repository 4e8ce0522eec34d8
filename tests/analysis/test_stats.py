"""rankselect.analysis.stats: paired tests, Holm, effect sizes, TREC run / qrels / per-query export."""
from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats as sps

from rankselect import metrics
from rankselect.analysis.stats import (
    compare,
    compare_experiment,
    docnos_from_comments,
    effect_size,
    experiment_per_query_rows,
    holm,
    paired_test,
    write_per_query,
    write_trec_qrels,
    write_trec_run,
)


def test_randomization_test_exact_by_hand():
    a = np.array([0.5, 0.7, 0.2, 0.9, 0.4])
    b = np.array([0.4, 0.5, 0.3, 0.6, 0.1])
    d = a - b
    flips = np.array(list(itertools.product([-1, 1], repeat=5)))
    means = (flips * d).mean(axis=1)
    p_two = np.mean(np.abs(means) >= abs(d.mean()) - 1e-12)
    p_greater = np.mean(means >= d.mean() - 1e-12)
    r = paired_test(a, b, "randomization")
    assert r.statistic == pytest.approx(d.mean())
    assert r.pvalue == pytest.approx(p_two)
    assert paired_test(a, b, "randomization", alternative="greater").pvalue == pytest.approx(p_greater)


def test_randomization_sampled_close_to_t_and_reproducible():
    rng = np.random.default_rng(0)
    a, b = rng.random(60), rng.random(60) - 0.1
    r1 = paired_test(a, b, n_resamples=4000, random_state=1)
    r2 = paired_test(a, b, n_resamples=4000, random_state=1)
    assert r1.pvalue == r2.pvalue
    assert r1.pvalue == pytest.approx(sps.ttest_rel(a, b).pvalue, abs=0.03)


def test_wilcoxon_and_t_match_scipy():
    rng = np.random.default_rng(2)
    a, b = rng.random(30), rng.random(30)
    for alt in ("two-sided", "greater", "less"):
        w = paired_test(a, b, "wilcoxon", alternative=alt)
        ref = sps.wilcoxon(a, b, alternative=alt)
        assert (w.statistic, w.pvalue) == pytest.approx((ref.statistic, ref.pvalue))
        t = paired_test(a, b, "t", alternative=alt)
        ref = sps.ttest_rel(a, b, alternative=alt)
        assert (t.statistic, t.pvalue) == pytest.approx((ref.statistic, ref.pvalue))
    same = paired_test(a, a, "wilcoxon")
    assert (same.statistic, same.pvalue) == (0.0, 1.0)
    with pytest.raises(ValueError, match="test must be"):
        paired_test(a, b, "sign")
    with pytest.raises(ValueError, match="same queries"):
        paired_test(a, b[:-1])


def test_holm_by_hand():
    # sorted: .005*4=.02, .01*3=.03, .03*2=.06, .04*1=.04 -> running max .06
    assert holm([0.01, 0.04, 0.03, 0.005]).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]).tolist() == [1.0, 1.0]
    with pytest.raises(ValueError):
        holm([1.5])


def test_effect_size_by_hand():
    a, b = np.array([2.0, 4.0, 6.0]), np.array([1.0, 2.0, 3.0])  # d = 1, 2, 3
    e = effect_size(a, b, random_state=0, n_resamples=500)
    half = sps.t.ppf(0.975, 2) / np.sqrt(3)
    assert e.mean_diff == 2.0 and e.d_z == pytest.approx(2.0)
    assert e.diff_ci == pytest.approx((2 - half, 2 + half))
    assert e.d_z_ci[0] <= e.d_z_ci[1]


def test_compare_applies_holm():
    rng = np.random.default_rng(5)
    base = rng.random(40)
    per_query = {"base": base, "better": base + 0.2 + 0.05 * rng.random(40), "same": base + 0.01 * rng.normal(size=40)}
    c = compare(per_query, "base", test="t", random_state=0)
    rows = {r["method"]: r for r in c.rows}
    raw = [sps.ttest_rel(per_query[m], base).pvalue for m in ("better", "same")]
    adj = holm(raw)
    assert rows["better"]["pvalue_adjusted"] == pytest.approx(adj[0])
    assert rows["same"]["pvalue_adjusted"] == pytest.approx(adj[1])
    assert rows["better"]["significant"] and rows["better"]["diff_ci"][0] > 0.2
    assert "| better |" in c.to_markdown()
    with pytest.raises(ValueError, match="baseline"):
        compare(per_query, "nope")


def _fake_result():
    def fold(a, b, q):
        return {"A": SimpleNamespace(per_query={"AP": np.array(a), "NDCG@10": np.array(a)}, test_qids=np.array(q)),
                "B": SimpleNamespace(per_query={"AP": np.array(b), "NDCG@10": np.array(b)}, test_qids=np.array(q))}

    return SimpleNamespace(methods=["A", "B"], folds=[fold([0.5, 0.6], [0.4, 0.5], [1, 2]),
                                                      fold([0.7, 0.2], [0.5, 0.1], [3, 4])])


def test_compare_experiment_pools_folds(tmp_path):
    res = _fake_result()
    c = compare_experiment(res, "B", metric="MAP", test="t")
    assert c.n_queries == 4
    assert c.rows[0]["pvalue"] == pytest.approx(sps.ttest_rel([0.5, 0.6, 0.7, 0.2], [0.4, 0.5, 0.5, 0.1]).pvalue)
    per, qids = experiment_per_query_rows(res)
    p = write_per_query(tmp_path / "pq.tsv", per, qids)
    pd = pytest.importorskip("pandas")
    t = pd.read_csv(p, sep="\t", dtype={"qid": str})
    assert set(t.columns) == {"run", "measure", "qid", "value"}
    row = t[(t.run == "A") & (t.measure == "AP") & (t.qid == "3")]
    assert row.value.item() == 0.7
    assert t[(t.run == "B") & (t.measure == "AP") & (t.qid == "all")].value.item() == pytest.approx(0.375)


def test_trec_run_and_qrels_evaluate_the_same_in_pytrec_eval(tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(3)
    qid = np.repeat([7, 3, 11], [6, 9, 5])
    rng.shuffle(qid)  # queries not contiguous
    y = rng.integers(0, 3, size=qid.size).astype(float)
    scores = rng.normal(size=qid.size)
    run = write_trec_run(tmp_path / "run.txt", qid, scores, run_name="mine")
    qrels = write_trec_qrels(tmp_path / "qrels.txt", qid, y)
    first = run.read_text().splitlines()[0].split()
    assert first[1] == "Q0" and first[3] == "1" and first[5] == "mine"
    with open(run) as f:
        r = pytrec_eval.parse_run(f)
    with open(qrels) as f:
        q = pytrec_eval.parse_qrel(f)
    ev = pytrec_eval.RelevanceEvaluator(q, {"map", "P_5"}).evaluate(r)
    ours = metrics.average_precision(y, scores, qid)
    ids = list(dict.fromkeys(qid.tolist()))
    for i, qq in enumerate(ids):
        assert ev[str(qq)]["map"] == pytest.approx(ours[i])
    p5 = metrics.precision(y, scores, qid, k=5, per_query=True)
    assert [ev[str(qq)]["P_5"] for qq in ids] == pytest.approx(p5.tolist())


def test_docnos_and_bad_input(tmp_path):
    assert docnos_from_comments(["docid = GX001-02 inc = 1 prob = 0.2", "docid=GX9"]) == ["GX001-02", "GX9"]
    with pytest.raises(ValueError, match="row 1"):
        docnos_from_comments(["docid = a", "inc = 1"])
    with pytest.raises(ValueError, match="twice"):
        write_trec_run(tmp_path / "r", [1, 1], [0.1, 0.2], docnos=["a", "a"])
    with pytest.raises(ValueError, match="whitespace"):
        write_trec_run(tmp_path / "r", [1, 1], [0.1, 0.2], docnos=["a b", "c"])
    with pytest.raises(ValueError, match="integers"):
        write_trec_qrels(tmp_path / "q", [1, 1], [0.5, 1])


def test_effect_size_constant_differences_are_infinite_not_noise():
    # #35 item 6: differences all 0.4 up to rounding gave d_z = 8.8e15 with CI (0, 1.25e16)
    rng = np.random.default_rng(3)
    b = rng.uniform(size=50)
    a = b + 0.4
    assert np.std(a - b, ddof=1) > 0  # rounding noise, not exact zero
    with pytest.warns(RuntimeWarning, match="constant up to rounding"):
        e = effect_size(a, b, random_state=0, n_resamples=200)
    assert e.d_z == np.inf and e.d_z_ci == (np.inf, np.inf)
    with pytest.warns(RuntimeWarning, match="constant up to rounding"):
        assert effect_size(b, a, random_state=0, n_resamples=200).d_z == -np.inf
    zero = effect_size(b, b.copy(), random_state=0, n_resamples=200)
    assert zero.d_z == 0.0 and zero.d_z_ci == (0.0, 0.0)
