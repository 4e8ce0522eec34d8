"""Bitwise check of the SIMD dispatch levels: every kernel gives the same bytes at each level.

Runs, in one subprocess per level (``RANKSELECT_SIMD`` set to each level this CPU has, from
``rankselect._core.simd_levels()``), greedy RankRLS (selection, LQO scores, coef_path; the
squared and an NDCG criterion; on planted exact ties too), Kendall similarity (tau-b, Geng), the metrics,
the cascade grid, single-feature importance, per-query centring, the pairwise squared hinge (value,
gradient, Hessian products), RankSVM, sparse RankSVM, RankRLS, the kernel maps and the LETOR parser on a generated file,
on synthetic data and, when ``../shared/data`` has it, MQ2008 Fold1 train. Each result's
SHA-256 is compared across levels; the exit status is 1 on any difference::

    python benches/simd_bitwise.py                  # every level this CPU has
    python benches/simd_bitwise.py --save h.json    # also write the hashes
    python benches/simd_bitwise.py --compare h.json # and compare with another build's

``--pythonpath DIR`` runs another build (``DIR/rankselect``), e.g. a wheel of main unpacked
there, to check that results did not move between builds.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _h(*arrays) -> str:
    """SHA-256 of the arrays' dtypes, shapes and bytes."""
    d = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a))
        d.update(f"{a.dtype.str}{a.shape}".encode())
        d.update(a.tobytes())
    return d.hexdigest()


def synthetic(seed: int = 0):
    """Queries of 1 to 130 documents, grades 0-4, rounded features (ties), one constant column."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 131, size=60)
    qid = np.repeat(np.arange(sizes.size), sizes)
    rng.shuffle(qid)
    m = qid.size
    X = rng.standard_normal((m, 23))
    X[:, :6] = np.round(X[:, :6], 1)
    X[:, 7] = 3.0
    y = np.clip(np.round(X[:, 0] - X[:, 3] + rng.standard_normal(m)), 0, 4)
    return X, y, qid


def planted_ties(seed: int = 3):
    """Exact ties (issue 46): features vary within one query only (every subset has the same
    LQO value), and labels vary within that query only (every held-out score of a ranking
    measure is an exact tie)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 40, size=30)
    qid = np.repeat(np.arange(sizes.size), sizes)
    X = np.repeat(rng.standard_normal((sizes.size, 12)), sizes, axis=0)
    y = np.repeat(rng.integers(0, 3, sizes.size), sizes).astype(float)
    rows = qid == int(np.argmax(sizes))
    X[rows] = rng.standard_normal((int(rows.sum()), 12))
    y[rows] = rng.integers(0, 4, int(rows.sum()))
    return X, y, qid


def tie_workloads(rs) -> dict[str, str]:
    """Greedy RankRLS on :func:`planted_ties` (the choice of exact ties, their values)."""
    X, y, qid = planted_ties()
    out = {}
    for crit in ("squared", "ndcg@3"):
        g = rs.GreedyRankRLS(n_features_to_select=5, alpha=0.5, criterion=crit).fit(X, y, qid)
        out[f"ties/greedy[{crit}]"] = _h(g.selected_features_, g.lqo_scores_, g.coef_path_)
    return out


def workloads(rs, X, y, qid, tag: str) -> dict[str, str]:
    """Hashes of every kernel's results on one data set."""
    from rankselect import _core

    out: dict[str, str] = {}
    n = X.shape[1]
    k = min(8, n)
    for crit in ("squared", "ndcg@10"):
        g = rs.GreedyRankRLS(n_features_to_select=k, alpha=0.5, criterion=crit).fit(X, y, qid)
        out[f"{tag}/greedy[{crit}]"] = _h(g.selected_features_, g.lqo_scores_, g.coef_path_)
    # a nearly duplicated column at the smallest alpha: ill-conditioned prefixes, whose weights
    # are solved by QR on the data (issue 46)
    Xd = np.array(X, dtype=float)
    Xd[:, 1] = Xd[:, 0] + 1e-6 * Xd[:, 2]
    g = rs.GreedyRankRLS(n_features_to_select=k, alpha=1e-8).fit(Xd, y, qid)
    out[f"{tag}/greedy[collinear, alpha 1e-8]"] = _h(g.selected_features_, g.lqo_scores_, g.coef_path_)
    for variant in ("tau_b", "geng"):
        out[f"{tag}/kendall[{variant}]"] = _h(rs.kendall_similarity(X, qid, variant))
    s = X @ np.linspace(-1, 1, n)
    out[f"{tag}/metrics"] = _h(*(rs.metrics.compute(name, y, s, qid, per_query=True)
                                   for name in ("ndcg@10", "ndcg", "p@5", "map", "err@10")))
    # the cascade grid: two phase-1 rankers (rounded: ties), the features as phase 2, windows
    # 1 to 1000
    starts = np.unique(np.asarray(qid), return_index=True)[1]
    off = np.append(np.sort(starts), len(y)).astype(np.uintp)
    s1 = np.round(np.stack([s, X @ np.linspace(1, -1, n)]), 1)
    s2 = np.ascontiguousarray(np.asarray(X, dtype=float).T)
    p1, wins = (np.arange(n) % 2).astype(np.uintp), np.resize([1, 10, 50, 1000], n).astype(np.uintp)
    specs = (("ndcg@10", "exponential", "stable"), ("ndcg@10", "letor", "pessimistic"), ("err@10", "trec", "stable"))
    for spec in specs:
        out[f"{tag}/cascade_grid[{spec[0]}, {spec[2]}]"] = _h(*_core.cascade_grid_per_query(
            spec, np.asarray(y, dtype=float), off, s1, s2, p1, wins))
    imp = rs.feature_importance(X, y, qid, measure="ndcg@10")
    out[f"{tag}/importance"] = _h(imp.importance, imp.directions)
    out[f"{tag}/pairwise_accuracy"] = _h(*rs.selection.importance.pairwise_accuracy(X, y, qid))
    out[f"{tag}/center"] = _h(rs.center_by_query(X, qid))
    w = np.linspace(0.3, -0.2, n)
    v, grad = rs.models.pairwise.squared_hinge(X, y, qid, w)
    hessp = rs.models.pairwise.squared_hinge_hessp(X, y, qid, w, w[::-1].copy())
    out[f"{tag}/squared_hinge"] = _h(np.float64(v), grad, hessp)
    out[f"{tag}/ranksvm"] = _h(rs.RankSVM(C=0.1).fit(X, y, qid).coef_)
    out[f"{tag}/sparse_ranksvm"] = _h(rs.SparseRankSVM(C=0.5).fit(X, y, qid).coef_)
    out[f"{tag}/sparse_ranksvm[log]"] = _h(rs.SparseRankSVM(C=0.5, penalty="log").fit(X, y, qid).coef_)
    out[f"{tag}/rankrls"] = _h(rs.RankRLS(alpha=[0.1, 1.0, 10.0]).fit(X, y, qid).coef_)
    Z = X[:300]
    out[f"{tag}/nystroem"] = _h(rs.Nystroem(n_components=40, random_state=0).fit(Z).transform(Z))
    out[f"{tag}/rff"] = _h(rs.RandomFourierFeatures(gamma=0.1, n_components=64, random_state=0).fit(Z).transform(Z))
    return out


