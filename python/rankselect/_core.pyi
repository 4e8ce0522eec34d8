"""Type stubs of the Rust extension module ``rankselect._core``."""
from typing import Callable, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "__version__",
    "THREAD_POOL_FALLBACK",
    "simd_level",
    "simd_levels",
    "QueryGrouping",
    "group_queries",
    "center_by_query",
    "LetorData",
    "load_letor",
    "CONVENTIONS",
    "TIES",
    "metrics_per_query",
    "cascade_grid_per_query",
    "parse_measure",
    "query_pair_counts",
    "PreferencePairs",
    "preference_pairs",
    "squared_hinge_value_grad",
    "squared_hinge_hessp",
    "squared_hinge_line_derivatives",
    "squared_hinge_hessian_block",
    "squared_hinge_lipschitz_bound",
    "explicit_squared_hinge_value_grad",
    "SolverResult",
    "rankrls_gram",
    "rankrls_eigen",
    "rankrls_projected_targets",
    "rankrls_path_weights",
    "rankrls_lqo_errors",
    "rankrls_solve",
    "rankrls_fit",
    "RankRLSLqo",
    "rankrls_lqo",
    "rankrls_alpha_path",
    "RankSVMFit",
    "ranksvm_fit",
    "ranksvm_fit_with",
    "SparseRankSVMFit",
    "sparse_ranksvm",
    "sparse_ranksvm_with",
    "sparse_c_min",
    "PenaltySpec",
    "kernel_matrix",
    "nystroem_normalization",
    "nystroem_transform",
    "random_fourier_transform",
    "GreedyOptions",
    "GreedyResult",
    "greedy_rankrls",
    "unit_costs",
    "kendall_similarity",
    "KENDALL_SHORT_MAX",
    "PairwiseAccuracy",
    "pairwise_accuracy",
    "metric_importance",
    "FSMRankFit",
    "fsmrank",
    "GreedyShard",
    "greedy_rankrls_sharded",
    "KendallSums",
    "kendall_sums",
    "PairwiseCounts",
    "pairwise_counts",
]

__version__: str
#: None, or why rayon's thread pool fell back to one thread at import.
THREAD_POOL_FALLBACK: str | None

def simd_level() -> str:
    """The SIMD level the kernels run at (``RANKSELECT_SIMD``'s, else the CPU's best)."""

def simd_levels() -> list[str]:
    """The SIMD levels this CPU runs, from the narrowest."""

# Every binding that hands back more than two values returns a read-only result class with
# named fields (rust/py/src/results.rs), never a bare tuple; its repr lists the fields.
@final
class QueryGrouping:
    """Rows grouped by query: the rows of query q are ``perm[offsets[q]:offsets[q + 1]]``,
    its id ``ids[q]``."""
    @property
    def perm(self) -> npt.NDArray[np.uintp]: ...
    @property
    def offsets(self) -> npt.NDArray[np.uintp]: ...
    @property
    def ids(self) -> npt.NDArray[np.int64]: ...

def group_queries(qid: npt.NDArray[np.int64]) -> QueryGrouping:
    """Stable grouping of rows by qid: queries in order of first appearance, rows in input order."""

def center_by_query(x: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp]) -> npt.NDArray[np.float64]:
    """Rows grouped by query: each column minus its query mean (RankRLS's centring)."""


@final
class LetorData:
    """A parsed LETOR file: ``x`` (m, n), ``y``, ``qid``, each row's comment (or None)."""
    @property
    def x(self) -> npt.NDArray[np.float64] | npt.NDArray[np.float32]: ...
    @property
    def y(self) -> npt.NDArray[np.float64]: ...
    @property
    def qid(self) -> npt.NDArray[np.int64]: ...
    @property
    def comments(self) -> list[str] | None: ...

def load_letor(
    path: str,
    n_features: int | None = None,
    float32: bool = False,
    comments: bool = False,
    allow_nonfinite: bool = False,
    max_memory: int | None = None,
) -> LetorData: ...

#: the metric convention names, the default first: ("standard", "exponential", "trec", "lightgbm",
#: "letor"); "standard" is the old name of "exponential" (core ``Convention::NAMES``)
CONVENTIONS: tuple[str, ...]
#: the tie modes, the default first: ("stable", "pessimistic") (core ``Ties::ALL``)
TIES: tuple[str, ...]

def parse_measure(name: str) -> tuple[str, int | None]:
    """The one parser of measure names: (kind, cut-off), kind in ndcg, p, map, meanndcg, err."""

