"""Feature selection with the deployed ranker in the loop (wrapper methods): any ranker
that takes query groups (LightGBM, XGBoost, CatBoost, rankselect's), scored on validation
queries, optionally seeded by a fast rankselect selector's order.

- :class:`RecursiveElimination` (:mod:`~rankselect.selection.wrapper.elimination`): drop the least
  important features round by round (permutation importance within queries, refit loss
  change, or the ranker's own importance);
- :class:`ForwardSelection` (:mod:`~rankselect.selection.wrapper.forward`): add the best feature
  round by round, optionally floating;
- :class:`SelectionPath` (:mod:`~rankselect.selection.wrapper.path`): every subset scored, as data,
  and :func:`choose_step`, the rule that picks the selection (best or one standard error).
"""
from .elimination import IMPORTANCES, RecursiveElimination
from .forward import ForwardSelection
from .path import SELECTION_RULES, SelectionPath, choose_step

__all__ = ["RecursiveElimination", "ForwardSelection", "SelectionPath", "choose_step", "IMPORTANCES",
           "SELECTION_RULES"]
