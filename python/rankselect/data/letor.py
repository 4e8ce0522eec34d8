"""Loading LETOR / SVMlight ranking files.

A ranking file holds one document per line::

    <label> qid:<int> <index>:<value> <index>:<value> ... [# comment]

with 1-based, strictly ascending feature indices (absent features are 0). The parser runs
in Rust with the GIL released: the file (or pipe) is read in large blocks, gzip data is
decompressed as it is read, and the blocks are parsed in parallel and written straight into
the dense matrix, so memory is the result plus a few blocks. Values are correctly rounded, so
the result equals ``sklearn.datasets.load_svmlight_file(path, query_id=True)`` exactly (as
dense arrays).

Rows are kept in file order: a query whose rows are not contiguous is not split, it is
grouped by qid downstream (:class:`rankselect.QueryGroups`). Since in LETOR files that
usually means files were concatenated by mistake, ``load_letor`` warns once per file
(``RankingData.n_split_queries`` tells how many queries are split).
"""
from __future__ import annotations

import numbers
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

import numpy as np

from .. import _core
from .._config import memory_limit
from .._validation import check_labels, check_qid, check_ranking_data, shown
from .contiguity import _warn_split_queries, split_queries

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["RankingData", "Fold", "load_letor", "load_letor_folds", "save_letor", "split_queries", "PathLike"]


@dataclass(eq=False)
class RankingData:
    """A ranking data set in file row order.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
        Dense features (float64, or float32 when loaded with ``dtype=np.float32``).
    y : ndarray of shape (n_samples,)
        Relevance labels (float64).
    qid : ndarray of shape (n_samples,)
        Query id of each row (int64). Rows of a query need not be contiguous.
    comments : list of str or None
        Trailing comment of each row (text after ``#``, stripped; ``""`` when absent),
        or None when not loaded.
    feature_names : list of str or None
        The columns' names, when the source has them (:func:`rankselect.data.read_engine_log`).

    ``X, y, qid = data`` unpacks the arrays. ``n_split_queries`` counts the queries whose
    rows are not contiguous (merged by qid; in a LETOR file usually a concatenation mistake).

    Examples
    --------
    >>> import rankselect as rs
    >>> data = rs.load_letor(rs.data.datasets.example_path("train"))
    >>> X, y, qid = data
    >>> data.n_features, data.n_queries, X.shape
    (22, 40, (583, 22))
    """

    X: np.ndarray
    y: np.ndarray
    qid: np.ndarray
    comments: Optional[list[str]] = None
    feature_names: Optional[list[str]] = None

    def __post_init__(self) -> None:
        X = np.asarray(self.X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
        y = check_labels(self.y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
        self.X, self.y = X, y
        self.qid = check_qid(self.qid, X.shape[0])
        if self.comments is not None and len(self.comments) != X.shape[0]:
            raise ValueError(f"comments has {len(self.comments)} entries but X has {X.shape[0]} rows")
        if self.feature_names is not None:
            self.feature_names = [str(s) for s in self.feature_names]
            if len(self.feature_names) != X.shape[1]:
                raise ValueError(f"feature_names has {len(self.feature_names)} names but X has {X.shape[1]} columns")

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_queries(self) -> int:
        return int(np.unique(self.qid).shape[0])

    @property
    def n_split_queries(self) -> int:
        """Number of queries whose rows are not contiguous (they are merged by qid)."""
        return split_queries(self.qid)[0]

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.X, self.y, self.qid))

    def __repr__(self) -> str:
        return (
            f"RankingData(n_samples={self.n_samples}, n_features={self.n_features}, "
            f"n_queries={self.n_queries}, dtype={self.X.dtype}"
            f"{', comments' if self.comments is not None else ''})"
        )


@dataclass(eq=False)
class Fold:
    """One LETOR fold: ``train``, ``vali`` and ``test`` with the same n_features.

    Examples
    --------
    >>> import rankselect as rs
    >>> fold = rs.Fold("example", *(rs.data.datasets.load_example(s) for s in ("train", "vali", "test")))
    >>> train, vali, test = fold
    >>> train.n_queries, vali.n_queries, test.n_queries
    (40, 15, 15)
    """

    name: str
    train: RankingData
    vali: RankingData
    test: RankingData

    def __iter__(self) -> Iterator[RankingData]:
        return iter((self.train, self.vali, self.test))