def metrics_per_query(
    specs: list[tuple[str, str, str]],
    y: npt.NDArray[np.float64],
    scores: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    max_grade: float | None = None,
) -> npt.NDArray[np.float64]:
    """Per-query metrics, shape (len(specs), n_queries); each spec is
    (measure, convention, ties), e.g. ("ndcg@10", "letor", "stable"). Rows grouped
    contiguously by ``offsets``; GIL released, parallel over queries."""
    ...

def cascade_grid_per_query(
    spec: tuple[str, str, str],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    scores1: npt.NDArray[np.float64],
    scores2: npt.NDArray[np.float64],
    phase1: npt.NDArray[np.uintp],
    windows: npt.NDArray[np.uintp],
    max_memory: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per-query values (single (n_queries, n1), cascade (n_queries, n2)) of every phase-1
    ranker (a row of ``scores1``, n1 x m) alone and of every cascade ``c``: phase 2 (row ``c``
    of ``scores2``, n2 x m) re-ranks the top ``windows[c]`` rows of phase-1 ranker
    ``phase1[c]`` above the rest in phase-1 order. ``spec`` is (measure, convention, ties).
    GIL released, parallel over queries, interruptible."""
    ...

# rankrls
def rankrls_fit(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp], alpha: float
) -> npt.NDArray[np.float64]: ...

@final
class RankRLSLqo:
    """RankRLS with exact leave-query-out predictions (grouped order), the query-centred
    hold-out residuals and their sum of squares (eq. 7)."""
    @property
    def coef(self) -> npt.NDArray[np.float64]: ...
    @property
    def predictions(self) -> npt.NDArray[np.float64]: ...
    @property
    def residuals(self) -> npt.NDArray[np.float64]: ...
    @property
    def lqo_error(self) -> float: ...

def rankrls_lqo(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp], alpha: float
) -> RankRLSLqo: ...

def rankrls_alpha_path(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    alphas: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...

# The alpha path in per-shard pieces (Pahikkala et al. 2010, eq. 5, Theorem 3.1 / eq. 7):
# (a) per shard Xc^T Xc, Xc^T yc; (b) eigendecomposition of the sum, per-shard (Xc V)^T yc,
# weights per alpha; (c) per-shard LQO errors per alpha.
def rankrls_gram(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(Xc^T Xc (n, n), Xc^T yc (n,)) of a shard of whole queries."""

def rankrls_eigen(g: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(s, V): G = V diag(s) V^T, s clamped at 0."""

def rankrls_projected_targets(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp],
    v: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """(Xc V)^T yc of a shard."""

def rankrls_path_weights(
    v: npt.NDArray[np.float64], s: npt.NDArray[np.float64], zy: npt.NDArray[np.float64],
    alphas: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """(n_alphas, n): V diag(1 / (s + alpha)) zy per alpha (eq. 5)."""

def rankrls_lqo_errors(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp],
    v: npt.NDArray[np.float64], s: npt.NDArray[np.float64], zy: npt.NDArray[np.float64],
    alphas: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """(n_alphas,): per alpha, the shard's sum of squared LQO residuals (eq. 7)."""

def rankrls_solve(g: npt.NDArray[np.float64], b: npt.NDArray[np.float64], alpha: float) -> npt.NDArray[np.float64]:
    """(G + alpha I)^-1 b (eq. 5, Cholesky)."""

# greedy_rls: one binding; GreedyOptions says which run (plain, per cost under a budget,
# floating), greedy_rankrls runs it in memory and greedy_rankrls_sharded over query shards.
@final
class GreedyOptions:
    """Which greedy RankRLS run: names and integers checked here, values by the run."""
    def __new__(
        cls,
        n_features_to_select: int,
        alpha: float,
        criterion: str = "squared",
        min_improvement: float | None = None,
        convention: str = "standard",
        max_memory: int | None = None,
        feature_costs: npt.NDArray[np.float64] | None = None,
        budget: float | None = None,
        floating: bool = False,
        group_costs: npt.NDArray[np.float64] | None = None,
        select_groups: bool = True,
    ) -> GreedyOptions: ...
    @property
    def n_features_to_select(self) -> int: ...
    @property
    def alpha(self) -> float: ...
    @property
    def criterion(self) -> str: ...
    @property
    def min_improvement(self) -> float | None: ...
    @property
    def convention(self) -> str: ...
    @property
    def max_memory(self) -> int | None: ...
    @property
    def feature_costs(self) -> npt.NDArray[np.float64] | None: ...
    @property
    def budget(self) -> float | None: ...
    @property
    def floating(self) -> bool: ...
    @property
    def group_costs(self) -> npt.NDArray[np.float64] | None: ...
    @property
    def select_groups(self) -> bool: ...

@final
class GreedyResult:
    """A greedy RankRLS path; ``stop_reason`` is None, "min_improvement", "uninformative",
    "budget" or "visited" (GreedyRankRLS.stop_reason_ as is). The floating fields are None
    unless the run was floating."""
    @property
    def selected(self) -> npt.NDArray[np.uintp]: ...
    @property
    def lqo_scores(self) -> npt.NDArray[np.float64]: ...
    @property
    def coef_path(self) -> npt.NDArray[np.float64]: ...
    @property
    def stop_reason(self) -> str | None: ...
    @property
    def subsets(self) -> list[npt.NDArray[np.uintp]] | None: ...
    @property
    def step_features(self) -> npt.NDArray[np.uintp] | None: ...
    @property
    def step_added(self) -> npt.NDArray[np.bool_] | None: ...
    @property
    def step_values(self) -> npt.NDArray[np.float64] | None: ...

def greedy_rankrls(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    options: GreedyOptions,
    progress: Callable[[int, int, float], object] | None = None,
    groups: tuple[npt.NDArray[np.uintp], npt.NDArray[np.uintp]] | None = None,
) -> GreedyResult: ...
def unit_costs(
    n_features: int,
    groups: tuple[npt.NDArray[np.uintp], npt.NDArray[np.uintp]] | None,
    feature_costs: npt.NDArray[np.float64] | None = None,
    group_costs: npt.NDArray[np.float64] | None = None,
    select_groups: bool = True,
) -> npt.NDArray[np.float64] | None: ...

KENDALL_SHORT_MAX: int

def kendall_similarity(
    x: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    variant: str,
    absolute: bool,
    short_max: int | None = None,
) -> npt.NDArray[np.float64]: ...

@final
class PairwiseAccuracy:
    """Pairwise accuracy of every feature by ``x`` and by ``-x``, and the preference pairs."""
    @property
    def ascending(self) -> npt.NDArray[np.float64]: ...
    @property
    def descending(self) -> npt.NDArray[np.float64]: ...
    @property
    def n_pairs(self) -> int: ...

def pairwise_accuracy(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    short_max: int | None = None,
) -> PairwiseAccuracy: ...

def metric_importance(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    measure: str,
    convention: str,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...

# pairwise (rust/py/src/pairwise.rs): rows grouped by query, offsets of shape (n_queries + 1,)
def query_pair_counts(
    y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp]
) -> npt.NDArray[np.uintp]: ...

@final
class PreferencePairs:
    """Pair p is grouped rows ``(i[p], j[p])`` with ``y[i] > y[j]``; the pairs of query q are
    ``pair_offsets[q]:pair_offsets[q + 1]``."""
    @property
    def i(self) -> npt.NDArray[np.uintp]: ...
    @property
    def j(self) -> npt.NDArray[np.uintp]: ...
    @property
    def pair_offsets(self) -> npt.NDArray[np.uintp]: ...

def preference_pairs(
    y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp], max_pairs: int | None = None,
    max_memory: int | None = None,
) -> PreferencePairs: ...

def squared_hinge_value_grad(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    w: npt.NDArray[np.float64],
) -> tuple[float, npt.NDArray[np.float64]]: ...

def squared_hinge_hessp(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    w: npt.NDArray[np.float64],
    v: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]: ...

def squared_hinge_line_derivatives(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    w: npt.NDArray[np.float64],
    d: npt.NDArray[np.float64],
    t: float,
) -> tuple[float, float]:
    """(grad L(w + t d) . d, d . H(w + t d) d) along a line (RankSVM's exact line search)."""

def squared_hinge_hessian_block(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    w: npt.NDArray[np.float64],
    ws: npt.NDArray[np.uintp],
) -> npt.NDArray[np.float64]:
    """H[ws, ws] (|ws|, |ws|), a block of the generalized Hessian at w (Chen et al. eqs. 24-25)."""

def squared_hinge_lipschitz_bound(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp]
) -> float:
    """2 sum_{(i,j) in P} ||x_i - x_j||^2 (Laporte et al. Proposition 1)."""

