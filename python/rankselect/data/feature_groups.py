"""Feature families: groups of columns computed by one extractor, and their shared costs.

One extractor computes several features at once (LETOR 4.0: 8 measures x 5 streams plus 6
document features; MSLR-WEB10K/30K: 25 measures x 5 streams plus 11), and what costs serving
time is the extractor, not the column. :class:`FeatureGroups` is the one checked form of a
partition of the columns into named groups; every selector's ``feature_groups=`` goes through
:func:`check_feature_groups`. :class:`ExtractionCosts` is the one cost rule with groups: a
subset ``S`` costs

.. math::

    c(S) = \\sum_{j \\in S} c_j + \\sum_{g : S \\cap g \\neq \\emptyset} C_g,

the features' own costs ``c_j`` (``feature_costs``) plus each touched group's extraction cost
``C_g`` (``group_costs``), paid once when the first member is selected; the marginal cost of
adding ``j`` to ``S`` is ``c_j`` plus ``C_{g(j)}`` when no member of ``g(j)`` is in ``S`` yet.

:func:`read_feature_groups` reads the CLI's form, a CSV of ``feature,group[,cost]`` lines
(1-based feature numbers as in LETOR files; ``cost`` is the group's extraction cost; ``#``
starts a comment, as in LETOR files).
"""
from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

import numpy as np

from .._validation import check_costs
from .extraction_costs import ExtractionCosts
from .textfile import csv_lines

__all__ = [
    "FeatureGroups",
    "ExtractionCosts",
    "check_feature_groups",
    "check_group_costs",
    "check_extraction_costs",
    "read_feature_groups",
]


@dataclass(frozen=True, eq=False)
class FeatureGroups:
    """A partition of ``n_features`` columns into named groups (feature families).

    Parameters
    ----------
    names : tuple of str, length n_groups
        Group names, in order of their first column.
    index : ndarray of shape (n_features,), dtype intp
        ``index[j]`` is the group of column ``j`` (``0 .. n_groups - 1``).
    feature_names : tuple of str or None
        Optional names of the columns (the layouts of :mod:`rankselect.data.datasets` give them).

    Use :func:`check_feature_groups` to build one from a label per feature or a mapping.

    Examples
    --------
    >>> from rankselect.data import check_feature_groups
    >>> g = check_feature_groups(["body", "title", "body"], n_features=3)
    >>> g.n_groups, g.members(0).tolist(), g.columns(["title", "body"]).tolist()
    (2, [0, 2], [1, 0, 2])
    >>> g.groups_of([2, 1]), g.as_dict()
    ([0, 1], {'body': [0, 2], 'title': [1]})
    """

    names: tuple[str, ...]
    index: np.ndarray
    feature_names: Optional[tuple[str, ...]] = None

    def __post_init__(self) -> None:
        names, index, feature_names = _checked_partition(self.names, self.index, self.feature_names, "FeatureGroups")
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "feature_names", feature_names)

    @property
    def n_features(self) -> int:
        return int(self.index.shape[0])

    @property
    def n_groups(self) -> int:
        return len(self.names)

    def members(self, g: int) -> np.ndarray:
        """Columns of group ``g``, ascending (intp)."""
        return np.flatnonzero(self.index == g)

    def member_lists(self) -> list[np.ndarray]:
        """``[members(0), ..., members(n_groups - 1)]``."""
        return [self.members(g) for g in range(self.n_groups)]

    def group_id(self, name: Union[str, int]) -> int:
        """The index of a group given by name (or by index)."""
        if isinstance(name, numbers.Integral) and not isinstance(name, bool):
            if not 0 <= int(name) < self.n_groups:
                raise ValueError(f"group {name} is out of range: there are {self.n_groups} groups")
            return int(name)
        try:
            return self.names.index(str(name))
        except ValueError:
            raise ValueError(f"unknown group {name!r}; the groups are {list(self.names)}") from None

    def columns(self, groups: Iterable[Union[str, int]]) -> np.ndarray:
        """Columns of ``groups``, group after group in the given order, each ascending."""
        ids = [self.group_id(g) for g in groups]
        if not ids:
            return np.zeros(0, dtype=np.intp)
        return np.concatenate([self.members(g) for g in ids])

    def groups_of(self, features: Iterable[int]) -> list[int]:
        """The distinct groups touched by ``features``, in order of first appearance."""
        out: list[int] = []
        for j in features:
            g = int(self.index[int(j)])
            if g not in out:
                out.append(g)
        return out

    def as_dict(self) -> dict[str, list[int]]:
        """``{group name: [0-based columns]}``."""
        return {name: self.members(g).tolist() for g, name in enumerate(self.names)}

    def __repr__(self) -> str:
        sizes = np.bincount(self.index, minlength=self.n_groups)
        shown = ", ".join(f"{n}: {s}" for n, s in zip(self.names[:6], sizes[:6]))
        more = ", ..." if self.n_groups > 6 else ""
        return f"FeatureGroups({self.n_groups} groups over {self.n_features} features; {shown}{more})"