def _check_n_features(n_features) -> Optional[int]:
    if n_features is None:
        return None
    if isinstance(n_features, (bool, np.bool_)) or not isinstance(n_features, (int, np.integer)):
        raise TypeError(f"n_features must be a positive int or None, got {shown(n_features)}")
    if n_features < 1:
        raise ValueError(f"n_features must be a positive int or None, got {n_features}")
    if n_features > _MAX_N_FEATURES:
        raise ValueError(f"n_features={n_features} is too large (at most {_MAX_N_FEATURES})")
    return int(n_features)


# Beyond any memory; keeps the byte counts of the memory rule far from integer overflow.
_MAX_N_FEATURES = 2**62


def load_letor(
    path: PathLike,
    *,
    n_features: Optional[int] = None,
    dtype=np.float64,
    comments: bool = False,
    allow_nonfinite: bool = False,
) -> RankingData:
    """Load a LETOR / SVMlight ranking file (plain or gzip-compressed).

    Parameters
    ----------
    path : str or path-like
        The file; a pipe or device works too (``/dev/stdin``, ``/dev/fd/N``, a shell's
        ``<(...)``). Gzip data is recognised by its content (``.gz`` or not), decompressed
        as it is read, may hold several members and may end in zero padding (as Python's
        :mod:`gzip` accepts).
    n_features : int, optional
        Number of columns of ``X``. Default: the largest feature index in the file, or 1
        when no row has a feature (as scikit-learn). A feature index above a given
        ``n_features`` is an error.
    dtype : {np.float64, np.float32}
        dtype of ``X``. float32 values are the float64 values cast to float32 (as
        scikit-learn's ``load_svmlight_file(dtype=np.float32)``). ``y`` is float64.
    comments : bool
        Also return the text after ``#`` of every row (e.g. ``docid = ...``).
    allow_nonfinite : bool
        Accept NaN / infinite labels and values (rejected by default).

    Returns
    -------
    RankingData
        ``X`` (n_samples, n_features), ``y`` (n_samples,), ``qid`` (n_samples,) int64, and
        ``comments``; unpacks as ``X, y, qid = load_letor(path)``.

    Warns
    -----
    UserWarning
        Once, when the rows of some query are not contiguous in the file (they are merged by
        qid; see ``RankingData.n_split_queries``).

    Raises
    ------
    ValueError
        ``"<path>: line N: ..."`` for a malformed line: non-numeric label or value, missing
        or non-integer qid, feature index 0 or above 2147483647 (the largest scikit-learn
        reads), indices not strictly ascending or duplicated, NaN / infinity, an index
        above ``n_features``; also for a file without data rows.
    MemoryError
        The dense result (``X``, ``y``, ``qid``, comments) would exceed the memory limit
        (:func:`rankselect.set_config` ``max_memory``, default the available memory): the
        message gives the sizes and the largest feature index with its line (a typo such as
        ``1 qid:1 4000000000:1`` is caught before anything large is allocated).
    FileNotFoundError, OSError
        The file cannot be read, or its gzip data is corrupt or truncated
        (``"<path>: corrupt or truncated gzip data: ..."``).

    Examples
    --------
    >>> import rankselect as rs
    >>> data = rs.load_letor(rs.data.datasets.example_path("train"))
    >>> data.X.shape, data.y[:3], data.qid[:3]
    ((583, 22), array([2., 1., 1.]), array([1, 1, 1]))
    """
    n_features = _check_n_features(n_features)
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise ValueError(f"dtype must be np.float64 or np.float32, got {dt}")
    p = os.fspath(path)
    if not isinstance(p, str):
        p = os.fsdecode(p)
    if not os.path.exists(p):
        raise FileNotFoundError(f"LETOR file not found: {p}")
    if os.path.isdir(p):
        raise IsADirectoryError(f"expected a LETOR file, got a directory: {p}")
    try:
        parsed = _core.load_letor(
            p,
            n_features=n_features,
            float32=dt == np.dtype(np.float32),
            comments=bool(comments),
            allow_nonfinite=bool(allow_nonfinite),
            max_memory=memory_limit(),
        )
    except ValueError as exc:
        raise ValueError(f"{p}: {exc}") from None
    except MemoryError as exc:
        raise MemoryError(f"{p}: {exc}") from None
    _warn_split_queries(p, parsed.qid)
    return RankingData(parsed.x, parsed.y, parsed.qid, parsed.comments)


_SPLITS = ("train", "vali", "test")


def _split_path(fold_dir: Path, split: str) -> Path:
    for name in (f"{split}.txt", f"{split}.txt.gz"):
        p = fold_dir / name
        if p.is_file():
            return p
    raise FileNotFoundError(
        f"LETOR fold {fold_dir.name} is missing {split}.txt (or {split}.txt.gz): "
        f"expected {fold_dir / (split + '.txt')}"
    )


