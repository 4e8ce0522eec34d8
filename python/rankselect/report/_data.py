"""What a report shows, as plain data: :class:`ReportData` and its parts.

The sources (``_experiment``: an experiment's output folder; ``_fitted``: a fitted
selector with its data) fill these; ``_figures`` draws them. Every number is computed by
the package's own functions (:func:`~rankselect.selection.wrapper.choose_step` for the
best and one-standard-error sizes, :func:`~rankselect.analysis.redundancy_report`,
:func:`~rankselect.analysis.inspection.permutation_importance`,
:func:`~rankselect.analysis.export.export_selection`); nothing is re-derived here.
"""
from __future__ import annotations

import platform
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from ..selection.wrapper.path import PathRecorder, SelectionPath, choose_step

__all__ = ["PANELS", "Curve", "Redundancy", "Importance", "PerQuery", "ReportData", "curve_from_per_query",
           "marks_of", "versions"]


#: panel id -> (title, one-line reading guide)
PANELS: dict[str, tuple[str, str]] = {
    "quality": ("Quality against the number of features",
                "Higher is better. Bands are 95 % intervals; the dashed line marks the best size and the "
                "solid line the one-standard-error size (the smallest subset within one standard error "
                "of the best). Click a legend entry to hide a method."),
    "pareto": ("Cost against quality",
               "Each point is a subset; the line joins the Pareto front (no cheaper subset scores higher). "
               "Pick a point on the line."),
    "per-query": ("Per-query wins and losses",
                  "One bar per query: the chosen subset's score minus the reference's. Bars below zero are "
                  "the queries the smaller subset loses; hover for the query id."),
    "redundancy": ("Redundancy",
                   "Similarity of every pair of features, ordered by its dendrogram: dark blocks on the "
                   "diagonal are clusters of near-duplicates; one representative per cluster is enough."),
    "stability": ("Stability",
                  "How often each feature was selected (1 = every time). A subset of features near 1 is "
                  "stable; many features near 0.5 mean the choice is arbitrary."),
    "importance": ("Importance of the chosen features",
                   "Drop of the measure when the feature is shuffled within each query (95 % interval "
                   "over queries). An interval that crosses zero: the ranker does not need that feature."),
    "subset": ("The chosen subset",
               "Move the slider to choose k; the table and the snippets follow. Copy the JSON, the "
               "LightGBM column list, or a search engine's feature set (a skeleton: fill in each feature's "
               "query, or run rankselect export --engine with --templates and --model) to hand the subset off."),
}


@dataclass
class Curve:
    """One line of the quality panel: the score of each subset size with its interval.

    ``low`` / ``high`` bound a 95 % t-interval (over queries, or over folds for an
    experiment folder; ``interval_over`` says which); ``se`` is the standard error of the mean.
    """

    method: str
    split: str  # "validation" or "test"
    n_features: list[int]
    score: list[float]
    low: list[float]
    high: list[float]
    se: list[float]
    interval_over: str = "queries"


@dataclass
class PerQuery:
    """Per-query score of the chosen subset minus that of the reference (all features)."""

    qids: list[str]
    chosen: list[float]
    reference: list[float]
    measure: str
    chosen_label: str
    reference_label: str

    @property
    def delta(self) -> list[float]:
        return [a - b for a, b in zip(self.chosen, self.reference)]


@dataclass
class Redundancy:
    """The similarity matrix in dendrogram order (``order``: 0-based columns), its clusters
    (feature names, two or more features) and their representatives (names)."""

    matrix: list[list[float]]
    order: list[int]
    clusters: list[list[str]]
    representatives: list[str]
    similarity: str
    threshold: float


@dataclass
class Importance:
    """Query-aware permutation importance of the chosen features (mean drop, t-interval over queries)."""

    features: list[int]
    mean: list[float]
    low: list[float]
    high: list[float]
    measure: str
    split: str


@dataclass
class ReportData:
    """Everything one report shows (features are 0-based columns; names as given): what
    :func:`~rankselect.report.build_report` returns and the page draws.

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.report import build_report
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> sel = rs.GreedyRankRLS(n_features_to_select=6).fit(*train)
    >>> data = build_report(sel, train=train, vali=vali, n_resamples=0)
    >>> data.marks["GreedyRankRLS"], data.subsets[data.default_k]
    ({'best': 6, 'one-standard-error': 5}, [7, 3, 11, 4, 16])
    """

    title: str
    source: str
    measure: str
    feature_names: list[str]
    method: str  # the method whose subset the report hands off
    curves: list[Curve]
    marks: dict[str, dict[str, int]]  # method -> {"best": k, "one-standard-error": k}
    subsets: dict[int, list[int]]  # k -> the chosen method's subset of that size
    default_k: int
    stability: dict[str, list[float]]  # method -> selection frequency of each feature
    stability_over: str
    per_query: Optional[PerQuery] = None
    redundancy: Optional[Redundancy] = None
    importance: Optional[Importance] = None
    costs: Optional[list[float]] = None
    families: Optional[list[str]] = None
    pareto: list[dict[str, Any]] = field(default_factory=list)  # method, k, cost, score, split
    settings: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)  # panel -> why it is empty


def curve_from_per_query(method: str, split: str, sizes, per_query) -> Curve:
    """A :class:`Curve` from per-query scores (one row per size), through the path's own
    mean / standard error / t-interval (:class:`~rankselect.selection.wrapper.path.PathRecorder`)."""
    rec = PathRecorder()
    for k, row in zip(sizes, per_query):
        rec.add(np.arange(int(k)), row, [], [], 0.0, float(k))
    return curve_from_path(method, split, rec.path())


def curve_from_path(method: str, split: str, path: SelectionPath, interval_over: str = "queries") -> Curve:
    """A :class:`Curve` of the best step of each size on a selection path."""
    sizes = sorted(set(int(k) for k in path.n_features))
    steps = [choose_step(_all_eligible(path), "best", n_features=k) for k in sizes]
    return Curve(method, split, sizes, [float(path.scores[i]) for i in steps],
                 [float(path.ci_low[i]) for i in steps], [float(path.ci_high[i]) for i in steps],
                 [float(path.score_se[i]) for i in steps], interval_over)


def _all_eligible(path: SelectionPath) -> SelectionPath:
    if path.eligible.shape == path.n_features.shape:
        return path
    return SelectionPath(path.n_features, path.scores, path.score_se, path.ci_low, path.ci_high,
                         eligible=np.ones(len(path), dtype=bool))


def marks_of(curve: Curve) -> dict[str, int]:
    """The best size and the one-standard-error size of a validation curve, by
    :func:`~rankselect.selection.wrapper.choose_step` (Breiman et al.'s rule: the smallest
    size scoring at least ``best - se_best``)."""
    n = np.asarray(curve.n_features)
    path = SelectionPath(n_features=n, scores=np.asarray(curve.score), score_se=np.asarray(curve.se),
                         ci_low=np.asarray(curve.low), ci_high=np.asarray(curve.high),
                         eligible=np.ones(n.size, dtype=bool))
    return {rule: int(n[choose_step(path, rule)]) for rule in ("best", "one-standard-error")}


def versions() -> dict[str, str]:
    """The versions of what produced the page."""
    import bokeh
    import jinja2
    import scipy

    from .. import _core

    return {"rankselect": _core.__version__, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "bokeh": bokeh.__version__, "jinja2": jinja2.__version__}