def _checked_partition(names, index, feature_names, name: str):
    """``(names, index, feature_names)`` of a partition, checked: distinct string names, an
    integer index of shape (n_features,) with values in ``0 .. n_groups - 1`` and every group
    used (a read-only intp copy), ``feature_names`` None or one string per column."""
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise TypeError(f"{name}.names must be a sequence of group names, got {type(names).__name__}")
    names = tuple(names)
    for g, nm in enumerate(names):
        if not isinstance(nm, str):
            raise TypeError(f"{name}.names[{g}] must be a str, got {type(nm).__name__} ({nm!r})")
    if len(set(names)) != len(names):
        dup = next(nm for nm in names if names.count(nm) > 1)
        raise ValueError(f"{name} names the group {dup!r} twice: group names must be distinct")
    a = np.asarray(index)
    if a.ndim != 1:
        raise ValueError(f"{name}.index must be 1-D (one group per column), got shape {a.shape}")
    if a.size and (a.dtype == bool or not np.issubdtype(a.dtype, np.integer)):
        raise TypeError(f"{name}.index must hold integer group numbers, got dtype {a.dtype}")
    if a.size and (int(a.min()) < 0 or int(a.max()) >= len(names)):
        j = int(np.flatnonzero((a < 0) | (a >= len(names)))[0])
        raise ValueError(f"{name}.index puts column {j} in group {int(a[j])}, but the groups are numbered "
                         f"0 .. {len(names) - 1} ({len(names)} names)")
    out = np.array(a, dtype=np.intp)
    out.flags.writeable = False
    if len(names):
        empty = np.flatnonzero(np.bincount(out, minlength=len(names)) == 0)
        if empty.size:
            raise ValueError(f"{name}: group {names[int(empty[0])]!r} has no column ({empty.size} groups without "
                             "one): every group needs at least one column")
    if feature_names is not None:
        if isinstance(feature_names, (str, bytes)) or not isinstance(feature_names, Iterable):
            raise TypeError(f"{name}.feature_names must be None or one name per column")
        feature_names = tuple(str(f) for f in feature_names)
        if len(feature_names) != out.shape[0]:
            raise ValueError(f"{name}.feature_names has {len(feature_names)} names for {out.shape[0]} columns")
    return names, out, feature_names


def _label(v) -> str:
    if isinstance(v, (str, numbers.Integral)) and not isinstance(v, bool):
        return str(v)
    if isinstance(v, np.generic) and v.dtype.kind in "iuU":
        return str(v.item())
    raise TypeError(f"a group label must be a str or an int, got {type(v).__name__} ({v!r})")


