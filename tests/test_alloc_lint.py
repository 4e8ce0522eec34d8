"""The core allocates data-sized buffers only through ``rankselect_core::alloc`` (fallible:
MemoryError instead of an abort under ``ulimit -v`` or a cgroup limit; issue 23). This lint
counts the infallible allocation forms in the core's non-test code; the allowlist names the
files that keep some, with the reason: each is bounded by a data-sized buffer that the same
call already allocated fallibly (so it is small beside it), or is outside any data size."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "rust" / "core" / "src"

#: infallible allocation forms: `vec![x; n]`, ndarray / faer zeros, faer's from_fn and
#: workspaces
PATTERN = re.compile(r"vec!\[[^\]\n]*;[^\]\n]*\]|Array[12]::(?:<f64>::)?zeros"
                     r"|Mat::(?:<f64>::)?(?:zeros|from_fn|identity)|MemBuffer::new\(")

#: file -> (count, reason)
ALLOWED = {
    "selection/greedy_rls/floating.rs": (1, "the length-n (features) weights of each best subset, beside the "
                                               "n x n path factor"),
    "selection/greedy_rls/fused.rs": (1, "the length-n (features) criterion values of one chunk"),
    "solvers/prox_newton/mod.rs": (11, "length-n (features) vectors and the k x k working-set Hessian of the "
                                      "solver, after the datafit's data-sized caches"),
    "solvers/fista.rs": (4, "length-n (features) iterates of the solver"),
    "solvers/truncated_newton.rs": (4, "length-n (features) iterates of the solver"),
    "solvers/datafit/mod.rs": (2, "length-n (features) gradients"),
    "solvers/datafit/quadratic.rs": (1, "a length-n (features) gradient"),
    "solvers/datafit/pairwise.rs": (2, "per-query length-n sums"),
    "solvers/reweighted.rs": (1, "length-n (features) weights"),
    "models/sparse_ranksvm.rs": (7, "length-n (features) weights and gradients (also of the group penalties' "
                                    "path start)"),
    "selection/greedy_rls/backend.rs": (1, "a unit's right-hand side (length b, the unit's size)"),
    "selection/greedy_rls/block.rs": (2, "a unit's b-vectors (b: the unit's size)"),
    "selection/greedy_rls/choice.rs": (2, "one flag per feature group (the groups paid for) and one value per "
                                          "unit beside the units' values the caller holds"),
    "shards/greedy_sharded/accuracy.rs": (1, "one rounding bound per unit beside the units' values"),
    "solvers/penalty/group.rs": (1, "the member lists of the feature groups (length n_groups <= n features)"),
    "models/ranksvm/mod.rs": (4, "length-n coefficients and length-m scores beside the m x n data"),
    "models/rankrls/blocked.rs": (4, "length-n block sums of the blocked product and the n x 1 right-hand "
                                     "side (the n x n and m x p results are fallible; one match is a comment)"),
    "models/rankrls/mod.rs": (1, "the n x 1 right-hand side"),
    "models/rankrls/path.rs": (2, "n-vectors of the path and a query's r (n_q x 1)"),
    "models/kernel_approx/mod.rs": (2, "length-c landmark norms"),
    "models/kernel_approx/nystroem.rs": (2, "length-c norms and one chunk's CHUNK_ROWS x c kernel block"),
    "pairwise/squared_hinge/mod.rs": (6, "per-query level and order vectors (length n_q) and length-m scores"),
    "pairwise/squared_hinge/explicit.rs": (2, "length-m scores"),
    "pairwise/squared_hinge/active.rs": (3, "a query's Fenwick tree (three length-n_q arrays)"),
    "pairwise/squared_hinge/hessian.rs": (5, "per-query and length-m x k working-set products of the solver"),
    "selection/importance.rs": (2, "length-n (features) error counts"),
    "selection/fsmrank.rs": (1, "the 2n starting point"),
    "selection/kendall/merge.rs": (1, "a query's ranks (length n_q)"),
    "selection/greedy_rls/state.rs": (2, "one chunk's length-n criterion sums in the pass (chunk count x n is "
                                         "part of state_bytes); the reset's length-n flags per chunk"),
    "selection/greedy_rls/path.rs": (5, "the c x c Cholesky factor of the c selected columns (allocated for the "
                                        "columns k units can hold, grown by doubling past them) and n-vectors"),
    "shards/greedy_sharded/mod.rs": (7, "length-n sums and flags, the unit of every column, the units' values "
                                        "and the n x n Gram matrix of a shard's answers"),
    "shards/greedy_shard.rs": (3, "a shard's caches, bounded by the shard's memory check"),
    "shards/shard_sums.rs": (4, "n x n pair sums of a shard"),
    "linalg.rs": (1, "a length-m product"),
    "data/groups.rs": (1, "QueryGroups::scatter: a length-m copy of a vector the caller holds"),
}


def _non_test_code(text: str) -> str:
    """The file without its `#[cfg(test)]` module (at the end, by the project's layout)."""
    i = text.find("#[cfg(test)]\nmod tests")
    return text if i < 0 else text[:i]


def test_core_allocates_data_sized_buffers_fallibly():
    found = {}
    for path in sorted(CORE.rglob("*.rs")):
        rel = path.relative_to(CORE).as_posix()
        if rel.endswith("tests.rs") or "/tests/" in rel or rel == "testing.rs" or rel.startswith("alloc/"):
            continue
        n = len(PATTERN.findall(_non_test_code(path.read_text())))
        if n:
            found[rel] = n
    over = {f: (n, ALLOWED.get(f, (0, ""))[0]) for f, n in found.items() if n > ALLOWED.get(f, (0, ""))[0]}
    assert not over, ("infallible allocations beyond the allowlist (file: found, allowed); use "
                      f"rankselect_core::alloc: {over}")


#: faer's products and the decompositions built on them (private-gemm's per-thread workspace)
FAER_CALL = re.compile(r"\bmatmul\(|cholesky_in_place\(|self_adjoint_evd\(|_triangular_in_place\(|\.llt\(")
RESERVE_CALL = re.compile(r"reserve_gemm_workspaces?\(\)")
#: where a file's faer calls find their workspace reserved elsewhere: file -> where
RESERVED_ELSEWHERE = {
    "models/kernel_approx/rff.rs": "par_row_chunks (kernel_approx/mod.rs) reserves on every pool thread",
    "selection/greedy_rls/state.rs": "the greedy bindings' run (rust/py/src/selection/greedy_progress.rs)",
    "selection/greedy_rls/setup.rs": "the greedy bindings' run (rust/py/src/selection/greedy_progress.rs): the "
                                     "calling thread and every pool thread",
    "selection/greedy_rls/group_state.rs": "the greedy bindings' run (rust/py/src/selection/greedy_progress.rs)",
    "selection/greedy_rls/path.rs": "the greedy bindings' run (rust/py/src/selection/greedy_progress.rs)",
    "shards/greedy_shard.rs": "GreedyShard.gram's binding (rust/py/src/shards.rs)",
}


def test_faer_products_reserve_their_workspace_first():
    """Issue 40: faer's products keep a per-thread workspace (4 MiB: issue 46) that they
    allocate without a fallback (an abort under a memory limit). A core file that calls them
    reserves it first (``rankselect_core::alloc::reserve_gemm_workspace(s)``: MemoryError
    instead), or the table above says who does."""
    missing = []
    for path in sorted(CORE.rglob("*.rs")):
        rel = path.relative_to(CORE).as_posix()
        if rel.endswith("tests.rs") or rel.startswith("alloc/") or rel == "testing.rs":
            continue
        code = _non_test_code(path.read_text())
        code = re.sub(r"//[^\n]*", "", code)  # comments do not reserve
        if FAER_CALL.search(code) and not RESERVE_CALL.search(code) and rel not in RESERVED_ELSEWHERE:
            missing.append(rel)
    assert not missing, f"faer products without their workspace reserved first: {missing}"
    bindings = ROOT / "rust" / "py" / "src"
    assert RESERVE_CALL.search((bindings / "selection" / "greedy_progress.rs").read_text())
    assert RESERVE_CALL.search((bindings / "shards.rs").read_text())
