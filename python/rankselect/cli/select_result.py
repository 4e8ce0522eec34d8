"""What ``rankselect select`` computed, as one named object, and its two printed forms.

:func:`rankselect.cli.select.compute` fits and scores and returns a :class:`SelectResult`;
``select`` then prints it, as a table (:meth:`SelectResult.text`) or as JSON
(:meth:`SelectResult.to_json`): the same numbers in both. One row per selected feature, in
selection order; a *step* adds one feature, or one whole group (``--groups`` / ``--layout``
with ``--select-groups``), and a step's scores stand on the row of its last feature.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .common import plural

__all__ = ["SelectResult", "Costs", "LoopScores", "number"]

#: an optional number per row (None: the step has no value on that row)
Column = list[Optional[float]]


def number(value: float) -> str:
    """A cost or total as text: up to 15 significant digits, so that a total summed as
    written (:func:`rankselect.cli.costs.exact_sum`) prints as the JSON's float does.

    Examples
    --------
    >>> from rankselect.cli.select_result import number
    >>> number(4.937), number(3.0), number(1e-20)
    ('4.937', '3', '1e-20')
    """
    return f"{value:.15g}"


@dataclass(frozen=True)
class Costs:
    """The cost of a selection: ``total`` (each touched group's cost once), ``features`` (the
    features' own costs; None without groups), the ``budget`` and the groups paid for.

    Examples
    --------
    >>> from rankselect.cli.select_result import Costs
    >>> Costs(total=5.0, budget=6.0, features=2.0, groups_paid=["body"]).total
    5.0
    """

    total: float
    file: Optional[str] = None
    budget: Optional[float] = None
    features: Optional[float] = None
    groups_paid: Optional[list[str]] = None


@dataclass(frozen=True)
class LoopScores:
    """The ranker-in-the-loop selectors' own scores: per row (score, CI low, CI high), the
    convention, where they were measured, and every subset the selector scored.

    Examples
    --------
    >>> from rankselect.cli.select_result import LoopScores
    >>> loop = LoopScores([(0.61, 0.55, 0.67)], "exponential", "vali.txt",
    ...                   [{"n_features": 1, "score": 0.61, "ci_low": 0.55, "ci_high": 0.67, "features": [3]}])
    >>> loop.rows[0][0]
    0.61
    """

    rows: list[Optional[tuple[float, float, float]]]
    convention: str
    on: str
    path: list[dict[str, Any]]


@dataclass(frozen=True)
class SelectResult:
    """The result of ``rankselect select`` (features 0-based here, 1-based when printed).

    Examples
    --------
    >>> from rankselect.cli.select_result import SelectResult
    >>> r = SelectResult(method="gas", train="train.txt", n_features=5, params={"c": 0.1}, selected=[3, 0],
    ...                  steps=[1, 2], score_name="gas weight", scores=[0.9, 0.5])
    >>> print(r.text())
    # gas on train.txt: 2 features (numbered as in the file)
            step       feature    gas weight
               1             4           0.9
               2             1           0.5
    >>> r.to_json()["selected_features"]
    [4, 1]
    """

    method: str
    train: str
    n_features: int
    params: dict[str, Any]
    selected: list[int]
    steps: list[int]
    score_name: Optional[str] = None
    scores: Optional[Column] = None
    groups: Optional[list[str]] = None
    selected_groups: Optional[list[str]] = None
    coef: Optional[list[float]] = None
    costs: Optional[Costs] = None
    loop: Optional[LoopScores] = None
    vali: Optional[str] = None
    validation_convention: Optional[str] = None
    validation: Optional[list[Optional[tuple[float, float]]]] = None
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The JSON object of ``select --json`` (``rankselect export`` reads it)."""
        out: dict[str, Any] = {
            "method": self.method, "train": self.train, "params": self.params,
            "selected_features": [j + 1 for j in self.selected], "steps": self.steps,
            "score_name": self.score_name, "scores": self.scores, "n_features": self.n_features,
            "coef": self.coef,
        }
        if self.costs is not None:
            c = self.costs
            if c.file is not None:
                out["costs_file"] = c.file
            out["total_cost"] = c.total
            if c.features is not None:
                out["feature_cost"] = c.features
            if c.groups_paid is not None:
                out["groups_paid"] = c.groups_paid
        if self.loop is not None:
            out["score_ci"] = [None if r is None else [_finite(r[1]), _finite(r[2])] for r in self.loop.rows]
            out["score_convention"] = self.loop.convention
            out["path"] = self.loop.path
        if self.groups is not None:
            out["groups"] = self.groups
            out["selected_groups"] = self.selected_groups
        if self.notes:
            out["note"] = "; ".join(self.notes)
        if self.validation is not None:
            out["validation_convention"] = self.validation_convention
            out["validation"] = [None if r is None else {"NDCG@10": r[0], "MAP": r[1]} for r in self.validation]
        return out

    def text(self) -> str:
        """The table of ``select`` (``#`` lines say what the columns are)."""
        lines = [f"# {self.method} on {self.train}: {plural(len(self.selected), 'feature')} (numbered as in the file)"
                 + ("" if self.steps == list(range(1, len(self.selected) + 1))
                    else f" in {plural(self.steps[-1], 'step')} of whole groups")]
        lines += [f"# {note}" for note in self.notes]
        if self.validation is not None:
            lines.append(f"# validation scores: {self.vali}, {self.validation_convention} convention")
        if self.loop is not None:
            lines.append(f"# {self.score_name}: the {self.method} ranker's own score of the subset on {self.loop.on} "
                         f"({self.loop.convention} convention), mean over queries and its 95% t-interval; blank: a "
                         "prefix it did not score")
        header = ["step", "feature"] + ([] if self.groups is None else ["group"])
        if self.scores is not None:
            header.append(self.score_name or "score")
        if self.loop is not None:
            header.append("95% CI")
        if self.validation is not None:
            header += ["vali NDCG@10", "vali MAP"]
        wide = max([12] + [len(g) for g in self.groups or []])  # the group column fits its names
        lines.append("  ".join(f"{h:>{wide if h == 'group' else 12}}" for h in header))
        blank = f"{'':>12}"
        for i, j in enumerate(self.selected):
            row = [f"{self.steps[i]:>12d}", f"{j + 1:>12d}"] + ([] if self.groups is None else
                                                              [f"{self.groups[i]:>{wide}}"])
            if self.scores is not None:
                s = self.scores[i]
                row.append(blank if s is None else f"{s:>12.6g}")
            if self.loop is not None:
                r = self.loop.rows[i]
                row.append(blank if r is None else f"[{r[1]:.4f}, {r[2]:.4f}]")
            if self.validation is not None:
                v = self.validation[i]
                row += [blank, blank] if v is None else [f"{v[0]:>12.4f}", f"{v[1]:>12.4f}"]
            lines.append("  ".join(row))
        if self.costs is not None:
            c = self.costs
            budget = "" if c.budget is None else f" (budget {number(c.budget)})"
            own = "" if c.features is None else f" (features {number(c.features)})"
            paid = "" if not c.groups_paid else f"; groups paid for: {', '.join(c.groups_paid)}"
            lines.append(f"# total cost {number(c.total)}{own}{budget}{paid}")
        if self.loop is not None:
            lines.append(f"# every subset scored ({self.score_name}, 95% CI, features):")
            for step in self.loop.path:
                feats = " ".join(str(j) for j in step["features"])
                lines.append(f"#   {step['n_features']:>4d}  {_fixed(step['score'])}  [{_fixed(step['ci_low'])}, "
                             f"{_fixed(step['ci_high'])}]  {feats}")
        return "\n".join(lines)


def _finite(v: float) -> Optional[float]:
    """A float for JSON (None for NaN / inf)."""
    return float(v) if v == v and abs(v) != float("inf") else None


def _fixed(v: Optional[float]) -> str:
    return "nan" if v is None else f"{v:.4f}"
