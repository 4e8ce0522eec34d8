"""Streaming kernels of two builds side by side, per SIMD level, with their anchors, interleaved.

Imports each build given with ``--build NAME=DIR`` (``DIR/rankselect``; ``python`` for this
checkout) and, ``--rounds`` times, calls every build in turn on each kernel, then its anchor:

- ``greedy100`` / ``greedy20``: one greedy RankRLS step (median of the steps after the first
  of a ``_core.greedy_rankrls`` run with k = 4), m = 240,000 rows, n = 100, queries of 100 /
  20 documents; anchor: the 6 m n-double bound at the copy bandwidth measured in the same
  round (NumPy ``copyto`` of 512 MiB split over the thread count, best of 3; read + write);
- ``kendall``: tau-b similarity on MQ2008 Fold1 train; anchor: the vectorised NumPy version of
  ``kendall_bench.py`` (every ``--numpy-every`` rounds);
- ``parser``: ``load_letor`` of the 136-feature MSLR-like file of ``parser_bench.py``
  (``--parser-mb`` MB); reported in MB/s;
- ``hinge``: the pairwise squared hinge value and gradient (``rankselect.models.pairwise``) on
  MQ2008 Fold1 train; anchor: NumPy on the explicit pair-difference matrix (``pairwise_bench.py``);
- ``rankrls``: RankRLS's alpha path (``RankRLS.path``, 3 alphas: faer's Gram product,
  eigendecomposition and products), ``--m`` / 4 rows x ``--n`` columns, queries of 20;
- ``sparse``: sparse RankSVM (L1, proximal Newton: faer's Cholesky solves) on MQ2008 Fold1
  train, C = 1. These two compare builds only (no anchor).

One process per thread count and level (the level is fixed per process; the previous build
has none)::

    RANKSELECT_SIMD=avx2 RAYON_NUM_THREADS=1 python benches/simd_interleaved.py --threads 1 \\
        --build main=/tmp/main --build simd=python --rounds 9

Prints one Markdown row per kernel: the medians and, in brackets, the minima of each build, and
each build's ratio to its anchor (step / bound for greedy, NumPy time / build time for Kendall
and the hinge) and to the first build.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
MQ = HERE.parents[0].parent / "shared" / "data" / "MQ2008" / "Fold1" / "train.txt"


def load_build(name: str, root: str):
    """The ``rankselect`` package under ``root`` (``python``: this checkout's), as module ``name``."""
    init = (HERE.parent / "python" if root == "python" else Path(root)) / "rankselect" / "__init__.py"
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def copy_bandwidth(threads: int, src: np.ndarray, dst: np.ndarray, repeat: int = 3) -> float:
    cuts = np.linspace(0, src.size, threads + 1).astype(int)
    best = float("inf")
    with ThreadPoolExecutor(threads) as ex:
        for _ in range(repeat):
            t0 = time.perf_counter()
            list(ex.map(lambda i: np.copyto(dst[cuts[i]:cuts[i + 1]], src[cuts[i]:cuts[i + 1]]), range(threads)))
            best = min(best, time.perf_counter() - t0)
    return 2 * src.nbytes / best


def greedy_data(m: int, n: int, docs: int):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(m, n))
    y = np.clip(np.round(X[:, :10] @ rng.normal(size=10) / 3 + 1 + rng.normal(size=m) * 0.5), 0, 4)
    offsets = np.arange(0, m + 1, docs).astype(np.uintp)
    offsets[-1] = m
    return X, y, offsets


