"""Warnings and errors of rankselect.

Degenerate training data
------------------------
Training data from which no ranking can be learnt warn with :class:`DegenerateDataWarning`,
the same class for every estimator and selector, and the fit still completes:

- **no preference pair**: no query has two documents with different labels (e.g. all labels
  equal), so every pairwise loss is constant;
- **no informative feature**: every feature is constant inside every query, so no feature
  can order two documents of a query.

What the fitted estimator holds then is stated by each class (rankers: all-zero or
loss-free weights; selectors: a selection made on ties). Filter the warning with
``warnings.simplefilter("error", DegenerateDataWarning)`` to make such data an error.
"""
from __future__ import annotations

import contextvars
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Optional

__all__ = ["DegenerateDataWarning", "InconsistentVersionWarning", "warnings_once", "warn_once"]

_seen: contextvars.ContextVar[Optional[set]] = contextvars.ContextVar("rankselect_warned", default=None)


@contextmanager
def warnings_once() -> Iterator[None]:
    """Inside the block (a top-level call that fits many models: a CLI command, a LETOR
    experiment), each distinct :func:`warn_once` warning is shown once. Nested blocks share
    the outer one.

    Examples
    --------
    >>> import warnings
    >>> from rankselect.exceptions import warn_once, warnings_once
    >>> with warnings.catch_warnings(record=True) as caught, warnings_once():
    ...     warnings.simplefilter("always")
    ...     for _ in range(3):
    ...         warn_once("shown once")
    >>> len(caught)
    1
    """
    if _seen.get() is not None:
        yield
        return
    token = _seen.set(set())
    try:
        yield
    finally:
        _seen.reset(token)


def warn_once(message: str, category: type = UserWarning, stacklevel: int = 2) -> None:
    """``warnings.warn``, shown once per :func:`warnings_once` block (every time outside one).

    Examples
    --------
    >>> import warnings
    >>> from rankselect.exceptions import warn_once
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_once("outside a block")
    ...     warn_once("outside a block")
    >>> len(caught)
    2
    """
    seen = _seen.get()
    if seen is not None:
        key = (category, message)
        if key in seen:
            return
        seen.add(key)
    warnings.warn(message, category, stacklevel=stacklevel + 1)


#: the release that removes the deprecated paths of moved modules and names
REMOVED_IN = "0.3.0"


def _moved_name(old_module: str, name: str, new_module: str) -> object:
    """``new_module.name``, with a ``DeprecationWarning`` naming the new path: the answer of an
    old package's module ``__getattr__`` for a name that moved to ``new_module`` (moved
    modules: :mod:`rankselect._aliases`).

    ``new_module`` is read from ``sys.modules``, not imported: the old package sits below it
    in the layers, and ``import rankselect`` has imported every subpackage before user code
    can ask an old path.
    """
    warnings.warn(f"{old_module}.{name} moved to {new_module}.{name}; the old path is removed in {REMOVED_IN}",
                  DeprecationWarning, stacklevel=3)
    return getattr(sys.modules[new_module], name)


class DegenerateDataWarning(UserWarning):
    """The training data have no preference pair or no informative feature.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> import rankselect as rs
    >>> from rankselect.exceptions import DegenerateDataWarning
    >>> X = np.random.default_rng(0).normal(size=(4, 2))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = rs.RankRLS().fit(X, [1, 1, 0, 0], qid=[1, 2, 3, 4])  # one document per query
    ...
    >>> any(issubclass(w.category, DegenerateDataWarning) for w in caught)
    True
    """


class InconsistentVersionWarning(UserWarning):
    """An estimator was unpickled by another rankselect version than the one that pickled it
    (``original_version`` None: an earlier build, which did not record its version). Its
    attributes may not be what this version's methods expect: refit it, or load it with the
    version that made it (as scikit-learn's warning of the same name says of its own).

    Examples
    --------
    >>> import pickle, warnings
    >>> import rankselect as rs
    >>> from rankselect.exceptions import InconsistentVersionWarning
    >>> state = rs.RankRLS().__getstate__()
    >>> state["_rankselect_version"] = "0.0.1"
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     rs.RankRLS().__setstate__(state)
    >>> caught[0].category.__name__, caught[0].message.original_version
    ('InconsistentVersionWarning', '0.0.1')
    """

    def __init__(self, estimator_name: str, original_version: Optional[str], current_version: str) -> None:
        self.estimator_name = estimator_name
        self.original_version = original_version
        self.current_version = current_version
        super().__init__(str(self))

    def __str__(self) -> str:
        made = (f"version {self.original_version}" if self.original_version is not None
                else "a version that did not record it")
        return (f"unpickling {self.estimator_name} made by rankselect {made} with rankselect "
                f"{self.current_version}: its fitted attributes may not suit this version; refit it, or load it "
                "with the version that made it")
