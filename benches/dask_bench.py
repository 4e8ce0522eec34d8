"""Greedy RankRLS on a local Dask cluster: 1, 2, 4 workers on a synthetic MSLR-like set.

    python benches/dask_bench.py [--rows 60000 240000] [--workers 1 2 4] [--k 6] [--repeat 3]

For each row count and number of worker processes (one thread each, one chunk of whole
queries per worker, ~120 documents per query, 136 features):

- time per greedy step: the median time between the ends of consecutive steps (so cluster
  start, shard loading and cache set-up are excluded), median of repeats; in memory:
  (fit with k steps - fit with 1 step) / (k - 1), best of repeats;
- payload bytes per step: the pickled arguments and results of the actor calls of one step
  (client <-> all workers), counted on the client. It is O(n_features x shards) and must not
  grow with the number of rows;
- worker memory: the largest worker RSS at the last step (caches 3 x m_s x n x 8 bytes plus
  the shard itself and the Python/Dask baseline), and the in-memory estimator's time per
  step on the same data for reference.
"""
from __future__ import annotations

import argparse
import os
import pickle
import statistics
import time

import numpy as np

import rankselect as rs
import rankselect.dask as rd
from rankselect.dask.greedy_rankrls import ShardActors


def mslr_like(rows, n=136, docs=120, seed=0):
    rng = np.random.default_rng(seed)
    nq = max(2, rows // docs)
    qid = np.repeat(np.arange(1, nq + 1), docs)[:rows]
    latent = rng.normal(size=(rows, 8))
    X = np.empty((rows, n))
    X[:, :8] = latent
    X[:, 8:] = latent @ rng.normal(size=(8, n - 8)) * 0.3 + rng.normal(size=(rows, n - 8))
    y = np.clip(np.round(latent[:, 0] + 0.5 * latent[:, 1] + rng.normal(size=rows)), 0, 4)
    return X, y, qid


class MeasuredActors(ShardActors):
    """Counts the payload of every round (client <-> all actors) and samples worker memory at
    the last ``add``; writes into ``Measured.log``."""

    def _call_all(self, method, *args):
        out = super()._call_all(method, *args)
        log = Measured.log
        nbytes = len(pickle.dumps(args)) * len(self._actors) + sum(len(pickle.dumps(o)) for o in out)
        log["payload"].append((method, nbytes))
        if method == "add":
            log["step_end"].append(time.perf_counter())
            if len(self._history) == log["k"] - 2:  # the last add of the fit (recorded after the round)
                import psutil

                rss = self._client.run(lambda: psutil.Process().memory_info().rss)
                log["rss"] = max(rss.values())
        return out


class Measured(rd.GreedyRankRLS):
    """Greedy RankRLS on Dask with its rounds measured (``log``)."""

    _actors_class = MeasuredActors
    log: dict = {}

    def fit(self, X, y, qid=None):
        Measured.log = {"payload": [], "step_end": [], "rss": 0, "k": self.n_features_to_select}
        return super().fit(X, y, qid)


def step_payload(payload):
    """Bytes of the second step (scan, cross, add carrying the next step's dots)."""
    steps, cur = [], None
    for method, b in payload:
        if method == "scan":
            cur = []
            steps.append(cur)
        if cur is not None:
            cur.append(b)
    return sum(steps[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="+", default=[60000, 240000])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--k", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    print(f"cores: {os.cpu_count()}, k = {args.k}, median of {args.repeat}")
    print("| rows | workers | s / step | in-memory s / step | payload bytes / step | max worker RSS MiB | "
          "caches per worker MiB |")
    print("|---|---|---|---|---|---|---|")
    for rows in args.rows:
        X, y, qid = mslr_like(rows)
        n = X.shape[1]
        mem = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            rs.GreedyRankRLS(n_features_to_select=1).fit(X, y, qid=qid)
            t1 = time.perf_counter()
            rs.GreedyRankRLS(n_features_to_select=args.k).fit(X, y, qid=qid)
            t2 = time.perf_counter()
            mem.append(((t2 - t1) - (t1 - t0)) / (args.k - 1))
        for w in args.workers:
            with LocalCluster(n_workers=w, threads_per_worker=1, processes=True, host="127.0.0.1",
                              dashboard_address=":0", silence_logs=50) as cluster, Client(cluster) as client:
                Xd, yd, qd = rd.partition_by_query(X, y, qid, n_partitions=w)
                Xd, yd, qd = client.persist([Xd, yd, qd])
                times = []
                for _ in range(args.repeat):
                    Measured(n_features_to_select=args.k).fit(Xd, yd, qd)
                    times.append(statistics.median(np.diff(Measured.log["step_end"])))
                caches = 3 * (rows / w) * n * 8 / 2**20
                print(f"| {rows} | {w} | {statistics.median(times):.3f} | {min(mem):.3f} | "
                      f"{step_payload(Measured.log['payload'])} | {Measured.log['rss'] / 2**20:.0f} | {caches:.0f} |",
                      flush=True)


if __name__ == "__main__":
    main()