def greedy_step(core, X, y, offsets) -> float:
    stamps: list[float] = []
    t0 = time.perf_counter()
    progress = lambda *a: stamps.append(time.perf_counter())  # noqa: E731
    if hasattr(core, "GreedyOptions"):  # issue #32's binding
        core.greedy_rankrls(X, y, offsets, core.GreedyOptions(4, 1.0), progress)
    else:  # a build before it
        core.greedy_rankrls(X, y, offsets, 4, 1.0, "squared", None, progress)
    return float(np.median(np.diff(np.r_[t0, stamps])[1:]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", action="append", required=True, help="NAME=DIR ('python': this checkout)")
    ap.add_argument("--threads", type=int, default=1, help="NumPy threads (set RAYON_NUM_THREADS alike)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--numpy-every", type=int, default=3, help="time the NumPy anchors every this many rounds")
    ap.add_argument("--kernels", default="greedy100,greedy20,kendall,parser,hinge")
    ap.add_argument("--parser-mb", type=float, default=60.0)
    ap.add_argument("--m", type=int, default=240_000)
    ap.add_argument("--n", type=int, default=100)
    args = ap.parse_args()
    threadpool_limits(args.threads)
    builds = [(n, load_build(n, d)) for n, d in (b.split("=", 1) for b in args.build)]
    sys.modules.setdefault("rankselect", builds[0][1])
    sys.path.insert(0, str(HERE))
    kernels = args.kernels.split(",")
    level = {n: getattr(b._core, "simd_level", lambda: "none")() for n, b in builds}
    t = args.threads
    cases = {}
    if "greedy100" in kernels:
        cases["greedy100"] = greedy_data(args.m, args.n, 100)
    if "greedy20" in kernels:
        cases["greedy20"] = greedy_data(args.m, args.n, 20)
    if "rankrls" in kernels:
        Xr, yr, offr = greedy_data(args.m // 4, args.n, 20)
        qr = np.repeat(np.arange(len(offr) - 1), np.diff(offr.astype(np.int64)))
    if {"kendall", "hinge", "sparse"} & set(kernels):
        d = builds[0][1].load_letor(MQ)
        mq = (d.X, d.y, d.qid)
    if "parser" in kernels:
        import parser_bench

        path = Path("/tmp") / f"rankselect-bench-simd-{args.parser_mb:g}.txt"
        if not path.exists():
            parser_bench.generate(path, args.parser_mb)
        size = path.stat().st_size
    if "kendall" in kernels:
        import kendall_bench as kb
    if "hinge" in kernels:
        X, y, qid = mq
        w = np.linspace(-0.5, 0.5, X.shape[1])
        g = builds[0][1].QueryGroups.from_qid(qid)
        Xg = np.ascontiguousarray(g.gather(X))
        pairs = builds[0][1]._core.preference_pairs(np.ascontiguousarray(g.gather(y)), g.offsets.astype(np.uintp))
        i, j = (pairs[0], pairs[1]) if isinstance(pairs, tuple) else (pairs.i, pairs.j)  # a build before #32: a tuple
        D = Xg[i] - Xg[j]

        def numpy_value_grad(D, w):  # pairwise_bench.py's anchor
            margin = 1.0 - D @ w
            ma = np.where(margin > 0, margin, 0.0)
            return float(ma @ ma), -2.0 * (D.T @ ma)
    src = np.ones((512 << 20) // 8)
    dst = np.zeros_like(src)
    times: dict[tuple[str, str], list[float]] = {}

    def rec(kernel, who, value):
        times.setdefault((kernel, who), []).append(value)

    for r in range(args.rounds):
        anchor = r % args.numpy_every == 0
        for kernel in kernels:
            for name, b in builds:
                t0 = time.perf_counter()
                if kernel.startswith("greedy"):
                    rec(kernel, name, greedy_step(b._core, *cases[kernel]))
                    continue
                if kernel == "kendall":
                    b.kendall_similarity(mq[0], mq[2], variant="tau_b")
                elif kernel == "parser":
                    b.load_letor(path)
                elif kernel == "hinge":
                    b.pairwise.squared_hinge(X, y, qid, w)
                elif kernel == "rankrls":
                    b.RankRLS().path(Xr, yr, qr, alphas=[0.5, 2.0, 8.0])
                elif kernel == "sparse":
                    b.SparseRankSVM(C=1.0).fit(*mq)
                rec(kernel, name, time.perf_counter() - t0)
            if kernel.startswith("greedy"):
                rec(kernel, "anchor", 6 * args.m * args.n * 8 / copy_bandwidth(t, src, dst))
            elif anchor and kernel == "kendall":
                t0 = time.perf_counter()
                kb.numpy_tau_b(mq[0], mq[2])
                rec(kernel, "anchor", time.perf_counter() - t0)
            elif anchor and kernel == "hinge":
                t0 = time.perf_counter()
                numpy_value_grad(D, w)
                rec(kernel, "anchor", time.perf_counter() - t0)
    names = [n for n, _ in builds]
    print(f"threads {t}; levels: " + ", ".join(f"{n} = {level[n]}" for n in names))
    print("| kernel | threads | anchor | " + " | ".join(f"{n} ({level[n]})" for n in names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for kernel in kernels:
        med = {n: float(np.median(times[(kernel, n)])) for n in names}
        low = {n: min(times[(kernel, n)]) for n in names}
        a = times.get((kernel, "anchor"))
        am, al = (float(np.median(a)), min(a)) if a else (None, None)
        cells = []
        for n in names:
            first = names[0]
            rel = f", {med[n] / med[first]:.3f} [{low[n] / low[first]:.3f}] of {first}" if n != first else ""
            if kernel in ("rankrls", "sparse"):  # no anchor: the builds only
                cells.append(f"{1e3 * med[n]:.1f} ms [{1e3 * low[n]:.1f}]{rel}")
            elif kernel == "parser":
                cells.append(f"{size / med[n] / 1e6:.0f} MB/s [{size / low[n] / 1e6:.0f}]{rel}")
            elif kernel.startswith("greedy"):
                cells.append(f"{1e3 * med[n]:.1f} ms = {med[n] / am:.2f}x bound [{1e3 * low[n]:.1f} ms, "
                             f"{low[n] / al:.2f}x]{rel}")
            else:
                cells.append(f"{1e3 * med[n]:.2f} ms, {am / med[n]:.1f}x [{1e3 * low[n]:.2f}, {al / low[n]:.1f}x]{rel}")
        anchor_cell = ("-" if am is None else f"bound {1e3 * am:.1f} ms [{1e3 * al:.1f}]" if kernel.startswith("greedy")
                       else f"NumPy {1e3 * am:.1f} ms [{1e3 * al:.1f}]")
        print(f"| {kernel} | {t} | {anchor_cell} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