def check_feature_groups(feature_groups, n_features: int, *, name: str = "feature_groups") -> FeatureGroups:
    """``feature_groups`` checked against ``n_features`` columns, as a :class:`FeatureGroups`.

    Parameters
    ----------
    feature_groups : FeatureGroups, array-like of shape (n_features,) or mapping
        A :class:`FeatureGroups`; a label (str or int) per column; or a mapping
        ``{group: [0-based columns]}`` in which every column appears exactly once.
    n_features : int
        Number of columns of ``X``.

    Examples
    --------
    >>> from rankselect.data.feature_groups import check_feature_groups
    >>> g = check_feature_groups(["body", "title", "body", "url"], n_features=4)
    >>> g.names, g.members(0).tolist()
    (('body', 'title', 'url'), [0, 2])
    >>> check_feature_groups({"a": [1], "b": [0, 2]}, n_features=3).names
    ('b', 'a')
    """
    if isinstance(feature_groups, FeatureGroups):
        # any origin (built by hand, unpickled, its index changed in place): checked again here
        _checked_partition(feature_groups.names, feature_groups.index, feature_groups.feature_names, name)
        if feature_groups.n_features != n_features:
            raise ValueError(f"{name} describes {feature_groups.n_features} features but X has {n_features}")
        return feature_groups
    if isinstance(feature_groups, Mapping):
        index = np.full(n_features, -1, dtype=np.intp)
        labels = [_label(k) for k in feature_groups]
        if len(set(labels)) != len(labels):
            raise ValueError(f"{name} names a group twice (as {labels})")
        for g, (key, cols) in enumerate(feature_groups.items()):
            if isinstance(cols, (str, bytes)) or not isinstance(cols, Iterable):
                raise TypeError(f"{name}[{key!r}] must be a list of column indices, got {type(cols).__name__}")
            cols = list(cols)
            if not cols:
                raise ValueError(f"{name}[{key!r}] is empty: a group needs at least one column")
            for j in cols:
                if not isinstance(j, numbers.Integral) or isinstance(j, bool):
                    raise TypeError(f"{name}[{key!r}] holds {j!r}: columns are 0-based ints")
                if not 0 <= int(j) < n_features:
                    raise ValueError(f"{name}[{key!r}] holds column {int(j)}, but X has {n_features} features")
                if index[int(j)] >= 0:
                    raise ValueError(f"column {int(j)} is in two groups of {name} "
                                     f"({labels[index[int(j)]]!r} and {labels[g]!r})")
                index[int(j)] = g
        missing = np.flatnonzero(index < 0)
        if missing.size:
            raise ValueError(f"{name} leaves column {int(missing[0])} in no group "
                             f"({missing.size} columns in none): every column needs a group")
        return _renumbered(labels, index)
    if isinstance(feature_groups, (str, bytes)) or not isinstance(feature_groups, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a label per feature, a mapping group -> columns or a FeatureGroups, "
                        f"got {type(feature_groups).__name__}")
    arr = np.asarray(feature_groups, dtype=object)
    if arr.ndim != 1:  # a 2-D array of labels is not read row after row: refused, not ravelled
        raise ValueError(f"{name} must be 1-D, one label per feature, got an array of shape {arr.shape}")
    raw = list(arr)
    if len(raw) != n_features:
        raise ValueError(f"{name} has {len(raw)} labels but X has {n_features} features")
    labels_per_feature = [_label(v) for v in raw]
    names: list[str] = []
    pos: dict[str, int] = {}
    index = np.empty(n_features, dtype=np.intp)
    for j, lab in enumerate(labels_per_feature):
        if lab not in pos:
            pos[lab] = len(names)
            names.append(lab)
        index[j] = pos[lab]
    return FeatureGroups(tuple(names), index)


def _renumbered(labels: list[str], index: np.ndarray) -> FeatureGroups:
    """Groups numbered in order of their first column (so that equal partitions compare equal)."""
    order = list(dict.fromkeys(int(g) for g in index))
    new = np.empty(len(labels), dtype=np.intp)
    new[order] = np.arange(len(order))
    return FeatureGroups(tuple(labels[g] for g in order), new[index])


def check_group_costs(group_costs, groups: FeatureGroups, *, name: str = "group_costs") -> np.ndarray:
    """``group_costs`` as float64 of shape (n_groups,), finite and >= 0: an array in the order of
    ``groups.names``, or a mapping ``{group: cost}`` (groups left out cost 0).

    Examples
    --------
    >>> from rankselect.data import check_feature_groups, check_group_costs
    >>> g = check_feature_groups(["body", "title", "body"], n_features=3)
    >>> check_group_costs({"body": 10}, g)
    array([10.,  0.])
    """
    if isinstance(group_costs, Mapping):
        out = np.zeros(groups.n_groups)
        for key, v in group_costs.items():
            out[groups.group_id(_label(key))] = _cost(v, f"{name}[{key!r}]")
        return _finite_sum(out, name)
    if isinstance(group_costs, (str, bytes)):
        raise TypeError(f"{name} must be a mapping group -> cost or a 1-d array of {groups.n_groups} costs")
    c = np.asarray(group_costs, dtype=float)
    if c.ndim != 1:
        raise TypeError(f"{name} must be a mapping group -> cost or a 1-d array of {groups.n_groups} costs")
    if c.shape[0] != groups.n_groups:
        raise ValueError(f"{name} has {c.shape[0]} entries but there are {groups.n_groups} groups")
    for g, v in enumerate(c):
        _cost(v, f"{name} of group {groups.names[g]!r}")
    return _finite_sum(c, name)