def explicit_squared_hinge_value_grad(
    x: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    i: npt.NDArray[np.uintp],
    j: npt.NDArray[np.uintp],
    pair_offsets: npt.NDArray[np.uintp],
    w: npt.NDArray[np.float64],
) -> tuple[float, npt.NDArray[np.float64]]: ...

# The solver contract (rust/py/src/solvers.rs): a solver binding returns a fit class whose
# ``result`` is the shared SolverResult, its other fields the method's own extras.
@final
class SolverResult:
    """What every solver returns (read-only)."""
    def __new__(
        cls,
        coef: npt.NDArray[np.float64],
        objective: float,
        objective_history: npt.NDArray[np.float64],
        kkt_residual: float,
        n_iter: int,
        converged: bool,
    ) -> SolverResult: ...
    @property
    def coef(self) -> npt.NDArray[np.float64]: ...
    @property
    def objective(self) -> float: ...
    @property
    def objective_history(self) -> npt.NDArray[np.float64]: ...
    @property
    def kkt_residual(self) -> float: ...
    @property
    def n_iter(self) -> int: ...
    @property
    def converged(self) -> bool: ...

# ranksvm (rust/py/src/models/ranksvm.rs)
@final
class RankSVMFit:
    """RankSVM's truncated Newton: the solver's result, the CG iterations, the preference pairs."""
    @property
    def result(self) -> SolverResult: ...
    @property
    def n_cg_iter(self) -> int: ...
    @property
    def n_pairs(self) -> int: ...

