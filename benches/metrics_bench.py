"""Benchmark: rankselect.metrics vs pytrec_eval (trec_eval) and a vectorised NumPy baseline.

    python benches/metrics_bench.py [--repeat 5] [--synthetic-queries 20000]

Data: MQ2008 (S1..S5, 15211 rows, 784 queries; scores = a random linear model) when
../shared/data is present, and a synthetic set (graded labels 0..4, 50 documents per
query on average). Each timing is the median over --repeat runs; the ratios are
(other tool's median) / (rankselect's median), measured in the same run.

- "NDCG@10": rankselect.metrics.ndcg(k=10) vs pytrec_eval {"ndcg_cut_10"} vs NumPy.
- "MAP": mean_average_precision vs pytrec_eval {"map"} vs NumPy.
- "table": rankselect.metrics.evaluate (MAP, NDCG@1..10, P@1..10, MeanNDCG, ERR) vs
  pytrec_eval {"map", "P", "ndcg_cut"} (MAP, P@5..1000, NDCG@5..1000).
pytrec_eval needs dicts: its times are given with the dict construction from the arrays
("+dicts", what a user with arrays pays) and without it (evaluate() only).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from rankselect import metrics

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"


def timeit(fn, repeat):
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


# ---- vectorised NumPy baseline (standard convention, stable ties) --------------------

def _ranked(y, s, qid):
    """Labels in ranked order and the 1-based rank of each, grouped by query."""
    order = np.lexsort((np.arange(len(s)), -s, qid))  # query, score desc, input order
    q = qid[order]
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    sizes = np.diff(np.r_[starts, len(q)])
    rank = np.arange(len(q)) - np.repeat(starts, sizes) + 1
    return y[order], rank, starts, sizes


def numpy_ndcg(y, s, qid, k):
    yr, rank, starts, sizes = _ranked(y, s, qid)
    keep = rank <= k
    disc = np.where(keep, (2.0 ** yr - 1) / np.log2(rank + 1), 0.0)
    dcg = np.add.reduceat(disc, starts)
    yi, rank_i, starts_i, _ = _ranked(y, y, qid)  # ideal: sort by label
    disc_i = np.where(rank_i <= k, (2.0 ** yi - 1) / np.log2(rank_i + 1), 0.0)
    idcg = np.add.reduceat(disc_i, starts_i)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(idcg > 0, dcg / idcg, 0.0).mean()


def numpy_map(y, s, qid):
    yr, rank, starts, sizes = _ranked(y, s, qid)
    rel = (yr > 0).astype(float)
    csum = np.cumsum(rel)
    before = np.repeat(csum[starts] - rel[starts], sizes)
    hits = csum - before
    prec = np.where(rel > 0, hits / rank, 0.0)
    n_rel = np.add.reduceat(rel, starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_rel > 0, np.add.reduceat(prec, starts) / n_rel, 0.0).mean()


# ---- pytrec_eval ----------------------------------------------------------------------

def to_dicts(y, s, qid):
    qrels, run = {}, {}
    for i, (q, lab, sc) in enumerate(zip(qid.tolist(), y.tolist(), s.tolist())):
        qs = str(q)
        qrels.setdefault(qs, {})[str(i)] = int(lab)
        run.setdefault(qs, {})[str(i)] = sc
    return qrels, run


def bench_set(name, y, s, qid, repeat, pytrec_eval):
    rows = []
    # sanity: the three tools agree where definitions coincide (no ties in s)
    nd = metrics.ndcg(y, s, qid, 10)
    npd = numpy_ndcg(y, s, qid, 10)
    assert abs(nd - npd) < 1e-9, (nd, npd)
    assert abs(metrics.mean_average_precision(y, s, qid) - numpy_map(y, s, qid)) < 1e-9
    cases = {
        "NDCG@10": (lambda: metrics.ndcg(y, s, qid, 10), lambda: numpy_ndcg(y, s, qid, 10), {"ndcg_cut_10"}),
        "MAP": (lambda: metrics.mean_average_precision(y, s, qid), lambda: numpy_map(y, s, qid), {"map"}),
        "table": (lambda: metrics.evaluate(y, s, qid), None, {"map", "P", "ndcg_cut"}),
    }
    for case, (ours, numpy_fn, measures) in cases.items():
        t_ours, _ = timeit(ours, repeat)
        row = {"set": name, "case": case, "rankselect_ms": 1e3 * t_ours}
        if numpy_fn is not None:
            t_np, _ = timeit(numpy_fn, repeat)
            row["numpy_ratio"] = t_np / t_ours
        if pytrec_eval is not None:
            qrels, run = to_dicts(y, s, qid)
            ev = pytrec_eval.RelevanceEvaluator(qrels, measures)
            t_eval, res = timeit(lambda: ev.evaluate(run), repeat)
            if case == "MAP":  # same values (trec_eval's NDCG gain is linear: no check there)
                theirs = {int(q): r["map"] for q, r in res.items()}
                ours_pq = metrics.mean_average_precision(y, s, qid, per_query=True)
                first = list(dict.fromkeys(qid.tolist()))
                # skip near-ties: pytrec_eval appears to store scores in single precision
                near = {q for q in first if np.diff(np.sort(s[qid == q])).min(initial=1.0) < 1e-5}
                diffs = [abs(ours_pq[i] - theirs[q]) for i, q in enumerate(first) if q in theirs and q not in near]
                assert max(diffs) < 1e-9, max(diffs)

            def full():
                qr, rn = to_dicts(y, s, qid)
                return pytrec_eval.RelevanceEvaluator(qr, measures).evaluate(rn)

            t_full, _ = timeit(full, repeat)
            row["pytrec_eval_ratio"] = t_eval / t_ours
            row["pytrec_eval+dicts_ratio"] = t_full / t_ours
        rows.append(row)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--synthetic-queries", type=int, default=20000)
    args = ap.parse_args(argv)
    try:
        import pytrec_eval
    except ImportError:  # pragma: no cover
        pytrec_eval = None
        print("pytrec_eval not installed: comparing with NumPy only", file=sys.stderr)
    rng = np.random.default_rng(0)
    sets = []
    if (SHARED / "MQ2008").exists():
        from sklearn.datasets import load_svmlight_file

        parts = [load_svmlight_file(str(SHARED / "MQ2008" / f"S{i}.txt"), query_id=True) for i in range(1, 6)]
        X = np.vstack([p[0].toarray() for p in parts])
        y = np.concatenate([p[1] for p in parts])
        qid = np.concatenate([p[2] for p in parts]).astype(np.int64)
        s = X @ rng.standard_normal(X.shape[1]) + 1e-9 * rng.standard_normal(len(y))  # no ties
        sets.append(("MQ2008 (15211 rows, 784 queries)", y, s, qid))
    n_q = args.synthetic_queries
    sizes = rng.integers(1, 100, n_q)
    qid = np.repeat(np.arange(n_q, dtype=np.int64), sizes)
    y = rng.integers(0, 5, len(qid)).astype(float)
    s = y + 2 * rng.standard_normal(len(qid))
    sets.append((f"synthetic ({len(qid)} rows, {n_q} queries)", y, s, qid))

    print("| data | metric | rankselect (ms) | pytrec_eval / rankselect | pytrec_eval+dicts / rankselect "
          "| NumPy / rankselect |")
    print("|---|---|---:|---:|---:|---:|")
    for name, y, s, qid in sets:
        for r in bench_set(name, y, s, qid, args.repeat, pytrec_eval):
            fmt = lambda key: f"{r[key]:.1f}x" if key in r else "-"  # noqa: E731
            print(f"| {r['set']} | {r['case']} | {r['rankselect_ms']:.2f} | {fmt('pytrec_eval_ratio')} | "
                  f"{fmt('pytrec_eval+dicts_ratio')} | {fmt('numpy_ratio')} |")


if __name__ == "__main__":
    main()