def check_extraction_costs(feature_costs, groups: Optional[FeatureGroups], group_costs, n_features: int, *,
                           groups_name: str = "feature_groups") -> ExtractionCosts:
    """The cost rule of a selection (:class:`ExtractionCosts`), its arguments checked once:
    ``group_costs`` needs ``groups``; ``feature_costs`` default to 1 per feature, or to 0 when
    only ``group_costs`` are given (the extraction is what costs); the costs' total must be
    finite.

    Examples
    --------
    >>> from rankselect.data import check_extraction_costs, check_feature_groups
    >>> g = check_feature_groups(["body", "title", "body"], n_features=3)
    >>> c = check_extraction_costs(None, g, {"body": 10}, n_features=3)
    >>> c.feature_costs.tolist(), c.total([0, 2])
    ([0.0, 0.0, 0.0], 10.0)
    """
    if group_costs is not None and groups is None:
        raise ValueError(f"group_costs needs {groups_name} (which columns each group's cost covers)")
    if feature_costs is None and group_costs is not None:
        feature_costs = np.zeros(n_features)
    fc = check_costs(feature_costs, n_features)
    gc = None if group_costs is None else check_group_costs(group_costs, groups)  # type: ignore[arg-type]
    if gc is not None:
        with np.errstate(over="ignore"):
            total = fc.sum() + gc.sum()
        if not np.isfinite(total):
            raise ValueError("feature_costs and group_costs sum to more than the largest float64 (their sum "
                             "overflows): rescale them (only their ratios and the budget's matter)")
    return ExtractionCosts(fc, groups, gc)


def _finite_sum(c: np.ndarray, name: str) -> np.ndarray:
    """``c``, or ValueError when its sum overflows float64 (a subset's cost would be inf)."""
    with np.errstate(over="ignore"):
        total = c.sum()
    if not np.isfinite(total):
        raise ValueError(f"{name} sum to more than the largest float64 (their sum overflows): rescale them "
                         "(only their ratios and the budget's matter)")
    return c


def _cost(v, what: str) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a number, got {v!r}") from None
    if not np.isfinite(f) or f < 0:
        raise ValueError(f"{what} must be finite and >= 0, got {f!r}")
    return f


def read_feature_groups(path: Union[str, Path], n_features: int) -> tuple[FeatureGroups, Optional[np.ndarray]]:
    """Read a group file: ``feature,group[,cost]`` lines (1-based feature numbers; ``cost``
    the group's extraction cost, given on one of its lines or repeated equal on several;
    an optional header line ``feature,group[,cost]``). The file is read as
    :mod:`rankselect.data.textfile` says: UTF-8 (a BOM is skipped); ``#`` starts a comment, to
    the end of its line, as in LETOR files (so ``1,body # TF`` puts feature 1 in group ``body``,
    and a group name holds no ``#``); a field may be quoted (``1,"body, title"``), within its
    line; a reading problem is one ValueError naming the file and the line.

    Returns the groups and the group costs (None when the file gives no cost column).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rankselect.data import read_feature_groups
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "groups.csv"
    ...     _ = path.write_text("feature,group,cost\\n1,body,10  # TF\\n2,title,2\\n3,body,10\\n")
    ...     groups, costs = read_feature_groups(path, n_features=3)
    >>> groups.names, costs
    (('body', 'title'), array([10.,  2.]))
    """
    p = Path(path)
    labels: dict[int, str] = {}
    costs: dict[str, float] = {}
    any_cost = False
    for index, (lineno, row) in enumerate(csv_lines(p)):
        if index == 0 and row[0].lower() == "feature":
            continue
        where = f"{p}, line {lineno}"
        if len(row) not in (2, 3):
            raise ValueError(f"{where}: expected 'feature,group[,cost]', got {len(row)} fields")
        try:
            j = int(row[0])
        except ValueError:
            raise ValueError(f"{where}: the feature number {row[0][:40]!r} is not an integer") from None
        if not 1 <= j <= n_features:
            raise ValueError(f"{where}: feature {j} is out of range 1..{n_features}")
        if j in labels:
            raise ValueError(f"{where}: feature {j} is given a group twice")
        if not row[1]:
            raise ValueError(f"{where}: empty group name")
        labels[j] = row[1]
        if len(row) == 3 and row[2]:
            any_cost = True
            try:
                c = _cost(row[2], f"the cost of group {row[1]!r}")
            except (TypeError, ValueError) as e:
                raise ValueError(f"{where}: {e}") from None
            if row[1] in costs and costs[row[1]] != c:
                raise ValueError(f"{where}: group {row[1]!r} has cost {c} here and {costs[row[1]]} "
                                 "on an earlier line")
            costs[row[1]] = c
    missing = [j for j in range(1, n_features + 1) if j not in labels]
    if missing:
        raise ValueError(f"{p}: feature {missing[0]} has no group ({len(missing)} features without one); "
                         "every feature needs a line")
    groups = check_feature_groups([labels[j] for j in range(1, n_features + 1)], n_features)
    return groups, (check_group_costs(costs, groups) if any_cost else None)
