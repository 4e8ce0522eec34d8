"""What a report shows, as plain data: :class:`ReportData` and its parts.

The sources (``_experiment``: an experiment's output folder; ``_fitted``: a fitted
selector with its data) fill these; the panels (``_panels``) draw them. Every number is
computed by the package's own functions (:func:`~rankselect.analysis.stats.size_choice` for
the best and one-standard-error sizes on paired per-query differences,
:func:`~rankselect.analysis.stats.paired_test`, :func:`~rankselect.analysis.redundancy_report`,
:func:`~rankselect.analysis.inspection.permutation_importance`,
:func:`~rankselect.analysis.export.export_selection`); nothing is re-derived here.
"""
from __future__ import annotations

import platform
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from ..analysis.stats import RULE, RULES, paired_test, size_choice
from ..data.feature_groups import ExtractionCosts, FeatureGroups
from ._sources import Sources

__all__ = ["Curve", "PerQuery", "Redundancy", "Importance", "ReportData", "curve_of", "compare_queries",
           "feature_label", "versions", "plural"]


def plural(n: float, word: str, words: str = "") -> str:
    """``"1 feature"``, ``"2 features"``, ``"14.2 features"``."""
    shown = f"{n:g}" if isinstance(n, float) else str(n)
    return f"{shown} {word if n == 1 else (words or word + 's')}"


@dataclass
class Curve:
    """One line of the quality panel: the mean score of each size, with the paired interval.

    ``low`` / ``high`` bound ``score`` by the 95 % t-interval of the mean per-query
    difference to ``reference`` (the size that is best on validation): zero width there.
    ``folds`` holds each fold's mean score per size (the fold-to-fold spread), when known.
    """

    method: str
    split: str  # "validation" or "test"
    n_features: list[int]
    score: list[float]
    low: list[float]
    high: list[float]
    diff: list[float]
    diff_se: list[float]
    reference: int
    n_queries: int
    n_groups: Optional[list[float]] = None
    cost: Optional[list[float]] = None
    folds: dict[str, list[float]] = field(default_factory=dict)


def curve_of(method: str, split: str, sizes, per_query, reference: Optional[int] = None,
             folds: Optional[dict[str, list[float]]] = None, rule: str = RULE):
    """A :class:`Curve` and its :class:`~rankselect.analysis.stats.SizeChoice` from per-query
    scores (one row per size; the folds' queries pooled; ``rule``: how the size is chosen)."""
    c = size_choice(sizes, per_query, reference=reference, rule=rule)
    ref = c.best if reference is None else int(reference)
    curve = Curve(method, split, [int(k) for k in c.sizes], c.mean.tolist(), (c.mean + c.diff_low - c.diff).tolist(),
                  (c.mean + c.diff_high - c.diff).tolist(), c.diff.tolist(), c.diff_se.tolist(), ref,
                  c.n_queries, folds=folds or {})
    return curve, c


@dataclass
class PerQuery:
    """Per-query scores of the chosen subset and of the reference (all features), with the
    paired test of their difference."""

    qids: list[str]
    chosen: list[float]
    reference: list[float]
    measure: str
    split: str
    chosen_label: str
    reference_label: str
    pvalue: float = float("nan")
    test: str = "randomization"

    @property
    def delta(self) -> list[float]:
        return [a - b for a, b in zip(self.chosen, self.reference)]

    def counts(self) -> tuple[int, int, int]:
        """(wins, losses, ties) of the chosen subset against the reference."""
        d = np.asarray(self.delta)
        return int((d > 0).sum()), int((d < 0).sum()), int((d == 0).sum())


def compare_queries(qids, chosen, reference, measure: str, split: str, chosen_label: str,
                    reference_label: str) -> PerQuery:
    """A :class:`PerQuery` with the two-sided paired randomization test of the difference
    (:func:`~rankselect.analysis.stats.paired_test`, seed 0)."""
    a, b = np.asarray(chosen, dtype=np.float64), np.asarray(reference, dtype=np.float64)
    p = float("nan")
    if a.size >= 2 and not np.array_equal(a, b):
        p = paired_test(a, b, test="randomization", n_resamples=10_000, random_state=0).pvalue
    elif a.size >= 2:
        p = 1.0
    return PerQuery([str(q) for q in qids], a.tolist(), b.tolist(), measure, split, chosen_label, reference_label, p)


@dataclass
class Redundancy:
    """The similarity of the features that matter (``shown``: 0-based columns, in dendrogram
    order; every feature when there are few), the most similar pairs of all features, the
    clusters (names) with their representatives, and the features constant within every query."""

    matrix: list[list[float]]
    shown: list[int]
    pairs: list[tuple[int, int, float]]
    clusters: list[list[int]]
    representatives: list[int]
    constant: list[int]
    similarity: str
    threshold: float
    n_features: int


