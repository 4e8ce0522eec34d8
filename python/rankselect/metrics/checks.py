"""Arguments of the metrics, checked once: conventions, tie rules, cutoffs ``k``, ERR's
``max_grade``; and the mean over queries (summed in query order, as the core's)."""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Literal, Optional, cast

import numpy as np

from .. import _core
from .._validation import shown

__all__ = ["CONVENTIONS", "CURRENT_CONVENTIONS", "DEFAULT_CONVENTION", "TIES", "Convention", "Ties",
           "check_choice", "check_convention", "check_k", "current_convention_name",
           "check_max_grade", "mean_over_queries"]

#: metric conventions (see :mod:`rankselect.metrics`), the default first: the core's list
#: (``Convention::NAMES``), ``("standard", "exponential", "trec", "lightgbm", "letor")``;
#: ``"standard"`` is the old name of ``"exponential"`` (same numbers)
CONVENTIONS: tuple[str, ...] = tuple(_core.CONVENTIONS)
#: the old name of ``"exponential"``, still accepted (the command line warns that it is deprecated)
OLD_CONVENTION_NAMES = {"standard": "exponential"}
#: the current convention names, the default first: :data:`CONVENTIONS` without the old name,
#: ``("exponential", "trec", "lightgbm", "letor")``; what is printed and documented
CURRENT_CONVENTIONS: tuple[str, ...] = tuple(c for c in CONVENTIONS if c not in OLD_CONVENTION_NAMES)
#: the default convention of the metrics (gain ``2^r - 1``, discount ``1 / log2(i + 1)``)
DEFAULT_CONVENTION = CURRENT_CONVENTIONS[0]
#: tie-breaking rules of equal scores, the default first: the core's list (``Ties::ALL``),
#: ``("stable", "pessimistic")``
TIES: tuple[str, ...] = tuple(_core.TIES)

#: the names of :data:`CONVENTIONS` and :data:`TIES` for type checkers (a test keeps them equal)
Convention = Literal["standard", "exponential", "trec", "lightgbm", "letor"]
Ties = Literal["stable", "pessimistic"]


def check_choice(value, name: str, choices: Sequence[str]) -> str:
    """``value`` trimmed and lower-cased when it is one of ``choices`` (case-insensitive);
    ValueError naming ``name``.

    Examples
    --------
    >>> from rankselect.metrics.checks import check_choice
    >>> check_choice(" LETOR ", "convention", ("standard", "letor"))
    'letor'
    """
    if not isinstance(value, str) or value.strip().lower() not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {allowed}, got {shown(value)}")
    return value.strip().lower()


def check_convention(convention) -> str:
    """A metric convention, one of :data:`CONVENTIONS` (case-insensitive), lower-cased.

    Examples
    --------
    >>> from rankselect.metrics.checks import check_convention
    >>> check_convention("Standard")
    'standard'
    """
    return check_choice(convention, "convention", CONVENTIONS)


def current_convention_name(convention) -> str:
    """:func:`check_convention`, with the old name ``"standard"`` spelled as it is now
    (``"exponential"``): the name to print.

    Examples
    --------
    >>> from rankselect.metrics.checks import current_convention_name
    >>> current_convention_name("standard"), current_convention_name("TREC")
    ('exponential', 'trec')
    """
    name = check_convention(convention)
    return OLD_CONVENTION_NAMES.get(name, name)


def check_k(k, name: str = "k", *, allow_none: bool = True) -> Optional[int]:
    """A cutoff ``k``: a positive int (or None when ``allow_none``); ValueError naming ``name``.

    Examples
    --------
    >>> from rankselect.metrics.checks import check_k
    >>> check_k(10), check_k(None)
    (10, None)
    """
    if k is None and allow_none:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        what = "a positive integer or None" if allow_none else "a positive integer"
        raise ValueError(f"{name} must be {what}, got {shown(k)}")
    return int(k)


def check_max_grade(max_grade) -> Optional[float]:
    """ERR's ``max_grade``: a finite float or None.

    Examples
    --------
    >>> from rankselect.metrics.checks import check_max_grade
    >>> check_max_grade(4), check_max_grade(None)
    (4.0, None)
    """
    if max_grade is None:
        return None
    if (isinstance(max_grade, bool) or not isinstance(max_grade, numbers.Real)
            or not np.isfinite(cast(float, max_grade))):
        raise ValueError(f"max_grade must be a finite number or None, got {shown(max_grade)}")
    return float(max_grade)


def mean_over_queries(values: np.ndarray) -> float:
    """Sequential sum in query order over the number of queries (as the Rust `mean`).

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.metrics.checks import mean_over_queries
    >>> mean_over_queries(np.array([0.5, 1.0, 0.0]))
    0.5
    """
    total = 0.0
    for v in values.tolist():
        total += v
    return total / len(values)