def ranksvm_fit(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.uintp],
    c: float,
    tol: float,
    max_iter: int,
    max_cg_iter: int,
    w0: npt.NDArray[np.float64] | None = None,
) -> RankSVMFit:
    """result.kkt_residual is the relative gradient norm."""

def ranksvm_fit_with(
    loss: object,
    n_features: int,
    c: float,
    tol: float,
    max_iter: int,
    max_cg_iter: int,
    w0: npt.NDArray[np.float64] | None = None,
    max_memory: int | None = None,
) -> RankSVMFit:
    """``ranksvm_fit``'s truncated Newton with the pairwise loss answered by ``loss``:
    ``value_grad(w) -> (L, grad)``, ``hessp(w, v) -> H v``,
    ``line_derivatives(w, d, t, second) -> (grad L(w + t d) . d, d . H(w + t d) d)``,
    ``n_pairs() -> int``. An exception raised by ``loss`` is re-raised as is."""

# kernel_approx: Nystroem and random Fourier feature maps (float64, C-contiguous inputs).
def kernel_matrix(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    kernel: str,
    gamma: float,
    coef0: float,
    degree: float,
) -> npt.NDArray[np.float64]: ...

def nystroem_normalization(
    landmarks: npt.NDArray[np.float64],
    kernel: str,
    gamma: float,
    coef0: float,
    degree: float,
    rank: int | None = None,
) -> npt.NDArray[np.float64]: ...

def nystroem_transform(
    x: npt.NDArray[np.float64],
    landmarks: npt.NDArray[np.float64],
    normalization: npt.NDArray[np.float64],
    kernel: str,
    gamma: float,
    coef0: float,
    degree: float,
) -> npt.NDArray[np.float64]: ...

def random_fourier_transform(
    x: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64],
    offset: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]: ...

# sparse solvers (rust/py/src/models/sparse_ranksvm.rs); x rows grouped by query (offsets)
@final
class SparseRankSVMFit:
    """Sparse RankSVM: the last (weighted) L1 problem's result, the weighted-L1 solves done."""
    @property
    def result(self) -> SolverResult: ...
    @property
    def n_reweightings(self) -> int: ...

@final
class PenaltySpec:
    """The penalty of sparse RankSVM with its parameters (one constructor per penalty; built by
    ``rankselect.models.penalties``)."""
    @staticmethod
    def l1(weights: npt.NDArray[np.float64] | None = None) -> PenaltySpec: ...
    @staticmethod
    def log(epsilon: float) -> PenaltySpec: ...
    @staticmethod
    def mcp(gamma: float) -> PenaltySpec: ...
    @staticmethod
    def lp(p: float, epsilon: float) -> PenaltySpec: ...
    @staticmethod
    def group_lasso(groups: npt.NDArray[np.uintp], l1_ratio: float = 0.0) -> PenaltySpec: ...

def sparse_ranksvm(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp],
    c: float, penalty: PenaltySpec, w0: npt.NDArray[np.float64] | None,
    max_iter: int, max_reweightings: int, tol: float, solver: str = "prox-newton",
) -> SparseRankSVMFit: ...

