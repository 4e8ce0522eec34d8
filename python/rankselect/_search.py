"""scikit-learn's cross-validation (``GridSearchCV``, ``cross_validate``, ...) seen from inside a
rankselect ``fit``: the two mistakes it cannot see itself.

scikit-learn fits and scores each split in ``sklearn.model_selection._validation._fit_and_score``;
its locals hold the split's training ``fit_params`` and test ``score_params_test`` (the
``qid`` of each side under metadata routing) and the ``scorer``. :func:`check_search_split`,
called by every estimator's validation, finds that frame on the stack (it is not there
outside a search: then nothing is checked) and

- **refuses** a scorer that needs ``qid`` while metadata routing is off: scikit-learn passes
  ``qid`` to ``fit`` but not to ``score``, so every split's score fails, and the search ends
  with NaN scores after a warning per split; the fit's ValueError names
  ``sklearn.set_config(enable_metadata_routing=True)`` instead (the search raises it, in its
  "all fits failed" error or directly with ``error_score="raise"``);
- **warns** when a split puts rows of one query on both sides (a row splitter such as
  ``KFold`` or ``ShuffleSplit``, which ignores the queries): each test query is then scored by
  a model trained on some of its own rows.

Found by identity of the code object, so a scikit-learn that renames the function only turns
the checks off.
"""
from __future__ import annotations

import sys
import warnings
from types import FrameType
from typing import Any, Optional

import numpy as np
import sklearn

try:  # where scikit-learn fits and scores one split (a private function: see the module docstring)
    from sklearn.model_selection._validation import _fit_and_score

    _FIT_AND_SCORE = _fit_and_score.__code__
except (ImportError, AttributeError):  # pragma: no cover - another scikit-learn
    _FIT_AND_SCORE = None

__all__ = ["check_search_split", "ROUTING_ADVICE", "SEARCH_DEPTH"]

#: how many frames up a fit looks for scikit-learn's ``_fit_and_score`` (a pipeline, a
#: meta-estimator and rankselect's own layers sit between them)
SEARCH_DEPTH = 40

#: what to do when a search's scorer needs qid
ROUTING_ADVICE = ("call sklearn.set_config(enable_metadata_routing=True) before the search, and pass qid=... "
                  "(and groups=qid for a group splitter) to its fit: rankselect's estimators and scorers request "
                  "qid for fit and score")


def _split_frame() -> Optional[dict[str, Any]]:
    """The locals of scikit-learn's ``_fit_and_score`` when this fit runs inside it."""
    if _FIT_AND_SCORE is None:  # pragma: no cover
        return None
    frame: Optional[FrameType] = sys._getframe(2)
    for _ in range(SEARCH_DEPTH):
        if frame is None:
            return None
        if frame.f_code is _FIT_AND_SCORE:
            return frame.f_locals
        frame = frame.f_back
    return None


def _needs_qid(scorer: Any) -> bool:
    """Whether ``scorer`` needs the query ids of the scored rows (a rankselect ranker's
    ``score``, directly or as a pipeline's last step, or a rankselect scorer without bound
    ``qid``)."""
    scorers = getattr(scorer, "_scorers", None)
    if isinstance(scorers, dict):  # several scorers (scoring=[...] / {...})
        return any(_needs_qid(s) for s in scorers.values())
    func = getattr(scorer, "_score_func", None)
    if func is not None and type(func).__module__.startswith("rankselect"):
        return getattr(func, "qid", None) is None
    estimator = getattr(scorer, "_estimator", None)  # scoring=None: the estimator's own score
    if estimator is None:
        return False
    steps = getattr(estimator, "steps", None)
    final = steps[-1][1] if isinstance(steps, list) and steps else estimator
    if not type(final).__module__.startswith("rankselect"):
        return False
    try:
        return bool(final.get_metadata_routing().score.requests.get("qid"))
    except AttributeError:
        return False


def check_search_split(estimator: Any) -> None:
    """The checks of the module docstring, for ``estimator``'s fit (a no-op outside a
    scikit-learn search)."""
    split = _split_frame()
    if split is None:
        return
    name = type(estimator).__name__
    if not sklearn.get_config().get("enable_metadata_routing", False):
        if _needs_qid(split.get("scorer")):
            raise ValueError(f"{name} inside a scikit-learn search or cross-validation with metadata routing "
                             f"off: its scorer needs the query ids of the test rows, which the search passes to "
                             f"fit only (every split's score would fail, the search would end with NaN); "
                             f"{ROUTING_ADVICE}")
        return
    fit_qid = (split.get("fit_params") or {}).get("qid")
    test_qid = (split.get("score_params_test") or {}).get("qid")
    if fit_qid is None or test_qid is None:
        return
    shared = np.intersect1d(np.asarray(fit_qid), np.asarray(test_qid))
    if shared.size:
        # one text for every split (the warning filters show it once), the counts left out
        warnings.warn("a cross-validation split puts rows of one query on both sides: the query is scored by a "
                      "model trained on some of its own rows. Split by query: cv=GroupKFold(...) and "
                      "search.fit(X, y, qid=qid, groups=qid) (a row splitter such as KFold or ShuffleSplit ignores "
                      "the queries)", UserWarning, stacklevel=4)
