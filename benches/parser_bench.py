"""LETOR parser benchmark: rankselect.load_letor vs sklearn.datasets.load_svmlight_file.

Generates (once) an MSLR-like file in ``benches/out/``: 136 dense features, ~120 documents
per query, about ``--mb`` megabytes, then times both loaders in the same run (median of
``--repeat`` runs each) and prints the ratio. ``--threads`` also times rankselect in child
processes with ``RAYON_NUM_THREADS`` = 1 and 2.

Run with the release build::

    maturin develop --release && python benches/parser_bench.py --mb 250
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "out"


def generate(path: Path, target_mb: float, seed: int = 0) -> None:
    """MSLR-like rows: 136 features, a mix of counts, scores and small floats."""
    rng = np.random.default_rng(seed)
    n_feat = 136
    tmp = path.with_suffix(".tmp")
    size = 0
    q = 0
    line = "%d qid:%d" + "".join(
        f" {j + 1}:%d" if j % 5 == 0 else f" {j + 1}:%.6g" for j in range(n_feat)
    ) + "\n"
    with open(tmp, "w") as f:
        while size < target_mb * 1e6:
            q += 1
            n = int(rng.integers(80, 161))
            X = np.abs(rng.normal(size=(n, n_feat))) * rng.choice([1.0, 10.0, 1000.0], size=n_feat)
            X[:, ::5] = np.floor(X[:, ::5])
            y = rng.integers(0, 5, size=n)
            chunk = "".join(line % (y[i], q, *X[i].tolist()) for i in range(n))
            f.write(chunk)
            size += len(chunk)
    tmp.rename(path)


def time_it(fn, repeat: int) -> list:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return times


def child_time(path: Path, threads: int, repeat: int) -> float:
    code = (
        "import time, statistics, sys, rankselect\n"
        "ts = []\n"
        f"for _ in range({repeat}):\n"
        "    t = time.perf_counter(); rankselect.load_letor(sys.argv[1]); ts.append(time.perf_counter() - t)\n"
        "print(statistics.median(ts))\n"
    )
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, "-c", code, str(path)], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=250.0, help="file size in MB (default 250)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per loader (median reported)")
    ap.add_argument("--threads", action="store_true", help="also time RAYON_NUM_THREADS=1 and 2")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    import rankselect
    from sklearn.datasets import load_svmlight_file

    OUT.mkdir(exist_ok=True)
    path = OUT / f"mslr_like_{int(args.mb)}mb.txt"
    if not path.exists():
        t = time.perf_counter()
        generate(path, args.mb)
        print(f"generated {path} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    mb = path.stat().st_size / 1e6

    ours = rankselect.load_letor(path)
    X, y, q = load_svmlight_file(str(path), query_id=True)
    assert np.array_equal(ours.X, X.toarray()) and np.array_equal(ours.y, y) and np.array_equal(ours.qid, q)
    del X, y, q
    shape = ours.X.shape
    del ours

    # interleave the two loaders so both see the same machine load
    t_rs, t_sk = [], []
    for _ in range(args.repeat):
        t_rs += time_it(lambda: rankselect.load_letor(path), 1)
        t_sk += time_it(lambda: load_svmlight_file(str(path), query_id=True), 1)
    res = {
        "file_mb": round(mb, 1),
        "rows": shape[0],
        "features": shape[1],
        "repeat": args.repeat,
        "rankselect_s": statistics.median(t_rs),
        "sklearn_s": statistics.median(t_sk),
    }
    res["ratio"] = res["sklearn_s"] / res["rankselect_s"]
    if args.threads:
        res["rankselect_1thread_s"] = child_time(path, 1, args.repeat)
        res["rankselect_2threads_s"] = child_time(path, 2, args.repeat)
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print(f"file: {path.name}, {mb:.0f} MB, {shape[0]} rows x {shape[1]} features")
        print(f"rankselect.load_letor           median {res['rankselect_s']:.2f} s")
        print(f"sklearn load_svmlight_file      median {res['sklearn_s']:.2f} s "
              "(query_id=True, sparse; not counting .toarray())")
        print(f"ratio sklearn / rankselect      {res['ratio']:.1f}x")
        if args.threads:
            print(f"rankselect RAYON_NUM_THREADS=1  median {res['rankselect_1thread_s']:.2f} s")
            print(f"rankselect RAYON_NUM_THREADS=2  median {res['rankselect_2threads_s']:.2f} s")


if __name__ == "__main__":
    main()