def parser_file(path: Path, seed: int = 1) -> None:
    """A LETOR file with varied number spellings (integers, exponents, long mantissas)."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        for q in range(200):
            for _ in range(int(rng.integers(1, 40))):
                # powers of ten by exact integers and one IEEE division: NumPy's own ``**`` may use
                # the CPU's vector math (SVML on AVX-512), which would change the file itself
                scale = np.array([10.0**e if e >= 0 else 1.0 / 10.0**-e for e in rng.integers(-8, 8, size=30).tolist()])
                vals = rng.standard_normal(30) * scale
                spell = [repr(float(v)) if j % 3 == 0 else f"{v:.6g}" if j % 3 == 1 else f"{v:.17e}"
                         for j, v in enumerate(vals)]
                feats = " ".join(f"{j + 1}:{t}" for j, t in enumerate(spell) if rng.random() > 0.1)
                f.write(f"{int(rng.integers(0, 3))} qid:{q + 17} {feats} # doc\n")


def child() -> None:
    import rankselect as rs
    from rankselect import _core

    X, y, qid = synthetic()
    out = workloads(rs, X, y, qid, "synthetic")
    out.update(tie_workloads(rs))
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "gen.txt"
        parser_file(p)
        out["parser-input"] = hashlib.sha256(p.read_bytes()).hexdigest()  # the same file everywhere
        d = rs.load_letor(p)
        out["parser"] = _h(d.X, d.y, d.qid)
    mq = DATA / "MQ2008" / "Fold1" / "train.txt"
    if mq.exists():
        d = rs.load_letor(mq)
        out.update(workloads(rs, d.X, d.y, d.qid, "mq2008"))
    level = _core.simd_level() if hasattr(_core, "simd_level") else "(no dispatch)"
    print(json.dumps({"level": level, "hashes": out}))


def run_level(level: str | None, pythonpath: str | None) -> dict:
    env = dict(os.environ)
    env.pop("RANKSELECT_SIMD", None)
    if level is not None:
        env["RANKSELECT_SIMD"] = level
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"level {level}: the run failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--levels", help="comma-separated levels (default: every level this CPU has)")
    ap.add_argument("--pythonpath", help="run the build whose rankselect package is in this folder")
    ap.add_argument("--save", help="write the hashes (JSON) here")
    ap.add_argument("--compare", help="also compare with hashes saved by --save (another build)")
    args = ap.parse_args()
    if args.child:
        child()
        return 0
    if args.levels:
        levels: list[str | None] = list(args.levels.split(","))
    else:
        probe = subprocess.run([sys.executable, "-c", "from rankselect import _core; "
                                "print(','.join(getattr(_core, 'simd_levels', lambda: [''])()))"],
                               env={**os.environ, "PYTHONPATH": args.pythonpath or os.environ.get("PYTHONPATH", "")},
                               capture_output=True, text=True, check=True)
        levels = [lv or None for lv in probe.stdout.strip().split(",")]
    runs = {str(lv): run_level(lv, args.pythonpath) for lv in levels}
    ref_name, ref = next(iter(runs.items()))
    if args.compare:
        runs["saved:" + args.compare] = {"level": "saved", "hashes": json.loads(Path(args.compare).read_text())}
    bad = 0
    names = list(ref["hashes"])
    print(f"{'kernel':36s} " + " ".join(f"{n[:14]:>14s}" for n in runs))
    for name in names:
        cells = []
        for run in runs.values():
            h = run["hashes"].get(name)
            same = h == ref["hashes"][name]
            bad += h is not None and not same
            cells.append("-" if h is None else ("same" if same else "DIFFERENT") + " " + h[:8])
        print(f"{name:36s} " + " ".join(f"{c:>14s}" for c in cells))
    print(f"levels run: {', '.join(r['level'] for r in runs.values())}; reference: {ref_name}")
    if args.save:
        Path(args.save).write_text(json.dumps(ref["hashes"], indent=1))
    print("OK: bit-identical" if not bad else f"FAILED: {bad} result(s) differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
