"""Rankers and seeds by name, for the registry, the CLI (``--ranker``, ``--candidates``) and
the experiment protocol: the ranker-in-the-loop selectors built from plain values."""
from __future__ import annotations

from typing import Any, Optional, Union

from ...models import RankRLS, RankSVM
from ..gas import GAS
from ..greedy_rankrls import GreedyRankRLS
from .elimination import RecursiveElimination
from .forward import ForwardSelection

__all__ = ["RANKERS", "CANDIDATES", "make_ranker", "recursive_elimination", "forward_selection",
           "count_or_fraction", "boolean"]

#: the ``--ranker`` names
RANKERS = ("lightgbm", "xgboost", "catboost", "rankrls", "ranksvm")
#: the ``--candidates`` names (the selector whose order seeds the selection)
CANDIDATES = ("none", "greedy-rankrls", "gas")

_INSTALL = {"lightgbm": "lightgbm", "xgboost": "xgboost", "catboost": "catboost"}


def make_ranker(name: str, random_state: Optional[int] = None) -> Any:
    """An unfitted ranker by name: LightGBM's ``LGBMRanker`` (100 trees), XGBoost's
    ``XGBRanker`` (100 trees), CatBoost's ``CatBoostRanker`` (200 iterations), or
    rankselect's ``RankRLS`` / ``RankSVM``. The boosting libraries run on one thread each: a
    selection fits many small models, which the selector's ``n_jobs`` runs side by side. A
    missing library is an ImportError that says what to install.

    Examples
    --------
    >>> from rankselect.selection.wrapper.rankers import make_ranker
    >>> make_ranker("rankrls")
    RankRLS()
    >>> make_ranker("ranknet")
    Traceback (most recent call last):
    ...
    ValueError: unknown ranker 'ranknet'; choose one of lightgbm, xgboost, catboost, rankrls, ranksvm
    """
    if name not in RANKERS:
        raise ValueError(f"unknown ranker {name!r}; choose one of {', '.join(RANKERS)}")
    if name == "rankrls":
        return RankRLS()
    if name == "ranksvm":
        return RankSVM()
    try:
        if name == "lightgbm":
            import lightgbm

            return lightgbm.LGBMRanker(n_estimators=100, n_jobs=1, verbose=-1, random_state=random_state)
        if name == "xgboost":
            import xgboost

            return xgboost.XGBRanker(n_estimators=100, n_jobs=1, random_state=random_state)
        import catboost

        return catboost.CatBoostRanker(iterations=200, thread_count=1, random_seed=random_state, verbose=False,
                                       allow_writing_files=False)
    except ImportError as exc:
        raise ImportError(f"--ranker {name} needs the {name} package, which is not installed: "
                          f"pip install {_INSTALL[name]}") from exc


def make_candidates(name: str) -> Any:
    """The seeding selector by name (``"none"``: None, all features)."""
    if name not in CANDIDATES:
        raise ValueError(f"unknown candidates {name!r}; choose one of {', '.join(CANDIDATES)}")
    return {"none": None, "greedy-rankrls": GreedyRankRLS(), "gas": GAS()}[name]


def count_or_fraction(text: str) -> Union[int, float]:
    """``"3"`` -> 3, ``"0.2"`` -> 0.2 (``--step``).

    Examples
    --------
    >>> from rankselect.selection.wrapper.rankers import count_or_fraction
    >>> count_or_fraction("3"), count_or_fraction("0.2")
    (3, 0.2)
    """
    return int(text) if text.strip().isdigit() else float(text)


def boolean(text: str) -> bool:
    """``yes/no/true/false/1/0`` -> bool (``--floating``).

    Examples
    --------
    >>> from rankselect.selection.wrapper.rankers import boolean
    >>> boolean("yes"), boolean("False"), boolean("1")
    (True, False, True)
    """
    value = text.strip().lower()
    if value in ("yes", "true", "1"):
        return True
    if value in ("no", "false", "0"):
        return False
    raise ValueError(f"expected yes or no, got {text!r}")


def recursive_elimination(n_features_to_select: Union[str, int, float] = "auto", ranker: str = "lightgbm",
                          step: Union[int, float] = 1, drop_by: str = "permutation", scoring: str = "ndcg@10",
                          candidates: str = "none", n_candidates: Optional[int] = None,
                          selection_rule: str = "best", random_state: Optional[int] = 0,
                          **kwargs: Any) -> RecursiveElimination:
    """:class:`RecursiveElimination` from plain values (``ranker``, ``candidates`` by name,
    ``drop_by``: the ``importance``).

    Examples
    --------
    >>> from rankselect.selection.wrapper.rankers import recursive_elimination
    >>> sel = recursive_elimination(3, ranker="rankrls", step=0.5, drop_by="native")
    >>> sel.estimator, sel.importance, sel.n_features_to_select
    (RankRLS(), 'native', 3)
    """
    return RecursiveElimination(make_ranker(ranker, random_state), n_features_to_select=n_features_to_select,
                                step=step, importance=drop_by, scoring=scoring, candidates=make_candidates(candidates),
                                n_candidates=n_candidates, selection_rule=selection_rule, random_state=random_state,
                                **kwargs)


def forward_selection(n_features_to_select: Union[str, int, float] = "auto", ranker: str = "lightgbm",
                      floating: bool = False, scoring: str = "ndcg@10", candidates: str = "none",
                      n_candidates: Optional[int] = None, selection_rule: str = "best",
                      random_state: Optional[int] = 0, **kwargs: Any) -> ForwardSelection:
    """:class:`ForwardSelection` from plain values (``ranker``, ``candidates`` by name).

    Examples
    --------
    >>> from rankselect.selection.wrapper.rankers import forward_selection
    >>> sel = forward_selection(2, ranker="rankrls", candidates="greedy-rankrls", n_candidates=5)
    >>> sel.estimator, sel.candidates, sel.n_candidates
    (RankRLS(), GreedyRankRLS(), 5)
    """
    return ForwardSelection(make_ranker(ranker, random_state), n_features_to_select=n_features_to_select,
                            floating=floating, scoring=scoring, candidates=make_candidates(candidates),
                            n_candidates=n_candidates, selection_rule=selection_rule, random_state=random_state,
                            **kwargs)
