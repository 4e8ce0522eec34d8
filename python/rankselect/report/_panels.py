"""The report's panels: one :class:`Panel` entry each in :data:`PANELS` (id, title, reading
guide, the function that collects its data, the function that draws it from a
:class:`~rankselect.report.ReportData`, and when it is shown). The page, its navigation and
the browser tests read this registry; a new panel is one entry here (its drawing function in
a ``_fig_*`` module, its collecting function reading the report's
:class:`~rankselect.report._sources.Sources`)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from ..analysis.stats import RULE_REFERENCE
from ._collect import collect_importance, collect_redundancy, collect_stability
from ._data import ReportData
from ._fig_cascade import cascade, collect_cascade, has_cascade
from ._fig_curves import front, groups_quality, quality
from ._fig_features import group_importance, group_stability, importance, per_query, redundancy, stability
from ._fig_subset import subset
from ._sources import Sources

__all__ = ["Panel", "PANELS", "shown_panels", "collect_panels"]


def _always(d: ReportData) -> bool:
    return True


def _with_groups(d: ReportData) -> bool:
    return d.groups is not None


@dataclass(frozen=True)
class Panel:
    """One panel: ``key`` (its id, ``panel-<key>`` on the page), ``title``, ``guide`` (how to
    read it), ``draw`` (ReportData -> Bokeh model), ``shown`` (whether a page has it) and
    ``collect`` (ReportData, Sources -> None: fills the panel's own data, run once by
    :func:`collect_panels` after the source has made the decision; None for the panels that
    draw the decision itself).

    Examples
    --------
    >>> from rankselect.report import PANELS
    >>> list(PANELS)[:3]
    ['quality', 'pareto', 'per-query']
    >>> PANELS["quality"].title
    'Quality against the number of features'
    """

    key: str
    title: str
    guide: str
    draw: Callable[[ReportData], Any]
    shown: Callable[[ReportData], bool] = _always
    collect: Optional[Callable[[ReportData, Sources], None]] = None


#: every panel of the page, in order: panel id -> :class:`Panel`
PANELS: dict[str, Panel] = {p.key: p for p in (
    Panel("quality", "Quality against the number of features",
          "Mean score over the queries of each size, validation (solid) and test (dashed). The bands are 95 % "
          "intervals of the paired per-query difference to the best validation size (an experiment's folds "
          "pooled: every query once), drawn around each size's mean. The solid vertical line is the size "
          f"{RULE_REFERENCE} keeps: the smallest within one standard error of the best (dashed). For an "
          "experiment, the fold-to-fold spread is drawn below. Click a legend entry to hide a line.", quality),
    Panel("pareto", "Cost against quality: every size of every method",
          "Each filled point is a subset size of a method, at its validation score: choose on validation, along "
          "the black front (no cheaper subset scores higher). The hollow square beside it is its test score. The "
          "star is the chosen subset. Cost: the features' own costs plus each group's cost once.", front),
    Panel("per-query", "The chosen subset against all features, per query",
          "One bar per query: the chosen subset's score minus that of the model on all features. Bars above zero "
          "are the queries the chosen subset wins, below zero those it loses; hover for the query id.", per_query),
    Panel("groups-quality", "Quality against the number of feature groups",
          "For every number G of feature groups (the extraction units you pay for): the size of best validation "
          "score whose subsets come from at most G groups (in every fold of an experiment), validation (solid) "
          "and its test score (dashed), with the paired bands of panel 1. Hover for the size.", groups_quality,
          _with_groups),
    Panel("redundancy", "Redundancy",
          "Similarity of pairs of features, ordered by its dendrogram: dark blocks on the diagonal are "
          "near-duplicates; one representative per cluster is enough. Hover for the pair.", redundancy,
          collect=collect_redundancy),
    Panel("stability", "Stability",
          "How often each feature was selected (the colour bar: 1, dark, every time). A subset of features near 1 "
          "is stable; many features near 0.5 mean the choice is arbitrary. Hover for the frequency.", stability,
          collect=collect_stability),
    Panel("groups-stability", "Stability of the feature groups",
          "How often each group contributed a selected feature.", group_stability, _with_groups),
    Panel("importance", "Importance of the chosen features",
          "Drop of the measure when the feature is shuffled within each query (95 % interval over queries). An "
          "interval that crosses zero: the ranker does not need that feature.", importance,
          collect=collect_importance),  # with groups, also the groups' importance (one fit of the ranker)
    Panel("groups-importance", "Importance of the chosen feature groups",
          "Drop of the measure when the chosen features of a group are shuffled together within each query.",
          group_importance, _with_groups),
    Panel("subset", "The chosen subset, to hand off",
          "Move the slider to choose k; the table, the groups to extract and the copy boxes follow. The last box "
          "holds a search engine's feature set for the subset (choose the engine): a skeleton whose queries you "
          "fill in, or write it with your templates and ranker with rankselect export.", subset),
    Panel("cascade", "Ranking phases: the cascade front beside one phase",
          "A CascadeSelection's configurations, mean cost per validation query against validation score: the "
          "gray front uses one phase (a prefix of the path on every document), the red one also cascades (a "
          "longer prefix re-ranking phase 1's top N). The star is the choice; the text above says whether the "
          "cascade beats the best affordable single phase beyond the paired noise of the validation queries, "
          "or \"one phase\".", cascade, has_cascade, collect=collect_cascade),
)}


def collect_panels(d: ReportData) -> ReportData:
    """Run every panel's ``collect`` on ``d.sources`` (once; a report without sources, e.g. one
    built by hand, keeps what it holds)."""
    if d.sources is not None:
        for p in PANELS.values():
            if p.collect is not None:
                p.collect(d, d.sources)
        d.sources = None  # collected: the data and the models are not kept with the report
    return d


def shown_panels(d: ReportData) -> list[Panel]:
    """The panels of ``d``'s page, in order."""
    return [p for p in PANELS.values() if p.shown(d)]