@dataclass
class Importance:
    """Query-aware permutation importance (mean drop, t-interval over queries) of ``labels``
    (features or groups)."""

    labels: list[str]
    mean: list[float]
    low: list[float]
    high: list[float]
    measure: str
    split: str
    unit: str = "feature"


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
    >>> data = build_report(sel, train=train, vali=vali, n_resamples=0, progress=False)
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
    others: list[PerQuery] = field(default_factory=list)  # the other methods against the same reference
    redundancy: Optional[Redundancy] = None
    importance: Optional[Importance] = None
    group_importance: Optional[Importance] = None
    costs: Optional[list[float]] = None  # the features' own costs
    groups: Optional[FeatureGroups] = None
    group_costs: Optional[list[float]] = None
    group_stability: dict[str, list[float]] = field(default_factory=dict)
    pareto: list[dict[str, Any]] = field(default_factory=list)  # method, k, cost, n_groups, vali, test
    settings: dict[str, str] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)  # panel -> why it is empty, or a remark
    explanations: list[str] = field(default_factory=list)  # sentences under the summary
    validation: str = "validation"  # what the validation queries are
    rule: str = RULE  # how the size is chosen (a key of analysis.stats.RULES); marks[m][rule] is its size
    ranker: Optional[str] = None  # the ranker the decision is for (None: every method's own)
    folds: list[dict[str, Any]] = field(default_factory=list)  # per fold: the chosen size against all features
    optimism: Optional[dict[str, Any]] = None  # the validation score's optimism (an experiment's nested scores)
    decision_extra: dict[str, Any] = field(default_factory=dict)  # further top-level keys of the decision
    handoff: Optional[dict[str, Any]] = None  # which tested subset is handed off (an experiment's folds)
    panel_data: dict[str, Any] = field(default_factory=dict)  # a panel's own data, by its key
    sources: Optional[Sources] = field(default=None, repr=False, compare=False)  # what the panels collect from

    def label(self, j: int) -> str:
        """A feature's label on the page: its name and 1-based number (unique)."""
        return feature_label(self.feature_names, j)

    def cost_of(self, features) -> float:
        """The features' own costs plus each touched group's cost once
        (:class:`~rankselect.data.ExtractionCosts`); the number of features without costs."""
        cols = [int(j) for j in features]
        if self.costs is None and self.group_costs is None:
            return float(len(cols))
        own = np.asarray(self.costs if self.costs is not None else np.zeros(len(self.feature_names)))
        gc = None if self.group_costs is None else np.asarray(self.group_costs, dtype=np.float64)
        return ExtractionCosts(own, self.groups if gc is not None else None, gc).total(cols)

    def groups_of(self, features) -> list[str]:
        """The names of the groups touched by ``features``, in order of first appearance."""
        if self.groups is None:
            return []
        return [self.groups.names[g] for g in self.groups.groups_of(int(j) for j in features)]

    def decision(self) -> dict[str, Any]:
        """What the page recommends, as data (the page's ``rankselect-decision`` element and
        ``rankselect report --json``; JSON values, an undefined number as None)."""
        return _finite(self._decision())

    def _decision(self) -> dict[str, Any]:
        m = self.marks.get(self.method, {})
        k = m.get(self.rule, self.default_k)
        cols = [int(j) for j in self.subsets.get(k, self.subsets[self.default_k])]
        vali = next((c for c in self.curves if c.method == self.method and c.split == "validation"), None)
        out: dict[str, Any] = {
            "method": self.method, "rule": self.rule, "rule_reference": RULES[self.rule], "interval": "queries",
            "reference": "all features", "measure": self.measure, "best_size": m.get("best"),
            "chosen_size": len(cols), "features": cols, "feature_names": [self.feature_names[j] for j in cols],
            "selected_features": [j + 1 for j in cols], "index_base": {"features": 0, "selected_features": 1},
            "n_features": len(self.feature_names), "n_queries": None if vali is None else vali.n_queries,
            "validation_score": None, "cost": self.cost_of(cols), "source": self.source}
        if vali is not None and len(cols) in vali.n_features:
            i = vali.n_features.index(len(cols))
            out["validation_score"] = vali.score[i]
            out["difference_to_best"] = {"mean": vali.diff[i], "se": vali.diff_se[i]}
        if self.groups is not None:
            out["groups"] = self.groups_of(cols)
        pq = self.per_query
        if pq is not None:
            w, losses, t = pq.counts()
            out["against_reference"] = {"split": pq.split, "reference": pq.reference_label, "wins": w,
                                        "losses": losses, "ties": t, "mean_difference": float(np.mean(pq.delta)),
                                        "pvalue": pq.pvalue}
        out["ranker"] = self.ranker
        if self.handoff is not None:
            out["handoff"] = {key: v for key, v in self.handoff.items() if key != "sentence"}
        if self.folds:
            out["folds"] = self.folds
            out["significant_losses"] = [f["fold"] for f in self.folds if f["significant_loss"]]
        if self.optimism is not None:
            out["optimism"] = self.optimism
        for key, value in self.decision_extra.items():  # e.g. "cascade": another view's own record
            out.setdefault(key, value)
        return out


def _finite(x: Any) -> Any:
    """``x`` with NaN and infinite floats as None (JSON has no NaN)."""
    if isinstance(x, float) and not np.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x


#: names longer than this are cut in the page's labels (with an ellipsis; the hand-off keeps them whole)
MAX_LABEL = 60


def feature_label(names: list[str], j: int) -> str:
    """``"BM25 (title) #23"`` (the name on one line and the 1-based number: unique), ``"#23"``
    without a name."""
    name = " ".join(names[j].split())
    if len(name) > MAX_LABEL:
        name = name[:MAX_LABEL - 1] + "…"
    return f"#{j + 1}" if name == str(j + 1) else f"{name} #{j + 1}"


def versions() -> dict[str, str]:
    """The versions of what produced the page."""
    import bokeh
    import jinja2
    import scipy

    from .. import _core

    return {"rankselect": _core.__version__, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "bokeh": bokeh.__version__, "jinja2": jinja2.__version__}