def load_letor_folds(
    root: PathLike, *, n_features: Optional[int] = None, dtype=np.float64
) -> list[Fold]:
    """Load the five LETOR folds ``root/Fold1..Fold5/{train,vali,test}.txt`` (or ``.txt.gz``).

    Within a fold, the three sets share one ``n_features``: the given one, else the largest
    feature index over the fold's three files.

    Returns
    -------
    list of Fold
        ``[Fold("Fold1", train, vali, test), ...]``, in fold order.

    Raises
    ------
    FileNotFoundError
        ``root`` or a fold directory or file is missing (the message names it).
    ValueError
        A file is malformed (``"<file>: line N: ..."``).

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # five folds (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> folds = rs.load_letor_folds(root)
    >>> len(folds), folds[0].name, folds[0].train.X.shape
    (5, 'Fold1', (583, 22))
    """
    n_features = _check_n_features(n_features)
    root = Path(os.fspath(root))
    if not root.is_dir():
        raise FileNotFoundError(f"LETOR folds root is not a directory: {root}")
    dirs = [root / f"Fold{i}" for i in range(1, 6)]
    for d in dirs:
        if not d.is_dir():
            raise FileNotFoundError(f"LETOR folds root {root} has no fold directory {d.name}")
    paths = [[_split_path(d, s) for s in _SPLITS] for d in dirs]
    folds = []
    for d, files in zip(dirs, paths):
        sets = [load_letor(f, n_features=n_features, dtype=dtype) for f in files]
        if n_features is None:
            n = max(s.n_features for s in sets)
            sets = [_pad(s, n) for s in sets]
        folds.append(Fold(d.name, *sets))
    return folds


def _pad(data: RankingData, n: int) -> RankingData:
    """``data`` with zero columns appended up to ``n`` features."""
    if data.n_features == n:
        return data
    X = np.zeros((data.n_samples, n), dtype=data.X.dtype)
    X[:, : data.n_features] = data.X
    return RankingData(X, data.y, data.qid, data.comments)


# Characters that end a line for LETOR readers (ours, scikit-learn's, text-mode Python).
_LINE_BREAKS = ("\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def save_letor(path: PathLike, data, *, digits: Optional[int] = None) -> None:
    """Write a ranking data set as a LETOR file, every feature on every row (1-based).

    Parameters
    ----------
    path : str or path-like
        Destination (plain text).
    data : RankingData or (X, y, qid)
        ``X`` (n_samples, n_features), ``y`` (n_samples,), ``qid`` (n_samples,); the
        ``comments`` of a RankingData are written after ``#``; a comment holding a line
        break raises ValueError (it would inject a row).
    digits : int, optional
        Significant digits of the values (``%.<digits>g``). Default: the shortest text that
        reads back to the same float64 (``repr``), so ``load_letor`` round-trips exactly.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import rankselect as rs
    >>> path = os.path.join(tempfile.mkdtemp(), "train.txt")
    >>> rs.save_letor(path, (np.array([[0.5, 1.0], [0.0, 2.0]]), np.array([1, 0]), np.array([3, 3])))
    >>> print(open(path).read())
    1 qid:3 1:0.5 2:1.0
    0 qid:3 1:0.0 2:2.0
    """
    comments = getattr(data, "comments", None)
    X, y, qid = data
    X, y, qid = check_ranking_data(X, y, qid, allow_nan=True, squares=False)
    if comments is not None:
        if len(comments) != X.shape[0]:
            raise ValueError(f"comments has {len(comments)} entries but X has {X.shape[0]} rows")
        for i, c in enumerate(comments):
            # A line break would end the row early and inject the rest as a new row.
            if c and any(b in str(c) for b in _LINE_BREAKS):
                raise ValueError(
                    f"comments[{i}] contains a line break ({str(c)!r}); a LETOR comment runs to the end"
                    " of its line: remove or replace the line breaks"
                )
    if digits is not None and (isinstance(digits, bool) or not isinstance(digits, numbers.Integral) or digits < 1):
        raise ValueError(f"digits must be a positive int or None, got {shown(digits)}")
    spec = "%r" if digits is None else f"%.{int(digits)}g"
    line = "%s qid:%d" + "".join(f" {j + 1}:{spec}" for j in range(X.shape[1]))
    with open(os.fspath(path), "w", encoding="utf-8", newline="\n") as f:
        for i, (label, q, row) in enumerate(zip(y.tolist(), qid.tolist(), X.tolist())):
            lab = int(label) if float(label).is_integer() else label
            text = line % (lab, q, *row)
            if comments is not None and comments[i]:
                text += " #" + comments[i]
            f.write(text + "\n")
