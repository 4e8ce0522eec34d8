"""Greedy RankRLS on wide data (n features > m rows, issue 38): no n x n state. The memory
rule states what the wide path needs (O(m n + sum of the groups' squared sizes), no n^2
term), and a 60 x 12,000 run, features and 200 groups, succeeds in a child process whose
address space could not hold one 12,000 x 12,000 float64 matrix. The wide path's values and
choices against the brute-force reference: ``test_greedy_exact.test_wide_data_exact_at_every_alpha``."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rankselect as rs

M, N = 60, 12_000


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(M, N))
    return X, rng.integers(0, 3, size=M).astype(float), np.repeat(np.arange(6), 10)


def _rule_mib(**params):
    X, y, qid = _data()
    with rs.config_context(max_memory=1), pytest.raises(MemoryError) as info:
        rs.GreedyRankRLS(10, **params).fit(X, y, qid=qid)
    text = str(info.value)
    assert "wide data" in text and f"{M} rows x {N} features" in text, text
    v, unit = re.search(r"needs ([0-9.]+) (KiB|MiB|GiB)", text).groups()
    return float(v) * {"KiB": 2**-10, "MiB": 1.0, "GiB": 1024.0}[unit]


@pytest.mark.parametrize("groups", [None, 200])
def test_memory_rule_has_no_n_squared_term(groups):
    params = {} if groups is None else {"feature_groups": np.arange(N) % groups}
    rule = _rule_mib(**params)
    mn = 8 * M * N / 2**20  # one m x n float64 array, MiB
    square = 8 * N * N / 2**20
    assert 3 * mn <= rule <= 8 * mn < square / 20, (rule, mn, square)


SCRIPT = """
import resource, sys
import numpy as np
import rankselect as rs
def vm():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
rng = np.random.default_rng(0)
X = rng.normal(size=({m}, {n})); y = rng.integers(0, 3, {m}).astype(float); q = np.repeat(np.arange({m} // 10), 10)
rs.GreedyRankRLS(2).fit(X[:, :200], y, qid=q)  # thread pool and workspaces before the limit
limit = vm() + 600 * 2**20  # one {n} x {n} float64 matrix is {square} MiB
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
a = rs.GreedyRankRLS(10).fit(X, y, qid=q)
b = rs.GreedyRankRLS(2, feature_groups=np.arange({n}) % 200).fit(X, y, qid=q)
print(len(a.selected_features_), len(b.selected_groups_))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_wide_run_fits_where_n_by_n_would_not():
    script = SCRIPT.format(m=M, n=N, square=8 * N * N // 2**20)
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"exit {r.returncode}\nstdout: {r.stdout[-2000:]}\nstderr: {r.stderr[-3000:]}"
    assert r.stdout.split() == ["10", "2"], r.stdout


_DETERMINISM = """
import json, numpy as np
from rankselect import GreedyRankRLS
rng = np.random.default_rng(5)
X = rng.normal(size=(30, 500)); y = rng.integers(0, 3, 30).astype(float); q = np.repeat(np.arange(5), 6)
a = GreedyRankRLS(6, alpha=1e-6).fit(X, y, qid=q)
b = GreedyRankRLS(3, alpha=1e-3, feature_groups=np.arange(500) % 25).fit(X, y, qid=q)
print(json.dumps([a.selected_features_.tolist(), a.lqo_scores_.tolist(), a.coef_path_.tolist(),
                  b.selected_features_.tolist(), b.lqo_scores_.tolist(), b.coef_path_.tolist()]))
"""


def test_wide_path_same_bits_at_any_thread_count_and_simd_level():
    from rankselect import _core

    runs = [("1", _core.simd_levels()[-1])] + [("2", level) for level in _core.simd_levels()]
    out = []
    for threads, level in runs:
        env = {**os.environ, "RAYON_NUM_THREADS": threads, "RANKSELECT_SIMD": level}
        r = subprocess.run([sys.executable, "-c", _DETERMINISM], env=env, capture_output=True, text=True, check=True)
        out.append(r.stdout)
    assert all(o == out[0] for o in out), runs
