"""The panels of scores against sizes: quality against the number of features (paired bands,
the best and one-standard-error sizes; the folds' spread below it), quality against the
number of groups, and the cost-quality front."""
from __future__ import annotations

from html import escape

from bokeh.layouts import column
from bokeh.models import ColumnDataSource, Div, HoverTool, Label, Legend, LegendItem, Span
from bokeh.palettes import Category10_10
from bokeh.plotting import figure

from ._data import ReportData

__all__ = ["quality", "groups_quality", "front", "note", "TOOLS", "color"]

TOOLS = "pan,box_zoom,wheel_zoom,reset,save"


def color(i: int) -> str:
    return Category10_10[i % 10]


def note(text: str) -> Div:
    """A remark in place of a panel (escaped)."""
    return Div(text=f"<p class='note'>{escape(text)}</p>", name="note")


def _methods(d: ReportData) -> list[str]:
    return list(dict.fromkeys([d.method] + [c.method for c in d.curves]))


def _line(p, c, rows: list[int], x: list, col: str, items: list, tooltips: list) -> None:
    """One curve's rows (its paired band, line and points) at ``x``, with its legend entry."""
    src = ColumnDataSource({"x": x, "k": [c.n_features[i] for i in rows], "score": [c.score[i] for i in rows],
                            "low": [c.low[i] for i in rows], "high": [c.high[i] for i in rows],
                            "diff": [c.diff[i] for i in rows], "se": [c.diff_se[i] for i in rows],
                            "method": [c.method] * len(rows), "split": [c.split] * len(rows),
                            "ref": [c.reference] * len(rows)})
    val = c.split == "validation"
    band = p.varea("x", "low", "high", source=src, fill_color=col, fill_alpha=0.15 if val else 0.08)
    line = p.line("x", "score", source=src, color=col, line_width=2, line_dash="solid" if val else "dashed")
    dots = p.scatter("x", "score", source=src, color=col, size=5, marker="circle" if val else "square")
    items.append(LegendItem(label=f"{c.method} ({c.split})", renderers=[band, line, dots]))
    p.add_tools(HoverTool(renderers=[dots], tooltips=[("method", "@method"), ("split", "@split"), *tooltips,
                                                      ("95 % band", "@low{0.0000} – @high{0.0000}")]))


def _curves(p, d: ReportData, items: list) -> None:
    methods = _methods(d)
    for c in d.curves:
        if c.n_features:
            _line(p, c, list(range(len(c.n_features))), c.n_features, color(methods.index(c.method)), items,
                  [("features", "@k"), (d.measure, "@score{0.0000}"),
                   ("paired Δ to size @ref", "@diff{+0.0000} ± @se{0.0000} (1 SE)")])


def quality(d: ReportData):
    p = figure(height=400, sizing_mode="stretch_width", tools=TOOLS, x_axis_label="number of features",
               y_axis_label=f"{d.measure}, mean over queries", name="quality")
    items: list = []
    _curves(p, d, items)
    m = d.marks.get(d.method)
    if m:
        sizes = [k for c in d.curves for k in c.n_features] or [1]
        middle = (min(sizes) + max(sizes)) / 2
        for rule, dash, offset in (("best", "dashed", 18), (d.rule, "solid", 2)):
            right = m[rule] > middle  # a label right of a mark near the right edge would be cut off: write it left
            p.add_layout(Span(location=m[rule], dimension="height", line_color="black", line_dash=dash))
            p.add_layout(Label(x=m[rule], y=offset, x_units="data", y_units="screen",
                               text=f"{rule}: {m[rule]} " if right else f" {rule}: {m[rule]}",
                               text_align="right" if right else "left", text_font_size="11px",
                               background_fill_color="white", background_fill_alpha=0.8, name=f"mark-{rule}"))
    p.add_layout(Legend(items=items, click_policy="hide", label_text_font_size="11px"), "right")
    spread = _spread(d)
    return p if spread is None else column(p, spread, sizing_mode="stretch_width")


def _spread(d: ReportData):
    """The secondary view: each fold's mean validation score per size."""
    methods = _methods(d)
    curves = [c for c in d.curves if c.split == "validation" and c.folds]
    if not curves:
        return None
    p = figure(height=260, sizing_mode="stretch_width", tools=TOOLS, name="fold_spread",
               x_axis_label="number of features", y_axis_label=f"validation {d.measure}, per fold",
               title="Fold-to-fold spread (secondary view): each fold's validation mean. The folds differ far more "
                     "than the sizes do; the bands above pair the queries instead.")
    items = []
    for c in curves:
        col = color(methods.index(c.method))
        rs = []
        for fold, ys in c.folds.items():
            src = ColumnDataSource({"k": c.n_features, "score": ys, "fold": [fold] * len(ys),
                                    "method": [c.method] * len(ys)})
            r = p.line("k", "score", source=src, color=col, line_width=1, alpha=0.7)
            rs.append(r)
            p.add_tools(HoverTool(renderers=[r], tooltips=[("method", "@method"), ("fold", "@fold"), ("features", "@k"),
                                                           (d.measure, "@score{0.0000}")]))
        items.append(LegendItem(label=c.method, renderers=rs))
    p.add_layout(Legend(items=items, click_policy="hide", label_text_font_size="11px"), "right")
    return p


