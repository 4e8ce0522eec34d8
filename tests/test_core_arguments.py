"""Every ``rankselect._core`` entry point validates its own arguments (issue #13, P2).

The public API checks its inputs first, but the binding must not trust its caller: wrong
shapes, lengths, offsets, out-of-range integers or empty arrays give ValueError / TypeError
(MemoryError for the memory rule, OSError for a missing file), never
``pyo3_runtime.PanicException`` (a BaseException that ``except Exception`` misses).
"""
import numpy as np
import pytest

from rankselect import _core

U = np.uintp
X = np.random.default_rng(0).random((6, 3))
Y = np.array([0.0, 1, 2, 0, 1, 2])
OFF = np.array([0, 3, 6], dtype=U)
OFFI = OFF.astype(np.int64)  # offsets of the wrong dtype
E1, E2 = np.zeros(0), np.zeros((0, 0))
SPEC = [("ndcg@10", "standard", "stable")]


def u(*v):
    return np.array(v, dtype=U)


SPARSE = (1.0, "l1", 0.5, 1e-3, 3.0)  # c, penalty, p, epsilon, mcp_gamma
C3 = np.ones(3)  # feature costs


def _costs(x=X, y=Y, off=OFF, k=2, alpha=1.0, criterion="squared", mem=2**40, costs=C3, budget=None):
    """greedy_rankrls_costs's arguments: greedy_rankrls's, then feature_costs and budget (a
    trailing dict: keyword arguments)."""
    return (x, y, off, k, alpha, criterion, None, None, "standard", mem, {"feature_costs": costs, "budget": budget})


class Source:
    """A data source without the methods a solver asks for."""


V3, S3, A2 = np.eye(3), np.ones(3), np.ones(2)

