"""The ranking phases panel: a :class:`~rankselect.CascadeSelection`'s cascade front beside its
single-phase front (cost per query against validation quality), the chosen configuration, and
the decision - "cascade" or "one phase" - with the paired interval of the best affordable
cascade against the best affordable single phase on the validation queries.

``collect_cascade`` keeps the fitted selector's fronts and choice (``ReportData.panel_data
["cascade"]``) and the decision's top-level ``"cascade"`` key (``ReportData.decision_extra``);
the panel is shown only for a report of a CascadeSelection."""
from __future__ import annotations

from html import escape
from typing import Any

from bokeh.layouts import column
from bokeh.models import ColumnDataSource, Div, HoverTool, Legend, LegendItem
from bokeh.plotting import figure

from ._data import ReportData
from ._sources import Sources

__all__ = ["collect_cascade", "cascade", "has_cascade", "cascade_record"]

#: the normal quantile of the panel's paired interval (95 %)
Z95 = 1.959963984540054


def cascade_record(selector) -> dict[str, Any]:
    """The decision's ``"cascade"`` record of a fitted CascadeSelection: the phases (0-based
    ``features``, 1-based ``selected_features``, ``window``), the cost per query, the choice
    (the decision, the rule, both configurations, the paired difference, its standard error
    and 95 % interval) and the two fronts."""
    c = dict(selector.choice_)
    diff, se = c["mean_difference"], c["standard_error"]
    c["interval"] = [diff - Z95 * se, diff + Z95 * se]
    phases = [{"features": [int(j) for j in p.features], "selected_features": [int(j) + 1 for j in p.features],
               "window": p.window, "ranker": getattr(p, "ranker", "linear")} for p in selector.phases_]
    return {"phases": phases, "cost_per_query": float(selector.cost_per_query_), **c,
            "front": list(selector.front_), "single_front": list(selector.single_front_)}


def collect_cascade(d: ReportData, s: Sources) -> None:
    """The panel's data, when the report's selector is a fitted CascadeSelection."""
    sel = s.selector
    if sel is None or not hasattr(sel, "phases_") or not hasattr(sel, "front_"):
        return
    record = cascade_record(sel)
    d.panel_data["cascade"] = record
    d.decision_extra["cascade"] = record


def has_cascade(d: ReportData) -> bool:
    return "cascade" in d.panel_data


def _verdict(r: dict[str, Any]) -> str:
    best2 = r.get("cascade")
    if best2 is None:
        return "One phase: no cascade fits the budget."
    lo, hi = r["interval"]
    head = ("Cascade" if r["decision"] == "cascade" else "One phase") + (
        f" (rule {r['rule']}): the best affordable cascade scores {r['mean_difference']:+.4f} over the best "
        f"affordable single phase on {r['n_queries']} validation queries (95 % paired interval "
        f"[{lo:+.4f}, {hi:+.4f}], standard error {r['standard_error']:.4f}).")
    phases = "; ".join(
        f"phase {i} ({'every document' if p['window'] is None else 'top ' + str(p['window'])}"
        f"{', LightGBM' if p.get('ranker') == 'lightgbm' else ''}): features "
        f"{', '.join(map(str, p['selected_features']))}" for i, p in enumerate(r["phases"], 1))
    trees = ""
    if r.get("phase2_lightgbm_score") is not None:
        kept = "kept" if r.get("phase2_kept") == "lightgbm" else "not kept: below the linear one"
        trees = (f" The best affordable cascade's phase 2 refit as LightGBM scores {r['phase2_lightgbm_score']:.4f} "
                 f"on validation against {r['phase2_linear_score']:.4f} linear ({kept}).")
    return f"{head}{trees} Chosen: {phases}; cost per query {r['cost_per_query']:.6g}."


def cascade(d: ReportData):
    r = d.panel_data["cascade"]
    p = figure(height=360, sizing_mode="stretch_width", tools="pan,box_zoom,wheel_zoom,reset,save", name="cascade",
               x_axis_label="mean cost per validation query", y_axis_label="validation score")
    items = []
    for key, label, col in (("single_front", "one phase", "gray"), ("front", "with cascades", "crimson")):
        pts = r[key]
        src = ColumnDataSource({"cost": [x["cost"] for x in pts], "score": [x["score"] for x in pts],
                                "phases": [x["n_phases"] for x in pts], "a": [x["phase1_size"] for x in pts],
                                "n": ["" if x["window"] is None else str(x["window"]) for x in pts],
                                "b": ["" if x["phase2_size"] is None else str(x["phase2_size"]) + (
                                    " (LightGBM)" if x.get("phase2_ranker") == "lightgbm" else "") for x in pts]})
        line = p.step("cost", "score", source=src, mode="after", color=col, line_width=1.5)
        dots = p.scatter("cost", "score", source=src, color=col, size=7)
        items.append(LegendItem(label=label, renderers=[line, dots]))
        p.add_tools(HoverTool(renderers=[dots], tooltips=[
            ("phases", "@phases"), ("phase 1 features", "@a"), ("window", "@n"), ("phase 2 features", "@b"),
            ("cost", "@cost{0.[00]}"), ("score", "@score{0.0000}")]))
    chosen = r["cascade"] if r["decision"] == "cascade" else r["single"]
    star = p.scatter([chosen["cost"]], [chosen["score"]], marker="star", size=20, color="gold", line_color="black")
    items.append(LegendItem(label=f"chosen: {r['decision']}", renderers=[star]))
    p.add_layout(Legend(items=items, click_policy="hide", label_text_font_size="11px"), "right")
    return column(Div(text=f"<p>{escape(_verdict(r))}</p>", name="cascade-verdict"), p, sizing_mode="stretch_width")