def by_groups(curve) -> list[tuple[int, int]]:
    """(G, the size of best validation score among those whose subsets need at most G groups)
    for every G a size reaches (``curve.n_groups``: the most groups any fold's subset needs)."""
    out = []
    for g in sorted({int(round(x)) for x in curve.n_groups}):
        fit = [i for i, x in enumerate(curve.n_groups) if x <= g + 1e-9]
        best = max(fit, key=lambda i: (curve.score[i], -curve.n_features[i]))
        out.append((g, best))
    return out


def groups_quality(d: ReportData):
    if d.groups is None:
        return note("no feature groups were given")
    p = figure(height=340, sizing_mode="stretch_width", tools=TOOLS, name="groups_quality",
               x_axis_label="number of feature groups to extract (at most)",
               y_axis_label=f"{d.measure}, mean over queries")
    methods = _methods(d)
    items: list = []
    vali = {c.method: c for c in d.curves if c.split == "validation" and c.n_groups is not None}
    for c in d.curves:
        if c.n_groups is None or c.method not in vali:
            continue
        picks = by_groups(vali[c.method])  # chosen on validation; the test curve shows the same sizes
        _line(p, c, [i for _, i in picks], [g for g, _ in picks], color(methods.index(c.method)), items,
              [("groups, at most", "@x"), ("features", "@k"), (d.measure, "@score{0.0000}")])
    p.xaxis.ticker = sorted({g for c in vali.values() for g, _ in by_groups(c)})  # whole groups
    p.add_layout(Legend(items=items, click_policy="hide", label_text_font_size="11px"), "right")
    return p


def _front(points: list[dict]) -> list[dict]:
    """The Pareto front on validation: no cheaper subset scores higher."""
    out, best = [], float("-inf")
    for x in sorted(points, key=lambda x: (x["cost"], -x["vali"])):
        if x["vali"] > best:
            out.append(x)
            best = x["vali"]
    return out


def front(d: ReportData):
    costs = d.costs is not None or d.group_costs is not None
    p = figure(height=380, sizing_mode="stretch_width", tools=TOOLS, name="pareto", y_axis_label=d.measure,
               x_axis_label="cost: the features' own costs plus each group paid once" if costs
               else "cost: number of features (no costs given)")
    methods = _methods(d) + [x["method"] for x in d.pareto if x["method"] not in _methods(d)]
    items = []
    for m in dict.fromkeys(x["method"] for x in d.pareto):
        pts = [x for x in d.pareto if x["method"] == m]
        col = "black" if m == "all features" else color(methods.index(m))
        data = {key: [x[key] for x in pts] for key in ("method", "k", "cost", "vali")}
        data["test"] = [float("nan") if x["test"] is None else x["test"] for x in pts]
        data["groups"] = ["" if x["n_groups"] is None else f"{x['n_groups']:g}" for x in pts]
        src = ColumnDataSource(data)
        v = p.scatter("cost", "vali", source=src, color=col, size=8, alpha=0.85)
        items.append(LegendItem(label=f"{m}: validation", renderers=[v]))
        renderers = [v]
        if any(x["test"] is not None for x in pts):  # no test data (a fit's report without test=): no test entry
            t = p.scatter("cost", "test", source=src, color=col, size=7, fill_color=None, marker="square")
            items.append(LegendItem(label=f"{m}: test", renderers=[t]))
            renderers.append(t)
        p.add_tools(HoverTool(renderers=renderers, tooltips=[
            ("method", "@method"), ("features", "@k"), ("groups", "@groups"), ("cost", "@cost{0.[00]}"),
            (f"validation {d.measure}", "@vali{0.0000}"), (f"test {d.measure}", "@test{0.0000}")]))
    fr = _front(d.pareto)
    line = p.step([x["cost"] for x in fr], [x["vali"] for x in fr], mode="after", color="black", line_width=1.5)
    items.append(LegendItem(label="front on validation", renderers=[line]))
    k = d.marks.get(d.method, {}).get(d.rule)
    hit = [x for x in d.pareto if x["method"] == d.method and x["k"] == k]
    if hit:
        star = p.scatter([hit[0]["cost"]], [hit[0]["vali"]], marker="star", size=20, color="gold", line_color="black")
        items.append(LegendItem(label=f"chosen: {d.method}, {k}", renderers=[star]))
    p.add_layout(Legend(items=items, click_policy="hide", label_text_font_size="11px"), "right")
    return p