CASES = {
    "group_queries": [(np.zeros((2, 2), np.int64),), (np.zeros(3),)],
    "simd_level": [(1,)],  # no arguments
    "simd_levels": [("avx2",)],
    "load_letor": [("/nonexistent/rankselect/file.txt",), (123,), (__file__, 10**20), (__file__, -1),
                   (__file__, True), (__file__, None, False, False, False, -5)],
    "metrics_per_query": [
        (SPEC, Y, Y[:3], OFF), (SPEC, Y, Y, u(0, 7)), (SPEC, Y, Y, u(3, 0, 6)), (SPEC, Y, Y, u()),
        (SPEC, Y, Y, OFF, -1.0), (SPEC, Y, Y, OFF, float("nan")), (SPEC, Y * 1000, Y, OFF),
        ([("ndcg@0", "standard", "stable")], Y, Y, OFF), ([("zz", "standard", "stable")], Y, Y, OFF),
    ],
    "rankrls_fit": [
        (X, Y[:3], OFF, 1.0), (X, Y, u(0, 9), 1.0), (X, Y, u(4, 2, 6), 1.0), (X, Y, OFF, -1.0),
        (X, Y, OFF, float("nan")), (X, Y, u(), 1.0), (X, Y, u(1, 6), 1.0),
    ],
    "rankrls_lqo": [
        (X, Y[:3], OFF, 1.0), (X, Y, u(0, 9), 1.0), (X, Y, u(4, 2, 6), 1.0), (E2, E1, u(0), 1.0),
        (X, Y, OFF, -1.0), (X, Y, u(), 1.0), (X, Y, u(0, 6), 1.0),
    ],
    "rankrls_alpha_path": [
        (X, Y[:3], OFF, np.ones(2)), (X, Y, u(0, 9), np.ones(2)), (X, Y, OFF, E1), (X, Y, OFF, -np.ones(2)),
        (E2, E1, u(0), np.ones(1)), (X, Y, u(), np.ones(1)), (X, Y, u(0, 6), np.ones(1)),
    ],
    "greedy_rankrls": [
        (X, Y[:3], OFF, 2, 1.0), (X, Y, u(0, 9), 2, 1.0), (X, Y, OFF, 5, 1.0), (X, Y, OFF, 0, 1.0),
        (E2, E1, u(0), 1, 1.0), (X, Y, OFF, 2, -1.0), (X, Y, u(), 2, 1.0), (X, Y, OFF, 2, 1.0, "zz"),
        (X, Y * 1000, OFF, 2, 1.0, "ndcg@10"), (X, Y, OFF, -1, 1.0), (X, Y, OFF, 2, 1.0, "squared", -1.0),
        (X, Y, OFF, 2, 1.0, "squared", None, None, "standard", 8), (X, Y, OFF, 2, 1.0, "squared", None, None, "zz"),
        (X, Y, OFF, 2, 1.0, "squared", None, None, "standard", -1),
    ],
    "greedy_rankrls_floating": [
        (X, Y[:3], OFF, 2, 1.0), (X, Y, u(0, 9), 2, 1.0), (X, Y, OFF, 5, 1.0), (X, Y, OFF, 0, 1.0),
        (X, Y, OFF, 2, -1.0), (X, Y, u(), 2, 1.0), (X, Y, OFF, 2, 1.0, "zz"), (X, Y, OFF, -1, 1.0),
        (X, Y, OFF, 2, 1.0, "squared", None, "zz"), (X, Y, OFF, 2, 1.0, "squared", None, "standard", 8),
        (X, Y, OFF, 2, 1.0, "squared", None, "standard", -1), (X * np.nan, Y, OFF, 2, 1.0),
    ],
    "kendall_similarity": [
        (X, OFF[:2], "geng", True), (X, u(0, 9), "geng", True), (X, u(4, 2, 6), "geng", True),
        (E2, u(0), "geng", True), (X, u(), "geng", True), (X, OFF, "zz", True), (X[:, :0], OFF, "geng", True),
    ],
    "pairwise_accuracy": [
        (X, Y[:3], OFF), (X, Y, u(0, 9)), (X, Y, u(4, 2, 6)), (E2, E1, u(0)), (X, Y, u()),
    ],
    "metric_importance": [
        (X, Y[:3], OFF, "ndcg@10", "standard"), (X, Y, u(0, 9), "ndcg@10", "standard"),
        (X, Y, u(4, 2, 6), "ndcg@10", "standard"), (E2, E1, u(0), "ndcg@10", "standard"),
        (X, Y, u(), "map", "standard"), (X, Y, OFF, "zz", "standard"), (X, Y, OFF, "map", "zz"),
        (X, Y * 1000, OFF, "ndcg@10", "standard"),
    ],
    "query_pair_counts": [(Y[:3], OFF), (Y, u(0, 9)), (Y, u(4, 2, 6)), (Y, u()), (Y * np.nan, OFF)],
    "preference_pairs": [
        (Y[:3], OFF), (Y, u(0, 9)), (Y, u(4, 2, 6)), (Y, u()), (Y, OFF, 0), (Y, OFF, None, 8), (Y, OFF, -1),
    ],
    "squared_hinge_value_grad": [
        (X, Y[:3], OFF, np.ones(3)), (X, Y, OFF, np.ones(2)), (X, Y, u(0, 9), np.ones(3)), (X, Y, u(), np.ones(3)),
        (X, Y, u(4, 2, 6), np.ones(3)),
    ],
    "squared_hinge_hessp": [
        (X, Y[:3], OFF, np.ones(3), np.ones((3, 2))), (X, Y, OFF, np.ones(3), np.ones((2, 2))),
        (X, Y, u(0, 9), np.ones(3), np.ones((3, 2))), (X, Y, OFF, np.ones(2), np.ones((3, 2))),
    ],
    "explicit_squared_hinge_value_grad": [
        (X, u(0, 9), u(0), u(1), u(0, 1, 1), np.ones(3)), (X, OFF, u(0), u(1), u(0, 1, 1), np.ones(2)),
        (X, u(), u(), u(), u(), np.ones(3)), (X, OFF, u(0), u(1), u(0, 5, 1), np.ones(3)),
        (X, OFF, u(0), u(4), u(0, 1, 1), np.ones(3)), (X, OFF, u(0, 1), u(1), u(0, 1, 2), np.ones(3)),
        (X, OFF, u(0), u(1), u(0, 1), np.ones(3)), (X, OFF, u(0), u(1), u(1, 1, 1), np.ones(3)),
    ],
    "ranksvm_fit": [
        (X, Y[:3], OFF, 1.0, 1e-4, 10, 10), (X, Y, u(0, 9), 1.0, 1e-4, 10, 10), (X, Y, OFF, 1.0, 1e-4, 10, 10, np.ones(2)),
        (X, Y, OFF, -1.0, 1e-4, 10, 10), (X, Y, OFF, float("nan"), 1e-4, 10, 10), (X, Y, u(), 1.0, 1e-4, 10, 10),
        (X, Y, u(4, 2, 6), 1.0, 1e-4, 10, 10), (X, Y, OFF, 1.0, 1e-4, 0, 0), (X, Y, OFF, 1.0, 1e-4, -1, 10),
        (X, Y, OFF, 1.0, 1e-4, 10**20, 10),
    ],
    "kernel_matrix": [
        (X, np.ones((2, 2)), "rbf", 1.0, 0, 3), (X, X, "zz", 1, 0, 3), (X, X, "rbf", float("nan"), 0, 3),
        (X, X, "poly", 1.0, 0, -1),
    ],
    "nystroem_normalization": [
        (np.zeros((0, 3)), "rbf", 1.0, 0, 3), (X, "rbf", 1.0, 0, 3, 0), (X, "rbf", 1.0, 0, 3, 100),
        (X, "zz", 1.0, 0, 3), (X * np.inf, "rbf", 1.0, 0, 3),
    ],
    "nystroem_transform": [
        (X, X, np.ones((2, 2)), "rbf", 1.0, 0, 3), (X, X[:, :2], np.eye(6), "rbf", 1.0, 0, 3),
        (X, X, np.ones((6, 2)), "rbf", 1.0, 0, 3), (X, X, np.eye(6), "zz", 1.0, 0, 3),
    ],
    "random_fourier_transform": [(X, np.ones((2, 4)), np.ones(4)), (X, np.ones((3, 4)), np.ones(3))],
    "sparse_ranksvm": [
        (X, Y, OFF, *SPARSE, np.ones(2), None, 10, 3, 1e-4), (X, Y, OFF, *SPARSE, np.ones(4), None, 10, 3, 1e-4),
        (X, Y, OFF, *SPARSE, None, np.ones(2), 10, 3, 1e-4), (X, Y[:3], OFF, *SPARSE, None, None, 10, 3, 1e-4),
        (X, Y, OFF, *SPARSE, -np.ones(3), None, 10, 3, 1e-4), (X, Y, OFF, 1.0, "lp", -0.5, 1e-3, 3.0, None, None, 10, 3, 1e-4),
        (X, Y, OFF, 1.0, "mcp", 0.5, 1e-3, -3.0, None, None, 10, 3, 1e-4),
        (X, Y, OFF, 1.0, "log", 0.5, -1e-3, 3.0, None, None, 10, 3, 1e-4), (X, Y, OFF, *SPARSE, None, None, 10, 3, -1.0),
        (X, Y, OFF, *SPARSE, None, None, 10, 3, 1e-4, "zz"), (X, Y, OFF, 1.0, "zz", 0.5, 1e-3, 3.0, None, None, 10, 3, 1e-4),
        (X, Y, OFF, -1.0, "l1", 0.5, 1e-3, 3.0, None, None, 10, 3, 1e-4), (X, Y, u(0, 9), *SPARSE, None, None, 10, 3, 1e-4),
        (X, Y, OFF, *SPARSE, np.ones(2), None, 10, 3, 1e-4, "fista"),
    ],
    "fsmrank": [
        (X, Y, OFF, np.eye(2), np.ones(3), 1.0, 1.0, None, 10, 1e-4), (X, Y, OFF, np.eye(3), np.ones(2), 1.0, 1.0, None, 10, 1e-4),
        (X, Y, OFF, np.eye(3), np.ones(3), 1.0, 1.0, np.ones(2), 10, 1e-4),
        (X, Y, OFF, np.eye(3), np.ones(3), -1.0, 1.0, None, 10, 1e-4), (X, Y[:3], OFF, np.eye(3), np.ones(3), 1.0, 1.0, None, 10, 1e-4),
        (E2, E1, u(0), E2, E1, 1.0, 1.0, None, 10, 1e-4), (X, Y, OFF, np.full((3, 3), np.nan), np.ones(3), 1.0, 1.0, None, 10, 1e-4),
        (X, Y, u(0, 9), np.eye(3), np.ones(3), 1.0, 1.0, None, 10, 1e-4),
    ],
    "center_by_query": [
        (X, u(0, 9)), (X, u(4, 2, 6)), (X, u()), (X, u(0, 5)), (X, OFFI), (X.astype(np.float32), OFF), (X[:, 0], OFF),
    ],
    "parse_measure": [("zz",), ("ndcg@x",), ("",), (123,)],
    "sparse_c_min": [
        (X, Y[:3], OFF), (X, Y, u(0, 9)), (X, Y, u(4, 2, 6)), (X, Y, u()), (E2, E1, u(0)), (X, Y, OFF, np.ones(2)),
        (X, Y, OFF, -np.ones(3)), (X * np.nan, Y, OFF),
    ],
    "rankrls_gram": [(X, Y[:3], OFF), (X, Y, u(0, 9)), (X, Y, u()), (X * np.nan, Y, OFF), (X, Y, OFFI)],
    "rankrls_eigen": [(np.ones((2, 3)),), (np.full((2, 2), np.nan),), (np.ones(3),)],
    "rankrls_projected_targets": [(X, Y, OFF, np.eye(2)), (X, Y[:3], OFF, V3), (X, Y, u(0, 9), V3), (X, Y, OFF, np.ones((3, 2)))],
    "rankrls_path_weights": [(V3, S3, S3, E1), (V3, S3, S3, -A2), (V3, S3[:2], S3, A2), (np.eye(2), S3, S3, A2)],
    "rankrls_lqo_errors": [
        (X, Y, OFF, V3, S3, S3, E1), (X, Y, OFF, V3, S3, S3[:2], A2), (X, Y, OFF, np.eye(2), S3, S3, A2),
        (X, Y[:3], OFF, V3, S3, S3, A2), (X, Y, u(0, 9), V3, S3, S3, A2), (X, Y, OFF, V3, S3, S3, -A2),
    ],
    "rankrls_solve": [(V3, S3[:2], 1.0), (V3, S3, -1.0), (-V3, S3, 1e-3), (np.ones((2, 3)), S3, 1.0)],
    "squared_hinge_line_derivatives": [
        (X, Y, OFF, S3, S3[:2], 1.0), (X, Y, OFF, S3[:2], S3, 1.0), (X, Y[:3], OFF, S3, S3, 1.0), (X, Y, u(0, 9), S3, S3, 1.0),
    ],
    "squared_hinge_hessian_block": [
        (X, Y, OFF, S3, u(0, 3)), (X, Y, OFF, S3[:2], u(0)), (X, Y[:3], OFF, S3, u(0)), (X, Y, u(0, 9), S3, u(0)),
    ],
    "squared_hinge_lipschitz_bound": [(X, Y[:3], OFF), (X, Y, u(0, 9)), (X, Y, u(4, 2, 6))],
    "ranksvm_fit_with": [
        (Source(), 3, 1.0, 1e-4, 10, 10), (Source(), -1, 1.0, 1e-4, 10, 10), (Source(), 3, -1.0, 1e-4, 10, 10),
        (Source(), 10**20, 1.0, 1e-4, 10, 10), (Source(), 3, 1.0, 1e-4, 10, 10, S3[:2]), (None, 3, 1.0, 1e-4, 10, 0),
    ],
    "sparse_ranksvm_with": [
        (Source(), 3, *SPARSE, None, None, 10, 3, 1e-4), (Source(), 3, *SPARSE, np.ones(2), None, 10, 3, 1e-4),
        (Source(), 3, -1.0, "l1", 0.5, 1e-3, 3.0, None, None, 10, 3, 1e-4), (Source(), 3, *SPARSE, None, None, 10, 3, 1e-4, "zz"),
        (Source(), 10**10, *SPARSE, None, None, 10, 3, 1e-4), (Source(), 3, 1.0, "zz", 0.5, 1e-3, 3.0, None, None, 10, 3, 1e-4),
    ],
    "greedy_rankrls_sharded": [
        (Source(), 3, 4, 2, 1.0), (Source(), 3, 1, 2, 1.0), (Source(), 3, 4, 5, 1.0), (Source(), 3, 4, 2, -1.0),
        (Source(), 3, 4, 2, 1.0, "zz"), (Source(), 3, 4, 2, 1.0, "squared", None, None, "standard", None, {"feature_costs": A2}),
        (Source(), 10**10, 4, 2, 1.0), (Source(), 3, 4, 2, 1.0, "squared", -1.0),
    ],
    "greedy_rankrls_costs": [
        _costs(y=Y[:3]), _costs(off=u(0, 9)), _costs(off=u()), _costs(k=5), _costs(k=0), _costs(k=-1),
        _costs(alpha=-1.0), _costs(costs=np.ones(2)), _costs(costs=-C3), _costs(costs=C3 * np.nan),
        _costs(budget=-1.0), _costs(mem=8), _costs(mem=-1), _costs(mem=10**20), _costs(criterion="zz"),
        _costs(y=Y * 1000, criterion="ndcg@10"), _costs(x=E2, y=E1, off=u(0), k=1, costs=E1),
    ],
    "GreedyShard": [
        (X, Y[:3], OFF, 1.0), (X, Y, u(0, 9), 1.0), (X, Y, u(4, 2, 6), 1.0), (X, Y, u(), 1.0), (X, Y, OFF, -1.0),
        (X * np.nan, Y, OFF, 1.0), (X, Y, OFF, 1.0, "zz"), (X, -Y, OFF, 1.0, "ndcg@10"),
        (X, Y * 1000, OFF, 1.0, "ndcg@10"), (X, Y, OFF, 1.0, "ndcg@10", "zz"), (X, Y, OFF, 1.0, "squared", "standard", 8),
        (X, Y, OFF, 1.0, "squared", "standard", -1), (X, Y, OFF, 1.0, "squared", "standard", 10**20), (X, Y, OFFI, 1.0),
    ],
    "kendall_sums": [
        (X, OFF[:2], "geng"), (X, u(0, 9), "geng"), (X, u(4, 2, 6), "geng"), (X, u(), "geng"), (X, OFF, "zz"),
        (X * np.nan, OFF, "geng"),
    ],
    "pairwise_counts": [
        (X, Y[:3], OFF), (X, Y, u(0, 9)), (X, Y, u(4, 2, 6)), (X, Y, u()), (X, Y * np.nan, OFF),
    ],
    "SolverResult": [
        (X, 1.0, Y, 0.0, 1, True), (Y, 1.0, X, 0.0, 1, True), (Y.astype(np.float32), 1.0, Y, 0.0, 1, True),
        (Y, "x", Y, 0.0, 1, True), (Y, 1.0, Y, 0.0, -1, True), (Y, 1.0, Y, 0.0, 1.5, True), (Y, 1.0, Y, 0.0, 10**20, True),
    ],
}

