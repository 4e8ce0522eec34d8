"""LETOR parser benchmark: rankselect.load_letor vs sklearn.datasets.load_svmlight_file.

Generates (once) an MSLR-like file: 136 dense features, 80-160 documents per query, about
``--mb`` megabytes, in ``--data-dir`` (default: a ``rankselect-bench`` folder in the system
temporary directory, so the script runs from an installed wheel without the repository's
data). Then, in one run:

* checks once that both loaders give bit-identical arrays;
* times scikit-learn's ``load_svmlight_file(path, query_id=True)`` (the anchor,
  single-threaded; median of ``--repeat`` runs, ``.toarray()`` not counted);
* times ``rankselect.load_letor(path)`` in a fresh child process for each thread count of
  ``--threads`` (``RAYON_NUM_THREADS``; median of ``--repeat`` runs each), recording wall
  time and the process's CPU time (user + system) of the load.

Reported per thread count: MB/s (wall), MB/s per thread (wall MB/s divided by the thread
count), MB per CPU-second (the parse threads plus rankselect's reader thread, whatever the
machine's load) and the speed-up over scikit-learn. Example::

    python benches/parser_bench.py --mb 250 --threads 1,2,4,8,16 --repeat 5
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

N_FEATURES = 136


def generate(path: Path, target_mb: float, seed: int = 0) -> None:
    """MSLR-like rows: 136 features, a mix of counts (every 5th) and 6-digit scores."""
    rng = np.random.default_rng(seed)
    tmp = path.with_name(path.name + ".tmp")
    size = 0
    q = 0
    line = "%d qid:%d" + "".join(
        f" {j + 1}:%d" if j % 5 == 0 else f" {j + 1}:%.6g" for j in range(N_FEATURES)
    ) + "\n"
    with open(tmp, "w") as f:
        while size < target_mb * 1e6:
            q += 1
            n = int(rng.integers(80, 161))
            X = np.abs(rng.normal(size=(n, N_FEATURES))) * rng.choice([1.0, 10.0, 1000.0], size=N_FEATURES)
            X[:, ::5] = np.floor(X[:, ::5])
            y = rng.integers(0, 5, size=n)
            chunk = "".join(line % (y[i], q, *X[i].tolist()) for i in range(n))
            f.write(chunk)
            size += len(chunk)
    tmp.rename(path)


CHILD = r"""
import json, resource, statistics, sys, time
import rankselect
path, repeat = sys.argv[1], int(sys.argv[2])
rankselect.load_letor(path)  # warm the page cache and the thread pool
wall, cpu = [], []
for _ in range(repeat):
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    data = rankselect.load_letor(path)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    del data
    wall.append(t1 - t0)
    cpu.append(r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
print(json.dumps({"wall": statistics.median(wall), "cpu": statistics.median(cpu)}))
"""


def time_rankselect(path: Path, threads: int, repeat: int) -> dict:
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, "-c", CHILD, str(path), str(repeat)], env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def time_sklearn(path: Path, repeat: int) -> float:
    from sklearn.datasets import load_svmlight_file

    load_svmlight_file(str(path), query_id=True)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        load_svmlight_file(str(path), query_id=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def check_identical(path: Path) -> tuple:
    from sklearn.datasets import load_svmlight_file

    import rankselect

    ours = rankselect.load_letor(path)
    X, y, q = load_svmlight_file(str(path), query_id=True)
    X = X.toarray()
    same = (
        ours.X.shape == X.shape
        and np.array_equal(ours.X.view(np.uint64), X.view(np.uint64))
        and np.array_equal(ours.y.view(np.uint64), y.view(np.uint64))
        and np.array_equal(ours.qid, q)
    )
    if not same:
        raise SystemExit("rankselect.load_letor and load_svmlight_file differ on the benchmark file")
    return ours.X.shape


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=250.0, help="file size in MB (default 250)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement (median reported)")
    ap.add_argument("--threads", default="1,2", help="comma-separated RAYON_NUM_THREADS values (default 1,2)")
    ap.add_argument("--data-dir", default=os.path.join(tempfile.gettempdir(), "rankselect-bench"),
                    help="where the generated file is kept between runs")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",") if t.strip()]
    if not threads or min(threads) < 1:
        ap.error("--threads must list positive integers, e.g. 1,2,4,8,16")

    data_dir = Path(args.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / f"mslr_like_{int(args.mb)}mb.txt"
    if not path.exists():
        t = time.perf_counter()
        generate(path, args.mb)
        print(f"generated {path} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    mb = path.stat().st_size / 1e6
    shape = check_identical(path)

    sk = time_sklearn(path, args.repeat)
    rows = []
    for t in threads:
        r = time_rankselect(path, t, args.repeat)
        rows.append({
            "threads": t,
            "wall_s": r["wall"],
            "cpu_s": r["cpu"],
            "mb_per_s": mb / r["wall"],
            "mb_per_s_per_thread": mb / r["wall"] / t,
            "mb_per_cpu_s": mb / r["cpu"],
            "speedup_vs_sklearn": sk / r["wall"],
        })
    res = {
        "file": str(path), "file_mb": round(mb, 1), "rows": shape[0], "features": shape[1],
        "repeat": args.repeat, "cpu_count": os.cpu_count(),
        "sklearn_s": sk, "sklearn_mb_per_s": mb / sk, "rankselect": rows,
    }
    if args.json:
        print(json.dumps(res, indent=2))
        return
    print(f"file: {path.name}, {mb:.0f} MB, {shape[0]} rows x {shape[1]} features; "
          f"{os.cpu_count()} CPUs; medians of {args.repeat} runs; results bit-identical")
    print(f"anchor: sklearn load_svmlight_file (1 thread, sparse, .toarray() not counted): "
          f"{sk:.2f} s, {mb / sk:.0f} MB/s")
    print()
    print("| threads | wall (s) | MB/s | MB/s per thread | MB per CPU-second | x sklearn |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['threads']} | {r['wall_s']:.3f} | {r['mb_per_s']:.0f} | {r['mb_per_s_per_thread']:.0f} "
              f"| {r['mb_per_cpu_s']:.0f} | {r['speedup_vs_sklearn']:.1f} |")


if __name__ == "__main__":
    main()
