"""Kernel approximation maps: rankselect (Rust) vs scikit-learn, same run, same draws.

Times fit + transform of ``Nystroem`` vs ``sklearn.kernel_approximation.Nystroem`` and of
``RandomFourierFeatures`` vs ``RBFSampler`` on a dense (rows x features) matrix with
``m`` components; reports the median over repeats and the ratio sklearn / rankselect
(> 1 means rankselect is faster), and the max abs difference of the two outputs.

    python benches/kernel_approx_bench.py --rows 100000 --features 46 --components 2000 --repeats 3

Use the release build (``maturin develop --release``).
"""
from __future__ import annotations

import argparse
import gc
import statistics
import time

import numpy as np
from sklearn.kernel_approximation import Nystroem as SkNystroem
from sklearn.kernel_approximation import RBFSampler

from rankselect import Nystroem, RandomFourierFeatures


def _time(make, X, repeats):
    """Median fit + transform time, median transform-only time, all fit + transform times."""
    times, ttimes, out = [], [], None
    for _ in range(repeats):
        out = None
        gc.collect()
        t0 = time.perf_counter()
        est = make().fit(X)
        t1 = time.perf_counter()
        out = est.transform(X)
        t2 = time.perf_counter()
        times.append(t2 - t0)
        ttimes.append(t2 - t1)
    return statistics.median(times), statistics.median(ttimes), times, out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--features", type=int, default=46)
    p.add_argument("--components", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--gamma", type=float, default=2.0**-5)
    args = p.parse_args()

    rng = np.random.RandomState(0)
    X = rng.uniform(size=(args.rows, args.features))  # LETOR features are scaled to [0, 1]
    m, g = args.components, args.gamma
    cases = [
        ("Nystroem (rbf)",
         lambda: Nystroem(gamma=g, n_components=m, random_state=0),
         lambda: SkNystroem(gamma=g, n_components=m, random_state=0)),
        ("RandomFourierFeatures / RBFSampler",
         lambda: RandomFourierFeatures(gamma=g, n_components=m, random_state=0),
         lambda: RBFSampler(gamma=g, n_components=m, random_state=0)),
    ]
    print(f"{args.rows} rows x {args.features} features, m = {m}, gamma = {g}, "
          f"median of {args.repeats}")
    print("fit + transform, then transform only (ratio = sklearn / rankselect)")
    print(f"{'map':38s} {'rankselect s':>12s} {'sklearn s':>10s} {'ratio':>7s} "
          f"{'transform rs':>12s} {'sk':>6s} {'ratio':>7s} {'max|diff|':>10s}")
    for name, ours, theirs in cases:
        t_o, tt_o, all_o, z_o = _time(ours, X, args.repeats)
        t_s, tt_s, all_s, z_s = _time(theirs, X, args.repeats)
        diff = float(np.abs(z_o - z_s).max())
        del z_o, z_s
        print(f"{name:38s} {t_o:12.2f} {t_s:10.2f} {t_s / t_o:7.2f} "
              f"{tt_o:12.3f} {tt_s:6.3f} {tt_s / tt_o:7.2f} {diff:10.2e}"
              f"   (rankselect {[f'{t:.2f}' for t in all_o]}, sklearn {[f'{t:.2f}' for t in all_s]})")


if __name__ == "__main__":
    main()