# Non-contiguous or wrongly typed arrays: TypeError from the binding, never a panic.
STRIDED = X[:, ::2]
CASES["rankrls_fit"] += [(X, np.arange(12.0)[::2], OFF, 1.0), (X, Y.astype(np.float32), OFF, 1.0), (X, Y, OFFI, 1.0)]
CASES["preference_pairs"] += [(np.arange(12.0)[::2], OFF), (Y, OFFI)]
CASES["kendall_similarity"] += [(STRIDED.astype(np.float32), OFF, "geng", True)]
# Integers out of range name the argument (PyO3 alone raises OverflowError).
CASES["kendall_similarity"] += [(X, OFF, "geng", True, -1), (X, OFF, "geng", True, 10**20)]
CASES["pairwise_accuracy"] += [(X, Y, OFF, -1), (X, Y, OFF, 1.5)]
CASES["nystroem_normalization"] += [(X, "rbf", 1.0, 0, 3, -1), (X, "rbf", 1.0, 0, 3, True)]
CASES["preference_pairs"] += [(Y, OFF, None, -1), (Y, OFF, 10**20, None, "x")]
CASES["sparse_ranksvm"] += [(X, Y, OFF, *SPARSE, None, None, -1, 3, 1e-4), (X, Y, OFF, *SPARSE, None, None, 10, 10**20, 1e-4)]
CASES["fsmrank"] += [(X, Y, OFF, np.eye(3), np.ones(3), 1.0, 1.0, None, -5, 1e-4)]


