"""Synthetic LETOR-like ranking data with known ground truth, and a small shipped example.

:func:`make_ranking` draws queries of documents whose features fall into four known groups:

- **informative** features ``x_i = z_i + mu_q`` (``z_i ~ N(0, I)``) drive a latent relevance
  score ``s_i = w . z_i + noise * eps_i`` (``|w_j| ~ U(0.5, 1)`` with random signs, then
  ``||w|| = 1``; ``eps ~ N(0, 1)``), where
  ``mu_q ~ N(0, query_shift^2)`` is a per-query offset of every feature (so centring features
  per query matters: the offset carries no relevance);
- **redundant** features are noisy copies of informative ones,
  ``r_j = x_{src(j)} + redundant_noise * N(0, 1)``: correlated with relevance, but never more
  useful than their source, so a good selector takes the informative feature first;
- **noise** features are independent ``N(0, 1)`` plus their own per-query offset;
- **constant** features hold one value (1.0) in every row.

Graded labels ``0 .. label_levels - 1`` come from per-query quantiles of the latent score:
with ``f = (rank + 0.5) / n_q`` the within-query rank fraction of ``s_i`` (ascending), the
label is the number of thresholds ``t_l = 0.5 + 0.5 * l / (label_levels - 1)``,
``l = 0 .. label_levels - 2``, that ``f`` exceeds: the lower half of each query is
non-relevant and the top half is split evenly among the relevant grades.

The shipped example (``load_example("train" | "vali" | "test")``) was written by
:func:`write_example` from ``make_ranking(**EXAMPLE_PARAMS)`` (seed 20240607), queries 1-40 as
train, 41-55 as vali and 56-70 as test, values rounded to 4 significant digits; a test
regenerates it and compares the files. Its 22 features, 1-based as in the files (the Python
API is 0-based), are:

- informative: 8, 4, 12, 5, 17 (in decreasing order of ``|w|``)
- redundant: 10 (copy of 8), 21 (copy of 4), 3 (copy of 12), 15 (copy of 5), 1 (copy of 17)
- noise: 2, 6, 7, 9, 11, 13, 14, 16, 19, 20
- constant: 18, 22

(``example_truth()`` returns the same as a :class:`GroundTruth`, 0-based.)

:func:`feature_layout` gives the published feature layouts of LETOR 4.0, MSLR-WEB10K/30K and
OHSUMED (LETOR 3.0 and 2.0) (names and families only, no data:
:mod:`rankselect.data.datasets.layouts`), and :func:`feature_costs` their published cost per
feature (the MSLR-WEB tiers of WSDM 2019, :mod:`rankselect.data.datasets.costs`).
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union, cast

import numpy as np

from ..letor import RankingData, load_letor, save_letor
from .costs import feature_costs
from .layouts import LAYOUTS, STREAMS, Layout, feature_layout

__all__ = [
    "feature_costs",
    "feature_layout",
    "Layout",
    "LAYOUTS",
    "STREAMS",
    "GroundTruth",
    "SyntheticRanking",
    "make_ranking",
    "EXAMPLE_PARAMS",
    "example_path",
    "load_example",
    "example_truth",
    "write_example",
]


@dataclass(frozen=True)
class GroundTruth:
    """Which columns (0-based) of a synthetic data set are what.

    Attributes
    ----------
    informative : ndarray of int
        Columns that drive the latent relevance, in decreasing order of ``|weights|``.
    weights : ndarray of float
        Weight of each informative column in the latent score (aligned with
        ``informative``; unit norm).
    redundant_of : dict int -> int
        Redundant column -> the informative column it is a noisy copy of.
    noise : ndarray of int
        Pure noise columns.
    constant : ndarray of int
        Constant columns.

    Examples
    --------
    >>> from rankselect.data.datasets import example_truth
    >>> truth = example_truth()
    >>> truth.informative, truth.noise[:3]
    (array([ 7,  3, 11,  4, 16]), array([1, 5, 6]))
    """

    informative: np.ndarray
    weights: np.ndarray
    redundant_of: dict[int, int]
    noise: np.ndarray
    constant: np.ndarray

    @property
    def redundant(self) -> np.ndarray:
        """Redundant columns, sorted."""
        return np.array(sorted(self.redundant_of), dtype=np.int64)


@dataclass(repr=False, eq=False)
class SyntheticRanking(RankingData):
    """A :class:`~rankselect.RankingData` from :func:`make_ranking`, with its ``truth``
    (:class:`GroundTruth`) and the ``latent`` relevance score of each row (n_samples,).

    Examples
    --------
    >>> from rankselect.data.datasets import make_ranking
    >>> data = make_ranking(n_queries=10, random_state=0)
    >>> type(data).__name__, data.X.shape, data.truth.informative
    ('SyntheticRanking', (200, 20), array([ 5, 17,  3,  4,  8]))
    """

    truth: Optional[GroundTruth] = None
    latent: Optional[np.ndarray] = field(default=None)


def _rng(random_state) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        return np.random.default_rng(None if random_state is None else int(random_state))
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {random_state!r}")


def _count(value, name: str, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def _nonneg_float(value, name: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if not np.isfinite(cast(float, value)) or cast(float, value) < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value}")
    return float(value)


def make_ranking(
    n_queries: int = 100,
    docs_per_query: Union[int, tuple[int, int]] = 20,
    n_informative: int = 5,
    n_redundant: int = 5,
    n_noise: int = 10,
    n_constant: int = 0,
    label_levels: int = 3,
    noise: float = 0.5,
    redundant_noise: float = 0.5,
    query_shift: float = 1.0,
    shuffle: bool = True,
    random_state=None,
) -> SyntheticRanking:
    """Generate a LETOR-like ranking data set with known informative / redundant / noise
    features (see the module docstring for the model).

    Parameters
    ----------
    n_queries : int
        Number of queries; qids are ``1 .. n_queries`` and rows are grouped by query.
    docs_per_query : int or (int, int)
        Documents per query, or an inclusive ``(min, max)`` range drawn uniformly per query.
    n_informative, n_redundant, n_noise, n_constant : int
        Feature group sizes; ``n_features`` is their sum. Redundant feature ``j`` copies
        informative feature ``j mod n_informative``.
    label_levels : int
        Number of relevance grades (labels ``0 .. label_levels - 1``), >= 2.
    noise : float
        Standard deviation of the noise added to the latent score (whose signal part has
        unit variance within a query).
    redundant_noise : float
        Standard deviation of the noise added to a redundant copy.
    query_shift : float
        Standard deviation of the per-query feature offsets.
    shuffle : bool
        Permute the columns (``truth`` gives the permuted positions). If False the columns
        are informative, redundant, noise, constant, in that order.
    random_state : None, int or numpy.random.Generator
        Seed; the same seed gives the same data.

    Returns
    -------
    SyntheticRanking
        ``X`` (n_samples, n_features), ``y`` (n_samples,) in ``0 .. label_levels - 1``,
        ``qid`` (n_samples,), ``truth`` (:class:`GroundTruth`), ``latent`` (n_samples,).
        Unpacks as ``X, y, qid``.

    Examples
    --------
    >>> from rankselect.data.datasets import make_ranking
    >>> data = make_ranking(n_queries=20, docs_per_query=10, n_informative=3, n_redundant=2, n_noise=5, random_state=0)
    >>> data.X.shape, data.n_queries
    ((200, 10), 20)
    >>> data.truth.informative, data.truth.redundant
    (array([3, 5, 0]), array([2, 7]))
    """
    n_queries = _count(n_queries, "n_queries", 1)
    n_informative = _count(n_informative, "n_informative", 1)
    n_redundant = _count(n_redundant, "n_redundant", 0)
    n_noise = _count(n_noise, "n_noise", 0)
    n_constant = _count(n_constant, "n_constant", 0)
    label_levels = _count(label_levels, "label_levels", 2)
    noise = _nonneg_float(noise, "noise")
    redundant_noise = _nonneg_float(redundant_noise, "redundant_noise")
    query_shift = _nonneg_float(query_shift, "query_shift")
    if isinstance(docs_per_query, (tuple, list)):
        if len(docs_per_query) != 2:
            raise ValueError(f"docs_per_query must be an int or a (min, max) pair, got {docs_per_query!r}")
        lo = _count(docs_per_query[0], "docs_per_query[0]", 1)
        hi = _count(docs_per_query[1], "docs_per_query[1]", 1)
        if hi < lo:
            raise ValueError(f"docs_per_query must be (min, max) with min <= max, got {docs_per_query!r}")
    else:
        lo = hi = _count(docs_per_query, "docs_per_query", 1)
    rng = _rng(random_state)

    sizes = rng.integers(lo, hi + 1, size=n_queries) if hi > lo else np.full(n_queries, lo)
    m = int(sizes.sum())
    qid = np.repeat(np.arange(1, n_queries + 1, dtype=np.int64), sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])

    k = n_informative
    w = rng.uniform(0.5, 1.0, size=k) * rng.choice([-1.0, 1.0], size=k)
    w /= np.linalg.norm(w)
    w_order = np.argsort(-np.abs(w), kind="stable")
    offsets = rng.normal(scale=query_shift, size=(n_queries, k + n_noise))
    offsets_rows = np.repeat(offsets, sizes, axis=0)
    z = rng.normal(size=(m, k))
    latent = z @ w + noise * rng.normal(size=m)
    informative = z + offsets_rows[:, :k]
    src = np.arange(n_redundant) % k
    redundant = informative[:, src] + redundant_noise * rng.normal(size=(m, n_redundant))
    noise_cols = rng.normal(size=(m, n_noise)) + offsets_rows[:, k:]
    constant = np.ones((m, n_constant))
    X = np.hstack([informative, redundant, noise_cols, constant])

    thresholds = 0.5 + 0.5 * np.arange(label_levels - 1) / (label_levels - 1)
    y = np.empty(m)
    for s, n in zip(starts, sizes):
        block = latent[s : s + n]
        rank = np.empty(n)
        rank[np.argsort(block, kind="stable")] = np.arange(n)
        frac = (rank + 0.5) / n
        y[s : s + n] = (frac[:, None] > thresholds[None, :]).sum(axis=1)

    n_features = X.shape[1]
    perm = rng.permutation(n_features) if shuffle else np.arange(n_features)
    X = X[:, perm]
    pos = np.empty(n_features, dtype=np.int64)
    pos[perm] = np.arange(n_features)  # original column -> new column
    truth = GroundTruth(
        informative=pos[w_order],
        weights=w[w_order],
        redundant_of={int(pos[k + j]): int(pos[src[j]]) for j in range(n_redundant)},
        noise=np.sort(pos[k + n_redundant : k + n_redundant + n_noise]),
        constant=np.sort(pos[k + n_redundant + n_noise :]),
    )
    return SyntheticRanking(np.ascontiguousarray(X), y, qid, None, truth=truth, latent=latent)


# --- the shipped example -------------------------------------------------------------

#: the parameters of :func:`make_letor` that generated the shipped example (its three splits)
EXAMPLE_PARAMS: dict[str, Any] = dict(
    n_queries=70,
    docs_per_query=(8, 20),
    n_informative=5,
    n_redundant=5,
    n_noise=10,
    n_constant=2,
    label_levels=3,
    noise=0.5,
    random_state=20240607,
)
#: qid ranges (inclusive) of the example splits.
EXAMPLE_SPLITS = {"train": (1, 40), "vali": (41, 55), "test": (56, 70)}
#: Significant digits of the values in the example files.
EXAMPLE_DIGITS = 4

_DATA_DIR = Path(__file__).resolve().parent / "data"


def _check_split(split: str) -> str:
    if split not in EXAMPLE_SPLITS:
        raise ValueError(f"split must be one of {sorted(EXAMPLE_SPLITS)}, got {split!r}")
    return split


def example_path(split: str = "train") -> Path:
    """Path of the shipped example file ``example_<split>.txt`` (split: train, vali, test).

    Examples
    --------
    >>> from rankselect.data.datasets import example_path
    >>> example_path("vali").name
    'example_vali.txt'
    """
    return _DATA_DIR / f"example_{_check_split(split)}.txt"


def load_example(split: str = "train", **kwargs) -> RankingData:
    """Load the shipped example split with :func:`rankselect.load_letor` (kwargs passed on).

    Examples
    --------
    >>> from rankselect.data.datasets import load_example
    >>> train = load_example("train")
    >>> train.X.shape, train.n_queries
    ((583, 22), 40)
    """
    kwargs.setdefault("n_features", _example_n_features())
    return load_letor(example_path(split), **kwargs)


def _example_n_features() -> int:
    p = EXAMPLE_PARAMS
    return int(p["n_informative"] + p["n_redundant"] + p["n_noise"] + p["n_constant"])


def example_truth() -> GroundTruth:
    """Ground truth (0-based columns) of the shipped example.

    Examples
    --------
    >>> from rankselect.data.datasets import example_truth
    >>> example_truth().informative
    array([ 7,  3, 11,  4, 16])
    """
    truth = make_ranking(**EXAMPLE_PARAMS).truth
    assert truth is not None
    return truth


def example_splits() -> dict[str, RankingData]:
    """The example data regenerated in memory and split by query (full precision)."""
    data = make_ranking(**EXAMPLE_PARAMS)
    out = {}
    for split, (a, b) in EXAMPLE_SPLITS.items():
        rows = (data.qid >= a) & (data.qid <= b)
        out[split] = RankingData(data.X[rows], data.y[rows], data.qid[rows])
    return out


def write_example(directory: Optional[Union[str, Path]] = None) -> Sequence[Path]:
    """(Re)write the example files into ``directory`` (default: the package's data dir).

    Examples
    --------
    >>> import tempfile
    >>> from rankselect.data.datasets import write_example
    >>> [p.name for p in write_example(tempfile.mkdtemp())]
    ['example_train.txt', 'example_vali.txt', 'example_test.txt']
    """
    directory = Path(directory) if directory is not None else _DATA_DIR
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for split, data in example_splits().items():
        p = directory / f"example_{split}.txt"
        save_letor(p, data, digits=EXAMPLE_DIGITS)
        paths.append(p)
    return paths
