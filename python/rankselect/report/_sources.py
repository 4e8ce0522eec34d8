"""What a report's panels may collect their data from: :class:`Sources`.

A source (``_experiment``: an experiment's folder; ``_fitted``: a fitted selector with its
data) computes the decision - the curves, the sizes, the subsets, the comparisons - and hands
the panels what they may read (:attr:`~rankselect.report.ReportData.sources`); each panel's
``collect`` (:class:`~rankselect.report.Panel`) then fills its own part of the
:class:`~rankselect.report.ReportData` (the registry runs them: ``_panels.collect_panels``).
A new panel reads what it needs here and keeps its data in ``ReportData.panel_data[key]``
(and a top-level key of the decision, if it has one, in ``ReportData.decision_extra``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Sources"]


@dataclass
class Sources:
    """What the panels may read, beside the decision.

    Attributes
    ----------
    kind : "experiment" or "fit".
    train : (X, y, qid) or None
        Training rows the panels refit on (an experiment: its first fold's; a fit: its own).
    test : (X, y, qid) or None
        The held-out queries the panels measure on (a fit without test data: its validation).
    split : str
        How the page names ``test`` (``"test of Fold1"``, ``"test"``, ``"validation"``).
    missing : str
        Why ``train`` / ``test`` are absent (the panels' note), empty when they are here.
    ranker : estimator or None
        The ranker of the decision, unfitted (None: ``RankRLS()``).
    measure : str
        The measure of the panels' own scores.
    random_state, progress :
        The seed of the panels' shuffles; whether long work prints its progress.
    experiment : ExperimentResult or None
        An experiment's result (the folds' paths, pooled per method in ``pooled``).
    pooled : dict
        An experiment's paths pooled over the folds, per method (``_paths.Pooled``).
    selector : fitted selector or None, and n_resamples : int
        A fit's selector and the refits of its stability panel.
    extra : dict
        Anything else a source knows that a panel may want (e.g. the data folder).
    """

    kind: str
    train: Any = None  # RankingData or (X, y, qid)
    test: Any = None
    split: str = "test"
    missing: str = ""
    ranker: Any = None
    measure: str = "MAP"
    random_state: int = 0
    progress: bool = False
    experiment: Any = None
    pooled: dict = field(default_factory=dict)
    selector: Any = None
    n_resamples: int = 0
    extra: dict = field(default_factory=dict)
