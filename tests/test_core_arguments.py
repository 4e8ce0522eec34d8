"""Every ``rankselect._core`` entry point validates its own arguments (issue #13, P2).

The public API checks its inputs first, but the binding must not trust its caller: wrong
shapes, lengths, offsets, out-of-range integers or empty arrays give ValueError / TypeError
(MemoryError for the memory rule, OSError for a missing file), never
``pyo3_runtime.PanicException`` (a BaseException that ``except Exception`` misses).
"""
import inspect

import numpy as np
import pytest

from rankselect import _core

U = np.uintp
X = np.random.default_rng(0).random((6, 3))
Y = np.array([0.0, 1, 2, 0, 1, 2])
OFF = np.array([0, 3, 6], dtype=U)
OFFI = OFF.astype(np.int64)  # offsets of the wrong dtype
E1, E2 = np.zeros(0), np.zeros((0, 0))
XT = np.ascontiguousarray(X.T)  # one row per ranker (cascade_grid_per_query)
SPEC = [("ndcg@10", "standard", "stable")]


def u(*v):
    return np.array(v, dtype=U)


SPARSE = (1.0, _core.PenaltySpec.l1())  # c, penalty
P = _core.PenaltySpec
C3 = np.ones(3)  # feature costs


def G(k=2, alpha=1.0, **options):
    """Greedy options the constructor accepts (what is wrong with them is the run's check)."""
    return _core.GreedyOptions(k, alpha, **options)


