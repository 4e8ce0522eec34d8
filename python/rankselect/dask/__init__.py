"""rankselect on a Dask cluster: the same methods on data sharded by query.

Every rankselect kernel is a sum of per-query terms, so data split into row blocks that
each hold **whole queries** (the chunks of Dask arrays ``X`` (m, n), ``y`` (m,), ``qid``
(m,), chunked along rows only) gives the in-memory results with no approximation: each
worker computes its shard's sums, the client adds them **in shard order** (so results do
not depend on scheduling) and finishes the computation.

- data: :func:`partition_by_query` (in-memory arrays -> Dask arrays of whole-query
  chunks), :func:`read_letor` (a set of LETOR files, one chunk per file). A query split
  across chunks is a ValueError naming the qid.
- selection and models: :class:`GreedyRankRLS` (the greedy caches stay resident on the
  workers, one Dask actor per shard; a step moves O(n) numbers per shard, never rows),
  :class:`RankRLS`, :class:`RankSVM`, :class:`SparseRankSVM`, :class:`GAS` with
  :func:`kendall_similarity` and :func:`feature_importance`.
- evaluation: :func:`compute` and :func:`evaluate`, the metrics of
  :mod:`rankselect.metrics` on scores held in Dask arrays.

**The layer delegates.** Each estimator subclasses its in-memory class (as LightGBM's
``DaskLGBMRanker(LGBMRanker)``): the same parameters plus ``client=`` (default: the current
client, :func:`distributed.default_client`), the same validation
(``_parameter_constraints``), the same :class:`~rankselect.exceptions.DegenerateDataWarning`
and errors, the same fitted attributes (NumPy arrays). The fits run the Rust core's own
solvers and selection rules (truncated Newton, proximal Newton / FISTA, the RankRLS alpha
path, the greedy RankRLS loop, the GAS search), which ask for per-shard sums: the workers
compute them with the core's per-shard kernels and this layer adds them in shard order. It
moves data and adds sums; it decides nothing the core decides. Needs
``pip install 'rankselect[dask]'``.

Modules: :mod:`~rankselect.dask.partition` (data), :mod:`~rankselect.dask.shards` (shards, their
ordered sums and facts), :mod:`~rankselect.dask.pairwise` (the pairwise loss as sums over
shards, answering the core's solvers), :mod:`~rankselect.dask.metrics`,
:mod:`~rankselect.dask.gas`, :mod:`~rankselect.dask.rankrls`, :mod:`~rankselect.dask.ranksvm`,
:mod:`~rankselect.dask.sparse_ranksvm`, :mod:`~rankselect.dask.greedy_rankrls`.
"""
try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "rankselect.dask needs dask and distributed; install them with "
        "pip install 'rankselect[dask]' (or pip install 'dask[distributed]')"
    ) from exc

from .gas import GAS, feature_importance, kendall_similarity  # noqa: E402
from .greedy_rankrls import GreedyRankRLS  # noqa: E402
from .metrics import compute, evaluate  # noqa: E402
from .partition import partition_by_query, read_letor  # noqa: E402
from .rankrls import RankRLS  # noqa: E402
from .ranksvm import RankSVM  # noqa: E402
from .sparse_ranksvm import SparseRankSVM  # noqa: E402

__all__ = [
    "partition_by_query",
    "read_letor",
    "GreedyRankRLS",
    "RankRLS",
    "RankSVM",
    "SparseRankSVM",
    "GAS",
    "kendall_similarity",
    "feature_importance",
    "compute",
    "evaluate",
]
