"""Group greedy RankRLS fit times back to back and right after other single-threaded work (issue
46, item 7): the condition of ``group_greedy_bench.py``, whose group greedy runs right after the
NumPy refits. A kernel's parallel sections used to sleep the calling thread, and after such work
the pool's threads often shared one core while the caller's idled (``rankselect_core::par``).

    PYTHONPATH=python RAYON_NUM_THREADS=2 python benches/greedy_after_work.py [--fits 25]

Prints, per condition, the median and minimum wall time of a fit and its median CPU time (every
thread's): back to back; after 130 ms of NumPy solves on one thread; after them on two threads.
Compare builds by alternating runs with ``PYTHONPATH`` pointing at each build's package.
"""
from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

import rankselect as rs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/shared/data")
    ap.add_argument("--fits", type=int, default=25)
    args = ap.parse_args()
    d = rs.load_letor(Path(args.data) / "MQ2008" / "Fold1" / "train.txt")
    order = np.argsort(d.qid, kind="stable")
    X, y, qid = np.asarray(d.X)[order], np.asarray(d.y)[order], np.asarray(d.qid)[order]
    groups = rs.data.datasets.feature_layout("letor4", by="stream")
    A = np.random.default_rng(0).random((400, 400))

    def fit():
        rs.GreedyRankRLS(n_features_to_select=5, alpha=1.0, feature_groups=groups).fit(X, y, qid=qid)

    def busy(ms: float) -> None:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < ms / 1e3:
            np.linalg.solve(A, A)

    def busy_both(ms: float) -> None:
        other = threading.Thread(target=busy, args=(ms,))
        other.start()
        busy(ms)
        other.join()

    with threadpool_limits(1, "blas"):
        for _ in range(5):
            fit()
        conditions = (("back to back", None), ("after NumPy, 1 core", busy), ("after NumPy, 2 cores", busy_both))
        for name, before in conditions:
            wall, cpu = [], []
            for _ in range(args.fits):
                if before is not None:
                    before(130)
                t0, c0 = time.perf_counter(), time.process_time()
                fit()
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            print(f"{name}: wall median {np.median(wall) * 1e3:.1f} ms [min {min(wall) * 1e3:.1f}], "
                  f"CPU median {np.median(cpu) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