def _costs(x=X, y=Y, off=OFF, k=2, alpha=1.0, costs=C3, budget=None, max_memory=2**40, **options):
    """greedy_rankrls's arguments for a run per cost."""
    return (x, y, off, G(k, alpha, max_memory=max_memory, feature_costs=costs, budget=budget, **options))


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
    "cascade_grid_per_query": [
        (SPEC[0], Y, OFF, XT, XT, u(0, 1, 2), u(1, 2, 0)), (SPEC[0], Y, OFF, XT, XT, u(0, 1, 3), u(1, 2, 3)),
        (SPEC[0], Y, OFF, XT, XT[:, :3], u(0, 1, 2), u(1, 2, 3)), (SPEC[0], Y, OFF, XT, XT, u(0, 1), u(1, 2, 3)),
        (SPEC[0], Y, u(0, 7), XT, XT, u(0, 1, 2), u(1, 2, 3)), (SPEC[0], -Y, OFF, XT, XT, u(0, 1, 2), u(1, 2, 3)),
        (SPEC[0], Y, OFF, XT[:0], XT, u(0, 1, 2), u(1, 2, 3)), (SPEC[0], Y, OFF, XT * np.nan, XT, u(0, 0, 0), u(1, 2, 3)),
        (("ndcg@0", "standard", "stable"), Y, OFF, XT, XT, u(0, 1, 2), u(1, 2, 3)),
        (SPEC[0], Y, OFF, XT, XT, u(0, 1, 2), u(1, 2, 3), 8), (SPEC[0], Y, OFF, XT, XT, u(0, 1, 2), u(1, 2, 3), -1),
        (SPEC[0], Y, OFF, np.asfortranarray(XT), XT, u(0, 1, 2), u(1, 2, 3)),
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
    "GreedyOptions": [
        (-1, 1.0), (1.5, 1.0), (2, "x"), (2, 1.0, "zz"), (2, 1.0, "ndcg@0"), (2, 1.0, "squared", None, "zz"),
        (2, 1.0, "squared", None, "standard", -1), (2, 1.0, "squared", None, "standard", 10**20),
        (2, 1.0, "squared", None, "standard", None, np.ones((2, 2))), (2, 1.0, "squared", None, "standard", None, C3[::2]),
        (2, 1.0, "squared", 0.1, "standard", None, None, None, True), (2, 1.0, "squared", None, "standard", None, C3, None, True),
        (2, 1.0, "squared", None, "standard", None, None, 1.0, True),
    ],
    "greedy_rankrls": [
        (X, Y[:3], OFF, G()), (X, Y, u(0, 9), G()), (X, Y, OFF, G(5)), (X, Y, OFF, G(0)), (E2, E1, u(0), G(1)),
        (X, Y, OFF, G(alpha=-1.0)), (X, Y, OFF, G(alpha=1e-9)), (X, Y, u(), G()), (X, Y * 1000, OFF, G(criterion="ndcg@10")),
        (X, Y, OFF, G(min_improvement=-1.0)), (X, Y, OFF, G(max_memory=8)), (X, Y, OFF, (2, 1.0)),
        (X, Y, OFF, G(), "not callable"),
        # floating
        (X, Y[:3], OFF, G(floating=True)), (X, Y, u(0, 9), G(floating=True)), (X, Y, OFF, G(5, floating=True)),
        (X, Y, OFF, G(0, floating=True)), (X, Y, OFF, G(alpha=-1.0, floating=True)),
        (X, Y, OFF, G(alpha=1e-9, floating=True)), (X, Y, u(), G(floating=True)),
        (X, Y, OFF, G(max_memory=8, floating=True)), (X * np.nan, Y, OFF, G(floating=True)),
        # per cost
        _costs(y=Y[:3]), _costs(off=u(0, 9)), _costs(off=u()), _costs(k=5), _costs(k=0), _costs(alpha=-1.0), _costs(alpha=1e-9),
        _costs(costs=np.ones(2)), _costs(costs=-C3), _costs(costs=C3 * np.nan), _costs(budget=-1.0),
        _costs(costs=None, budget=-1.0), _costs(max_memory=8), _costs(y=Y * 1000, criterion="ndcg@10"),
        _costs(x=E2, y=E1, off=u(0), k=1, costs=E1),
    ],
    "unit_costs": [
        (-1, None), (3, None, C3[:2]), (3, None, -C3), (3, None, C3, np.ones(1)),
        (3, (u(0, 2, 3), u(0, 2, 1)), C3, np.ones(3)), (3, (u(0, 2, 3), u(0, 2, 1)), C3, -np.ones(2)),
        (3, (u(0, 2), u(0, 2)), C3), (3, (u(0, 2, 3), u(0, 2, 5)), C3), (3, (u(0, 2, 3), u(0, 2, 1)), C3 * np.nan),
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
        (X, Y, OFF, 1.0, P.l1(np.ones(2)), None, 10, 3, 1e-4), (X, Y, OFF, 1.0, P.l1(np.ones(4)), None, 10, 3, 1e-4),
        (X, Y, OFF, *SPARSE, np.ones(2), 10, 3, 1e-4), (X, Y[:3], OFF, *SPARSE, None, 10, 3, 1e-4),
        (X, Y, OFF, 1.0, P.group_lasso(u(0, 1)), None, 10, 3, 1e-4, "fista"),
        (X, Y, OFF, 1.0, P.group_lasso(u(0, 0, 1)), None, 10, 3, 1e-4),  # prox-newton: not separable
        (X, Y, OFF, *SPARSE, None, 10, 3, -1.0), (X, Y, OFF, *SPARSE, None, 10, 3, 1e-4, "zz"),
        (X, Y, OFF, 1.0, "l1", None, 10, 3, 1e-4), (X, Y, OFF, -1.0, P.l1(), None, 10, 3, 1e-4),
        (X, Y, OFF, float("nan"), P.mcp(2.0), None, 10, 3, 1e-4), (X, Y, u(0, 9), *SPARSE, None, 10, 3, 1e-4),
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
    "PenaltySpec": [(), ("l1",)],  # built only by its named constructors (below)
    "sparse_c_min": [
        (X, Y[:3], OFF, P.l1()), (X, Y, u(0, 9), P.l1()), (X, Y, u(4, 2, 6), P.l1()), (X, Y, u(), P.l1()),
        (E2, E1, u(0), P.l1()), (X, Y, OFF, P.l1(np.ones(2))), (X, Y, OFF, P.group_lasso(u(0, 1))), (X, Y, OFF),
        (X * np.nan, Y, OFF, P.l1()), (X, Y, OFF, "l1"),
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
        (Source(), 3, *SPARSE, None, 10, 3, 1e-4), (Source(), 3, 1.0, P.l1(np.ones(2)), None, 10, 3, 1e-4),
        (Source(), 3, -1.0, P.l1(), None, 10, 3, 1e-4), (Source(), 3, *SPARSE, None, 10, 3, 1e-4, "zz"),
        (Source(), 10**10, *SPARSE, None, 10, 3, 1e-4), (Source(), 3, 1.0, P.group_lasso(u(0, 1)), None, 10, 3, 1e-4),
    ],
    "greedy_rankrls_sharded": [
        (Source(), 3, 4, G()), (Source(), 3, 1, G()), (Source(), 3, 4, G(5)), (Source(), 3, 4, G(alpha=-1.0)),
        (Source(), 3, 4, G(feature_costs=A2)), (Source(), 10**10, 4, G()), (Source(), 3, 4, G(min_improvement=-1.0)),
        (Source(), 3, 4, G(floating=True)), (Source(), -1, 4, G()), (Source(), 3, 4, None),
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
CASES["sparse_ranksvm"] += [(X, Y, OFF, *SPARSE, None, -1, 3, 1e-4), (X, Y, OFF, *SPARSE, None, 10, 10**20, 1e-4)]
CASES["fsmrank"] += [(X, Y, OFF, np.eye(3), np.ones(3), 1.0, 1.0, None, -5, 1e-4)]


@pytest.mark.parametrize("call,match", [
    (lambda: _core.ranksvm_fit(X, Y, OFF, 1.0, 1e-4, 10**20, 10), r"max_iter must be a non-negative integer below 2\*\*64"),
    (lambda: _core.ranksvm_fit(X, Y, OFF, 1.0, 1e-4, 10, -1), r"max_cg_iter must be a non-negative integer"),
    (lambda: _core.GreedyOptions(-1, 1.0), r"^n_features_to_select must be a non-negative integer"),
    (lambda: _core.GreedyOptions(2, 1.0, max_memory=-1), r"^max_memory must be a non-negative integer"),
    (lambda: _core.greedy_rankrls(X, Y, OFF, G(min_improvement=-1.0)), r"min_improvement must be >= 0"),
    (lambda: _core.GreedyOptions(2, 1.0, min_improvement=0.1, floating=True), r"^floating selection takes neither"),
    (lambda: _core.preference_pairs(Y, OFF, max_memory=-1), r"^max_memory must be a non-negative integer"),
    (lambda: _core.GreedyShard(X, Y, OFF, 1.0, max_memory=-1), r"^max_memory must be a non-negative integer"),
    (lambda: P.mcp(-3.0), r"gamma must be > 0"), (lambda: P.lp(1.5, 0.1), r"p must be in \(0, 1\)"),
    (lambda: P.log(0.0), r"epsilon must be > 0"), (lambda: P.lp(0.5, float("nan")), r"epsilon must be > 0"),
    (lambda: P.l1(-np.ones(3)), r"weight 0 must be >= 0"), (lambda: P.l1(np.ones((2, 2))), r"dimension"),
    (lambda: P.group_lasso(u(0, 2, 2)), r"label 1 has no feature"), (lambda: P.group_lasso(u(0, 10**15)), "beyond"),
    (lambda: P.group_lasso(u(0, 1), 1.5), r"l1_ratio must be in \[0, 1\]"),
    (lambda: P.group_lasso(u(0, 1).astype(np.int64)), r"int64"),
    (lambda: _core.preference_pairs(Y, OFF, 1.5), r"max_pairs must be an integer, got float"),
    (lambda: _core.greedy_rankrls_sharded(Source(), 3, 4, G(floating=True)), r"^floating selection is not available"),
])
def test_integer_arguments_are_named(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_solvers_return_one_result_type():
    """ranksvm_fit, sparse_ranksvm and fsmrank return a fit whose ``result`` is the one
    SolverResult, the method's extras named beside it; all read-only."""
    fit = _core.ranksvm_fit(X, Y, OFF, 1.0, 1e-8, 50, 50)
    sparse = _core.sparse_ranksvm(X, Y, OFF, *SPARSE, None, 100, 3, 1e-8)
    fsm = _core.fsmrank(X, Y, OFF, np.eye(3), np.ones(3), 0.1, 0.01, None, 5000, 1e-10)
    r, s, f = fit.result, sparse.result, fsm.result
    assert f.coef.shape == (6,) and fsm.n_pairs == 6  # the doubled problem's w = [w+, w-]
    np.testing.assert_allclose(fsm.coef, f.coef[:3] - f.coef[3:])
    assert f.objective == f.objective_history.min()
    for res in (r, s, f):
        assert type(res) is _core.SolverResult
        assert res.coef.dtype == np.float64
        assert res.objective_history.ndim == 1 and res.objective_history.size >= 1
        assert np.isfinite(res.objective) and res.kkt_residual >= 0 and res.converged
        assert isinstance(res.n_iter, int) and f"SolverResult(n_features={res.coef.size}," in repr(res)
        with pytest.raises(AttributeError):
            res.objective = 0.0
    assert (fit.n_pairs, isinstance(fit.n_cg_iter, int), sparse.n_reweightings) == (6, True, 1)  # l1: one solve
    assert r.objective_history[-1] == r.objective
    for out, field in ((fit, "n_pairs"), (fit, "result"), (sparse, "n_reweightings"), (fsm, "coef")):
        with pytest.raises(AttributeError):
            setattr(out, field, None)
    assert repr(fit).startswith("RankSVMFit(result=SolverResult(n_features=3,") and "n_pairs=6)" in repr(fit)
    built = _core.SolverResult(np.zeros(3), 2.0, np.array([2.0]), 0.0, 0, True)
    assert (built.objective, built.n_iter, built.converged) == (2.0, 0, True)
    np.testing.assert_array_equal(built.coef, np.zeros(3))


def test_one_greedy_binding_for_every_run():
    """GreedyOptions picks the run; the result names its fields, the floating ones only for a
    floating run; the per-cost run with unit costs and no budget is the plain run."""
    plain = _core.greedy_rankrls(X, Y, OFF, G(3))
    unit = _core.greedy_rankrls(X, Y, OFF, G(3, feature_costs=np.ones(3)))
    budget = _core.greedy_rankrls(X, Y, OFF, G(3, budget=1.0))
    floating = _core.greedy_rankrls(X, Y, OFF, G(3, floating=True))
    assert plain.selected.dtype == np.uintp and plain.coef_path.shape == (3, 3)
    assert sorted(plain.selected.tolist()) == [0, 1, 2] and plain.stop_reason is None
    np.testing.assert_array_equal(unit.selected, plain.selected)
    assert budget.selected.tolist() == plain.selected[:1].tolist() and budget.stop_reason == "budget"
    assert plain.subsets is None and plain.step_features is None and plain.step_added is None
    assert plain.step_values is None and repr(plain).endswith("stop_reason=None, subsets=None, step_features=None, "
                                                              "step_added=None, step_values=None)")
    assert floating.subsets is not None and [len(s) for s in floating.subsets] == [1, 2, 3]
    assert floating.step_added is not None and floating.step_added.dtype == bool
    np.testing.assert_array_equal(floating.subsets[-1], floating.selected)
    assert repr(floating).startswith("GreedyResult(selected=array(shape=(3,), dtype=uint")
    assert "subsets=list(len=3)" in repr(floating)
    with pytest.raises(AttributeError):
        plain.selected = None
    options = G(3, criterion="map", convention="letor", feature_costs=C3, budget=2.0)
    assert (options.n_features_to_select, options.criterion, options.convention, options.budget) == (3, "map", "letor", 2.0)
    np.testing.assert_array_equal(options.feature_costs, C3)
    assert repr(options).startswith("GreedyOptions(n_features_to_select=3, alpha=1.0, criterion='map'")


class Quadratic:
    """The loss 1 + w.w, answering every request of the solvers' data sources."""

    def value(self, w):
        return 1.0 + float(w @ w)

    def value_grad(self, w):
        return self.value(w), 2.0 * np.asarray(w)

    def hessp(self, w, v):
        return 2.0 * np.asarray(v)

    def line_derivatives(self, w, d, t, second):
        return 2.0 * float((w + t * d) @ d), 2.0 * float(d @ d)

    def hessian_block(self, w, ws):
        return 2.0 * np.eye(len(ws))

    def lipschitz_bound(self):
        return 2.0

    def n_pairs(self):
        return 0


class InMemoryShards:
    """The greedy shard source of ``greedy_rankrls_sharded`` over in-memory GreedyShards."""

    def __init__(self, *shards):
        self.shards = shards

    def _all(self, method, *args):
        return [getattr(s, method)(*args) for s in self.shards]

    def informative(self):
        return self._all("informative")

    def gram(self):
        return self._all("gram")

    def baseline(self):
        return self._all("baseline")

    def dots(self):
        return self._all("dots")

    def scan(self, c, d, skip):
        return self._all("scan", c, d, skip)

    def cross(self, b):
        return self._all("cross", b)

    def add(self, b, c, d, t, skip):
        dens = self._all("add", b, c, d, t, skip)
        return list(zip(dens, self.dots()))


def _letor_file(tmp_path):
    path = tmp_path / "tiny.txt"
    path.write_text("".join(f"{int(y)} qid:{1 + r // 3} 1:{x[0]} 2:{x[1]} 3:{x[2]} # doc{r}\n"
                            for r, (y, x) in enumerate(zip(Y, X))))
    return str(path)


PAIRS = _core.preference_pairs(Y, OFF)
#: a valid call of every _core function (tmp_path: a folder to write into)
VALID = {
    "simd_level": lambda t: _core.simd_level(),
    "simd_levels": lambda t: _core.simd_levels(),
    "group_queries": lambda t: _core.group_queries(np.array([3, 1, 3], np.int64)),
    "center_by_query": lambda t: _core.center_by_query(X, OFF),
    "load_letor": lambda t: _core.load_letor(_letor_file(t), comments=True),
    "metrics_per_query": lambda t: _core.metrics_per_query(SPEC, Y, Y, OFF),
    "parse_measure": lambda t: _core.parse_measure("ndcg@10"),
    "cascade_grid_per_query": lambda t: _core.cascade_grid_per_query(SPEC[0], Y, OFF, XT, XT, u(0, 1, 2), u(1, 2, 3)),
    "query_pair_counts": lambda t: _core.query_pair_counts(Y, OFF),
    "preference_pairs": lambda t: _core.preference_pairs(Y, OFF),
    "squared_hinge_value_grad": lambda t: _core.squared_hinge_value_grad(X, Y, OFF, S3),
    "squared_hinge_hessp": lambda t: _core.squared_hinge_hessp(X, Y, OFF, S3, np.ones((3, 2))),
    "squared_hinge_line_derivatives": lambda t: _core.squared_hinge_line_derivatives(X, Y, OFF, S3, S3, 1.0),
    "squared_hinge_hessian_block": lambda t: _core.squared_hinge_hessian_block(X, Y, OFF, S3, u(0, 2)),
    "squared_hinge_lipschitz_bound": lambda t: _core.squared_hinge_lipschitz_bound(X, Y, OFF),
    "explicit_squared_hinge_value_grad": lambda t: _core.explicit_squared_hinge_value_grad(
        X, OFF, PAIRS.i, PAIRS.j, PAIRS.pair_offsets, S3),
    "rankrls_fit": lambda t: _core.rankrls_fit(X, Y, OFF, 1.0),
    "rankrls_lqo": lambda t: _core.rankrls_lqo(X, Y, OFF, 1.0),
    "rankrls_alpha_path": lambda t: _core.rankrls_alpha_path(X, Y, OFF, A2),
    "rankrls_gram": lambda t: _core.rankrls_gram(X, Y, OFF),
    "rankrls_eigen": lambda t: _core.rankrls_eigen(V3),
    "rankrls_projected_targets": lambda t: _core.rankrls_projected_targets(X, Y, OFF, V3),
    "rankrls_path_weights": lambda t: _core.rankrls_path_weights(V3, S3, S3, A2),
    "rankrls_lqo_errors": lambda t: _core.rankrls_lqo_errors(X, Y, OFF, V3, S3, S3, A2),
    "rankrls_solve": lambda t: _core.rankrls_solve(V3, S3, 1.0),
    "ranksvm_fit": lambda t: _core.ranksvm_fit(X, Y, OFF, 1.0, 1e-6, 20, 20),
    "ranksvm_fit_with": lambda t: _core.ranksvm_fit_with(Quadratic(), 3, 1.0, 1e-6, 20, 20),
    "sparse_ranksvm": lambda t: _core.sparse_ranksvm(X, Y, OFF, *SPARSE, None, 50, 3, 1e-6),
    "sparse_ranksvm_with": lambda t: _core.sparse_ranksvm_with(Quadratic(), 3, *SPARSE, None, 50, 3, 1e-6),
    "sparse_c_min": lambda t: _core.sparse_c_min(X, Y, OFF, P.l1()),
    "kernel_matrix": lambda t: _core.kernel_matrix(X, X, "rbf", 1.0, 0.0, 3.0),
    "nystroem_normalization": lambda t: _core.nystroem_normalization(X, "rbf", 1.0, 0.0, 3.0),
    "nystroem_transform": lambda t: _core.nystroem_transform(
        X, X, _core.nystroem_normalization(X, "rbf", 1.0, 0.0, 3.0), "rbf", 1.0, 0.0, 3.0),
    "random_fourier_transform": lambda t: _core.random_fourier_transform(X, np.ones((3, 4)), np.ones(4)),
    "greedy_rankrls": lambda t: _core.greedy_rankrls(X, Y, OFF, G(floating=True)),
    "unit_costs": lambda t: _core.unit_costs(3, (u(0, 2, 3), u(0, 2, 1)), C3, np.ones(2)),
    "kendall_similarity": lambda t: _core.kendall_similarity(X, OFF, "geng", True),
    "pairwise_accuracy": lambda t: _core.pairwise_accuracy(X, Y, OFF),
    "metric_importance": lambda t: _core.metric_importance(X, Y, OFF, "ndcg@10", "standard"),
    "fsmrank": lambda t: _core.fsmrank(X, Y, OFF, V3, S3, 0.1, 0.01, None, 50, 1e-6),
    "greedy_rankrls_sharded": lambda t: _core.greedy_rankrls_sharded(
        InMemoryShards(_core.GreedyShard(X[:3], Y[:3], u(0, 3), 1.0), _core.GreedyShard(X[3:], Y[3:], u(0, 3), 1.0)),
        3, 2, G(budget=2.0)),
    "kendall_sums": lambda t: _core.kendall_sums(X, OFF, "geng"),
    "pairwise_counts": lambda t: _core.pairwise_counts(X, Y, OFF),
}
#: the result classes: only a binding builds them
RESULTS = {"QueryGrouping", "LetorData", "PreferencePairs", "RankRLSLqo", "RankSVMFit", "SparseRankSVMFit",
           "GreedyResult", "PairwiseAccuracy", "FSMRankFit", "KendallSums", "PairwiseCounts"}


def _functions():
    return sorted(n for n in dir(_core) if not n.startswith("_") and callable(getattr(_core, n))
                  and not isinstance(getattr(_core, n), type))


def test_every_core_function_has_a_valid_call():
    assert set(_functions()) == set(VALID), (set(_functions()) - set(VALID), set(VALID) - set(_functions()))


@pytest.mark.parametrize("name", sorted(VALID))
def test_no_core_function_returns_a_bare_tuple_of_more_than_two(name, tmp_path):
    """Issue #32: more than two values cross the boundary as a result class with named,
    read-only fields whose repr lists them."""
    out = VALID[name](tmp_path)
    assert not (isinstance(out, tuple) and len(out) > 2), f"_core.{name} returns a {len(out)}-tuple"
    if type(out).__name__ in RESULTS:
        fields = [k for k, v in vars(type(out)).items()
                  if (inspect.isgetsetdescriptor(v) or inspect.ismemberdescriptor(v)) and not k.startswith("_")]
        assert len(fields) > 2 or "result" in fields, fields  # a class only where a tuple had > 2 values
        text = repr(out)
        assert text.startswith(type(out).__name__ + "(")
        for field in fields:
            assert f"{field}=" in text, (field, text)
            with pytest.raises(AttributeError):
                setattr(out, field, None)


def test_the_results_are_what_the_tuples_were(tmp_path):
    """The named fields hold the values the tuples held, in their order and types."""
    g = _core.group_queries(np.array([3, 1, 3], np.int64))
    assert (g.perm.tolist(), g.offsets.tolist(), g.ids.tolist()) == ([0, 2, 1], [0, 2, 3], [3, 1])
    data = _core.load_letor(_letor_file(tmp_path), comments=True)
    np.testing.assert_array_equal(data.x, X)
    assert (data.y.tolist(), data.qid.tolist()) == (Y.tolist(), [1, 1, 1, 2, 2, 2])
    assert data.comments == [f"doc{r}" for r in range(6)] and _core.load_letor(_letor_file(tmp_path)).comments is None
    assert _core.load_letor(_letor_file(tmp_path), float32=True).x.dtype == np.float32
    assert (PAIRS.i.size, PAIRS.pair_offsets.tolist()) == (6, [0, 3, 6])
    assert (Y[PAIRS.i] > Y[PAIRS.j]).all()
    lqo = _core.rankrls_lqo(X, Y, OFF, 1.0)
    np.testing.assert_array_equal(lqo.coef, _core.rankrls_fit(X, Y, OFF, 1.0))
    assert lqo.lqo_error == pytest.approx(float(lqo.residuals @ lqo.residuals))
    acc = _core.pairwise_accuracy(X, Y, OFF)
    counts = _core.pairwise_counts(X, Y, OFF)
    assert acc.n_pairs == counts.n_pairs == 6
    np.testing.assert_allclose(acc.ascending, 1 - counts.ascending / (2.0 * counts.n_pairs))
    np.testing.assert_allclose(acc.descending, 1 - counts.descending / (2.0 * counts.n_pairs))
    sums = _core.kendall_sums(X, OFF, "geng")
    np.testing.assert_allclose(sums.s / sums.n_queries, _core.kendall_similarity(X, OFF, "geng", False))
    assert sums.s_neg.shape == (3, 3)
    sharded = VALID["greedy_rankrls_sharded"](tmp_path)
    memory = _core.greedy_rankrls(X, Y, OFF, G(budget=2.0))
    np.testing.assert_array_equal(sharded.selected, memory.selected)
    np.testing.assert_allclose(sharded.lqo_scores, memory.lqo_scores)
    assert sharded.stop_reason == memory.stop_reason and sharded.subsets is None


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
    public = {n for n in dir(_core) if not n.startswith("_") and callable(getattr(_core, n))} - RESULTS
    assert public == set(CASES), (public - set(CASES), set(CASES) - public)
    assert RESULTS <= set(dir(_core))


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
