"""rankselect on a Dask cluster: the same methods on data sharded by query.

Every rankselect kernel is a sum of per-query terms, so data split into row blocks that
each hold **whole queries** (the chunks of Dask arrays ``X`` (m, n), ``y`` (m,), ``qid``
(m,), chunked along rows only) gives the in-memory results with no approximation: each
worker computes its shard's sums, the client adds them **in shard order** (so results do
not depend on scheduling) and finishes the computation.

- data: :func:`partition_by_query` (in-memory arrays -> Dask arrays of whole-query
  chunks), :func:`read_letor` (a set of LETOR files, one chunk per file). A query split
  across chunks is a ValueError naming the qid.
- selection and models: :class:`GreedyRankRLS` (exact: the greedy caches stay resident on
  the workers, one Dask actor per shard; a step moves O(n) numbers per shard, never rows),
  :class:`RankRLS` (sums of per-shard Gram matrices), :class:`RankSVM` and
  :class:`SparseRankSVM` (l1) (the solvers' loss, gradient and Hessian products as sums over
  shards), :class:`GAS` with :func:`kendall_similarity` and :func:`feature_importance`.
- evaluation: :func:`compute` and :func:`evaluate`, the metrics of
  :mod:`rankselect.metrics` on scores held in Dask arrays.

Estimators take the parameters of their in-memory counterparts plus ``client=`` (default:
the current client, :func:`distributed.default_client`), fit on Dask arrays and end with
the same fitted attributes (NumPy arrays). Needs ``pip install 'rankselect[dask]'``.

Modules: :mod:`~rankselect.dask.partition` (data), :mod:`~rankselect.dask.shards` (shards and
their ordered sums), :mod:`~rankselect.dask.metrics`, :mod:`~rankselect.dask.gas`,
:mod:`~rankselect.dask.rankrls`, :mod:`~rankselect.dask.ranksvm`,
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