@pytest.mark.parametrize("call,match", [
    (lambda: _core.ranksvm_fit(X, Y, OFF, 1.0, 1e-4, 10**20, 10), r"max_iter must be a non-negative integer below 2\*\*64"),
    (lambda: _core.ranksvm_fit(X, Y, OFF, 1.0, 1e-4, 10, -1), r"max_cg_iter must be a non-negative integer"),
    (lambda: _core.greedy_rankrls(X, Y, OFF, -1, 1.0), r"^n_features_to_select must be a non-negative integer"),
    (lambda: _core.greedy_rankrls(X, Y, OFF, 2, 1.0, max_memory=-1), r"^max_memory must be a non-negative integer"),
    (lambda: _core.greedy_rankrls(X, Y, OFF, 2, 1.0, min_improvement=-1.0), r"min_improvement must be >= 0"),
    (lambda: _core.preference_pairs(Y, OFF, max_memory=-1), r"^max_memory must be a non-negative integer"),
    (lambda: _core.GreedyShard(X, Y, OFF, 1.0, max_memory=-1), r"^max_memory must be a non-negative integer"),
    (lambda: _core.sparse_ranksvm(X, Y, OFF, 1.0, "mcp", 0.5, 1e-3, -3.0, None, None, 10, 3, 1e-4),
     r"mcp_gamma must be > 0"),
    (lambda: _core.preference_pairs(Y, OFF, 1.5), r"max_pairs must be an integer, got float"),
    (lambda: _core.greedy_rankrls_costs(*_costs(k=-1)[:-1], **_costs()[-1]),
     r"^n_features_to_select must be a non-negative integer"),
    (lambda: _core.greedy_rankrls_costs(*_costs(mem=-1)[:-1], **_costs()[-1]), r"^max_memory must be a non-negative"),
])
def test_integer_arguments_are_named(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_solvers_return_one_result_type():
    """ranksvm_fit, sparse_ranksvm and fsmrank return (SolverResult, *extras); the result is
    read-only."""
    r, n_cg, n_pairs = _core.ranksvm_fit(X, Y, OFF, 1.0, 1e-8, 50, 50)
    s, n_rew = _core.sparse_ranksvm(X, Y, OFF, *SPARSE, None, None, 100, 3, 1e-8)
    f, coef, f_pairs = _core.fsmrank(X, Y, OFF, np.eye(3), np.ones(3), 0.1, 0.01, None, 5000, 1e-10)
    assert f.coef.shape == (6,) and f_pairs == 6  # the doubled problem's w = [w+, w-]
    np.testing.assert_allclose(coef, f.coef[:3] - f.coef[3:])
    assert f.objective == f.objective_history.min()
    for res in (r, s, f):
        assert type(res) is _core.SolverResult
        assert res.coef.dtype == np.float64
        assert res.objective_history.ndim == 1 and res.objective_history.size >= 1
        assert np.isfinite(res.objective) and res.kkt_residual >= 0 and res.converged
        assert isinstance(res.n_iter, int) and f"SolverResult(n_features={res.coef.size}," in repr(res)
        with pytest.raises(AttributeError):
            res.objective = 0.0
    assert (n_pairs, isinstance(n_cg, int), n_rew) == (6, True, 1)  # l1: one weighted-L1 solve
    assert r.objective_history[-1] == r.objective
    built = _core.SolverResult(np.zeros(3), 2.0, np.array([2.0]), 0.0, 0, True)
    assert (built.objective, built.n_iter, built.converged) == (2.0, 0, True)
    np.testing.assert_array_equal(built.coef, np.zeros(3))


def test_greedy_shard_methods_validate_their_arguments():
    shard = _core.GreedyShard(X, Y, OFF, 1.0)
    bad = [
        lambda: shard.scan(np.ones(2), np.ones(3), np.zeros(3, bool)), lambda: shard.scan(np.ones(3), np.ones(3), np.zeros(2, bool)),
        lambda: shard.cross(3), lambda: shard.cross(-1), lambda: shard.cross(10**20),
        lambda: shard.add(5, 1.0, 1.0, np.ones(3), np.zeros(3, bool)), lambda: shard.add(-1, 1.0, 1.0, np.ones(3), np.zeros(3, bool)),
        lambda: shard.add(0, 1.0, 1.0, np.ones(2), np.zeros(3, bool)),
    ]
    for call in bad:
        with pytest.raises((ValueError, TypeError)):
            call()
    with pytest.raises(ValueError, match="^b must be a non-negative integer"):
        shard.cross(-1)


def test_every_core_function_is_covered():
    public = {n for n in dir(_core) if not n.startswith("_") and callable(getattr(_core, n))}
    assert public == set(CASES), (public - set(CASES), set(CASES) - public)


@pytest.mark.parametrize("name,args", [(n, a) for n, cases in CASES.items() for a in cases],
                         ids=[f"{n}-{k}" for n, cases in CASES.items() for k in range(len(cases))])
def test_bad_arguments_raise_value_or_type_error(name, args):
    fn = getattr(_core, name)
    kwargs = args[-1] if args and isinstance(args[-1], dict) else {}
    args = args[:-1] if kwargs else args
    try:
        fn(*args, **kwargs)
    except (ValueError, TypeError, MemoryError, OSError) as e:  # OSError: load_letor's missing file
        assert str(e), "the error must say what is wrong"
        return
    except BaseException as e:  # PanicException derives from BaseException
        pytest.fail(f"{name} raised {type(e).__module__}.{type(e).__name__}: {e}")
    pytest.fail(f"{name}{tuple(getattr(a, 'shape', a) for a in args)} accepted bad arguments")
