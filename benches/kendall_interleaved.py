"""Kendall tau-b matrix: two builds of rankselect and the NumPy anchor, calls interleaved.

On a shared machine whose speed drifts by tens of percent from minute to minute, timings
taken one after the other cannot be compared. This script imports each build given with
``--build NAME=DIR`` (``DIR`` holds a ``rankselect`` package, e.g. a copy of
``python/rankselect`` with another ``_core`` library, loaded under the module name
``NAME``), then calls every build and the vectorised NumPy anchor of ``kendall_bench.py``
in turn, ``--repeat`` rounds, and reports the median of each and, in brackets, its minimum (the least
disturbed call), with the NumPy time over the build's time.
Run one process per thread count (``RAYON_NUM_THREADS``; NumPy's BLAS is limited to the
same count here)::

    RAYON_NUM_THREADS=1 python benches/kendall_interleaved.py --threads 1 --data mq2008 \\
        --build before=/tmp/before --build after=python --repeat 80 --numpy-repeat 25

``--data``: ``mq2008`` (MQ2008 Fold1 train from ../shared), ``mq2008-like`` (synthetic, same
shape) or ``large`` (136 features x 240,000 rows, 2,000 queries of 120 documents).
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent


def load_build(name: str, root: str):
    """The ``rankselect`` package under ``root``, imported as the top-level module ``name``."""
    init = Path(root) / "rankselect" / "__init__.py"
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", action="append", required=True, help="NAME=DIR (DIR/rankselect is the package)")
    ap.add_argument("--data", choices=["mq2008", "mq2008-like", "large"], default="mq2008")
    ap.add_argument("--threads", type=int, default=1, help="NumPy BLAS threads (set RAYON_NUM_THREADS alike)")
    ap.add_argument("--repeat", type=int, default=60)
    ap.add_argument("--numpy-repeat", type=int, default=20, help="rounds that also time NumPy (0: none)")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time the process's CPU time (time.process_time) instead of the wall clock: "
                         "less disturbed by descheduling on a loaded machine (1 thread)")
    args = ap.parse_args()
    clock = time.process_time if args.cpu_time else time.perf_counter
    threadpool_limits(args.threads)
    builds = [(n, load_build(n, d)) for n, d in (b.split("=", 1) for b in args.build)]
    sys.modules.setdefault("rankselect", builds[0][1])  # kendall_bench imports rankselect
    sys.path.insert(0, str(HERE))
    import kendall_bench as kb

    if args.data == "mq2008":
        d = builds[0][1].load_letor(kb.DATA / "MQ2008" / "Fold1" / "train.txt")
        X, qid = d.X, d.qid
    elif args.data == "mq2008-like":
        X, qid = kb.mq2008_like()
    else:
        X, qid = kb.synthetic()
    times = {n: [] for n, _ in builds}
    times["numpy"] = []
    for r in range(args.repeat):
        for n, m in builds:
            t0 = clock()
            m.kendall_similarity(X, qid, variant="tau_b")
            times[n].append(clock() - t0)
        if r < args.numpy_repeat:
            t0 = clock()
            kb.numpy_tau_b(X, qid)
            times["numpy"].append(clock() - t0)
    # Medians (the figure reported), then minima (the least disturbed call) in brackets.
    med = {k: 1e3 * float(np.median(v)) for k, v in times.items() if v}
    low = {k: 1e3 * min(v) for k, v in times.items() if v}

    def cell(n):
        if "numpy" not in med:  # --numpy-repeat 0: the builds only
            return f"{med[n]:.1f} ms [{low[n]:.1f}]"
        return f"{med[n]:.1f} ms, {med['numpy'] / med[n]:.1f}x [{low[n]:.1f} ms, {low['numpy'] / low[n]:.1f}x]"

    anchor = f" {med['numpy']:.0f} ms [{low['numpy']:.0f}] |" if "numpy" in med else ""
    print(f"| {args.data} | {args.threads} |{anchor} " + " | ".join(cell(n) for n, _ in builds) + " |")


if __name__ == "__main__":
    main()
