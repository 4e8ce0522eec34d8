"""Under an operating-system memory limit (``ulimit -v``: RLIMIT_AS), every data-sized
allocation gives a clean MemoryError naming the operation, never an abort (exit 134) or a
PanicException (issue 23). Each reproducer runs in a subprocess whose address space is
capped a few hundred MiB above what it already uses; the script exits 0 only when it caught a
MemoryError. Every reproducer runs with the memory rule switched off (``max_memory`` huge),
so that the core's fallible allocations themselves are tested; one also runs with the rule
on, whose limit includes the RLIMIT_AS headroom (the suite's time: each run starts Python)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from _child import VM_PRELUDE

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")

PRELUDE = VM_PRELUDE + """rng = np.random.default_rng(0)
{setup}
if {rule_off}:
    rs.set_config(max_memory=10**15)
limit = vm() + {headroom} * 2**20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    {call}
except MemoryError as exc:
    print("MemoryError:", exc)
    sys.exit(0)
print("no MemoryError")
sys.exit(3)
"""

# (id, setup, call): each call needs well over 300 MiB more than the process holds.
CASES = [
    ("kendall_similarity", "X = rng.random((20, 12000)); q = np.repeat([0, 1], 10)",
     "rs.kendall_similarity(X, q)"),
    ("greedy_rankrls", "X = rng.random((40000, 1200)); y = rng.integers(0, 3, 40000).astype(float); "
     "q = np.repeat(np.arange(400), 100)", "rs.GreedyRankRLS(n_features_to_select=2).fit(X, y, qid=q)"),
    ("gas", "X = rng.random((20, 9000)); y = rng.integers(0, 3, 20).astype(float); q = np.repeat([0, 1], 10)",
     "rs.GAS(n_features_to_select=2).fit(X, y, qid=q)"),
    ("preference_pairs", "y = np.tile(np.arange(12000.0), 1); q = np.zeros(12000, dtype=np.int64)",
     "rs.preference_pairs(y, q, max_pairs=None)"),
    ("rff_transform", "X = rng.random((60000, 5)); m = rs.RandomFourierFeatures(n_components=2000, random_state=0)"
     ".fit(X[:10])", "m.transform(X)"),
    ("kernel_matrix", "from rankselect.models.kernel_approximation import kernel_matrix; X = rng.random((12000, 5))",
     "kernel_matrix(X, X)"),
    ("center_by_query", "X = rng.random((60000, 1000)); q = np.repeat(np.arange(600), 100)",
     "rs.center_by_query(X, q)"),
    # n <= m: the primal n x n system (wide data, n > m, is solved in the dual m x m one: issue 35)
    ("rankrls_fit", "X = rng.random((9000, 8000)); y = rng.integers(0, 3, 9000).astype(float); "
     "q = np.repeat(np.arange(900), 10)", "rs.RankRLS(alpha=1.0).fit(X, y, qid=q)"),
    ("stability_selection", "X = rng.random((40000, 1200)); y = rng.integers(0, 3, 40000).astype(float); "
     "q = np.repeat(np.arange(400), 100)",
     "rs.StabilitySelection(rs.GreedyRankRLS(n_features_to_select=2), n_resamples=2, random_state=0)"
     ".fit(X, y, qid=q)"),
]


def _run(setup: str, call: str, rule_off: bool, headroom: int = 300) -> subprocess.CompletedProcess:
    script = PRELUDE.format(setup=setup, call=call, rule_off=rule_off, headroom=headroom)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                          timeout=600)


@pytest.mark.parametrize("name,setup,call", CASES, ids=[c[0] for c in CASES])
def test_memory_error_not_abort(name, setup, call):
    _check(name, _run(setup, call, rule_off=True))


def test_memory_rule_sees_the_address_space_limit():
    name, setup, call = CASES[0]
    _check(name, _run(setup, call, rule_off=False))


def _check(name, r):
    assert r.returncode == 0, (f"{name}: exit {r.returncode} (134 = abort)\nstdout: {r.stdout[-2000:]}\n"
                               f"stderr: {r.stderr[-3000:]}")
    assert "PanicException" not in r.stderr and "panicked" not in r.stderr, r.stderr[-2000:]
    assert "MemoryError:" in r.stdout and len(r.stdout.strip()) > len("MemoryError:"), r.stdout


def test_memory_limit_is_the_smallest_of_available_rlimit_and_cgroup():
    script = textwrap.dedent("""
        import resource
        from rankselect import _config
        def vm():
            for line in open("/proc/self/status"):
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
        limit = vm() + 200 * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        got = _config.memory_limit()
        assert 0 < got <= 200 * 2**20, got
        assert got <= _config._available_memory()
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "ok" in r.stdout, r.stderr
