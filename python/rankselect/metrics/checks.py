"""Arguments of the metrics, checked once: conventions, tie rules, cutoffs ``k``, ERR's
``max_grade``; and the mean over queries (summed in query order, as the core's)."""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Optional, cast

import numpy as np

__all__ = ["CONVENTIONS", "TIES", "check_choice", "check_k", "check_max_grade", "mean_over_queries"]

#: metric conventions (see :mod:`rankselect.metrics`)
CONVENTIONS = ("standard", "letor")
#: tie-breaking rules of equal scores
TIES = ("stable", "pessimistic")


def check_choice(value, name: str, choices: Sequence[str]) -> str:
    """``value`` lower-cased when it is one of ``choices`` (case-insensitive); ValueError naming ``name``."""
    if not isinstance(value, str) or value.lower() not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value.lower()


def check_k(k, name: str = "k", *, allow_none: bool = True) -> Optional[int]:
    """A cutoff ``k``: a positive int (or None when ``allow_none``); ValueError naming ``name``."""
    if k is None and allow_none:
        return None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        what = "a positive integer or None" if allow_none else "a positive integer"
        raise ValueError(f"{name} must be {what}, got {k!r}")
    return int(k)


def check_max_grade(max_grade) -> Optional[float]:
    """ERR's ``max_grade``: a finite float or None."""
    if max_grade is None:
        return None
    if (isinstance(max_grade, bool) or not isinstance(max_grade, numbers.Real)
            or not np.isfinite(cast(float, max_grade))):
        raise ValueError(f"max_grade must be a finite number or None, got {max_grade!r}")
    return float(max_grade)


def mean_over_queries(values: np.ndarray) -> float:
    """Sequential sum in query order over the number of queries (as the Rust `mean`)."""
    total = 0.0
    for v in values.tolist():
        total += v
    return total / len(values)