def sparse_ranksvm_with(
    loss: object, n_features: int, c: float, penalty: PenaltySpec, w0: npt.NDArray[np.float64] | None,
    max_iter: int, max_reweightings: int, tol: float, solver: str = "prox-newton",
    max_memory: int | None = None,
) -> SparseRankSVMFit:
    """``sparse_ranksvm`` with the pairwise loss answered by ``loss``: ``value(w)``,
    ``value_grad(w) -> (L, grad)``, ``hessian_block(w, ws) -> H[ws, ws]``,
    ``lipschitz_bound()``. An exception raised by ``loss`` is re-raised as is."""

def sparse_c_min(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp],
    penalty: PenaltySpec,
) -> float:
    """Smallest C with a non-zero sparse RankSVM solution (KKT at w = 0) for ``penalty``."""

@final
class FSMRankFit:
    """FSMRank: the result on the doubled problem (its coef is [w+, w-], 2d), coef = w+ - w-
    (d), the preference pairs."""
    @property
    def result(self) -> SolverResult: ...
    @property
    def coef(self) -> npt.NDArray[np.float64]: ...
    @property
    def n_pairs(self) -> int: ...

def fsmrank(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp],
    similarity: npt.NDArray[np.float64], importance: npt.NDArray[np.float64],
    lambda1: float, lambda2: float, w0: npt.NDArray[np.float64] | None,
    max_iter: int, tol: float, accelerate: bool = True,
) -> FSMRankFit: ...

# Query-shard kernels (rankselect.dask): see rust/core/src/greedy_shard.rs and shard_sums.rs.
@final
class GreedyShard:
    def __new__(
        cls,
        x: npt.NDArray[np.float64],
        y: npt.NDArray[np.float64],
        offsets: npt.NDArray[np.uintp],
        alpha: float,
        criterion: str = "squared",
        convention: str = "standard",
        max_memory: int | None = None,
    ) -> GreedyShard: ...
    def informative(self) -> npt.NDArray[np.bool_]: ...
    def dots(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], float]: ...
    def scan(
        self, c: npt.NDArray[np.float64], d: npt.NDArray[np.float64], skip: npt.NDArray[np.bool_]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def cross(self, b: int) -> npt.NDArray[np.float64]: ...
    def add(
        self, b: int, c: float, d: float, t: npt.NDArray[np.float64], skip: npt.NDArray[np.bool_]
    ) -> float: ...
    def unit_dots(
        self, offsets: npt.NDArray[np.uintp], columns: npt.NDArray[np.uintp]
    ) -> npt.NDArray[np.float64]: ...
    def scan_units(
        self,
        offsets: npt.NDArray[np.uintp],
        columns: npt.NDArray[np.uintp],
        k: npt.NDArray[np.float64],
        h: npt.NDArray[np.float64],
    ) -> npt.NDArray[np.float64]: ...
    def gram(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def baseline(self) -> float: ...

def greedy_rankrls_sharded(
    shards: object,
    n_features: int,
    n_queries: int,
    options: GreedyOptions,
    progress: Callable[[int, int, float], object] | None = None,
    groups: tuple[npt.NDArray[np.uintp], npt.NDArray[np.uintp]] | None = None,
) -> GreedyResult:
    """Greedy RankRLS over query shards (``options`` not floating): the core's selection loop;
    ``shards`` answers ``informative()``, ``gram()``, ``baseline()``, ``dots()``,
    ``scan(c, d, skip)``, ``cross(b)``, ``add(b, c, d, t, skip)`` (with ``groups``, also
    ``unit_dots(offsets, columns)`` and ``scan_units(offsets, columns, k, h)``; optionally
    ``rows()``, each shard's rows and largest query's) with one entry per shard, in shard
    order."""

@final
class KendallSums:
    """A shard's Kendall sums: ``s``, ``s_neg`` (n, n) and the queries summed."""
    @property
    def s(self) -> npt.NDArray[np.float64]: ...
    @property
    def s_neg(self) -> npt.NDArray[np.float64]: ...
    @property
    def n_queries(self) -> int: ...

def kendall_sums(x: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp], variant: str) -> KendallSums: ...

@final
class PairwiseCounts:
    """A shard's exact counts behind pairwise accuracy (twice the misordered pairs by ``x``
    and by ``-x``, a tie counting one) and its preference pairs."""
    @property
    def ascending(self) -> npt.NDArray[np.uint64]: ...
    @property
    def descending(self) -> npt.NDArray[np.uint64]: ...
    @property
    def n_pairs(self) -> int: ...

def pairwise_counts(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp]
) -> PairwiseCounts: ...
