"""The panels about queries and features: the chosen subset against all features per query,
redundancy, stability (features and groups) and importance (features and groups). Every
user string in HTML is escaped; plot labels and tooltips are text."""
from __future__ import annotations

from html import escape

import numpy as np
from bokeh.layouts import column
from bokeh.models import (
    BasicTicker,
    ColorBar,
    ColumnDataSource,
    Div,
    FactorRange,
    HoverTool,
    LabelSet,
    LinearColorMapper,
    Range1d,
    Whisker,
)
from bokeh.palettes import Blues256
from bokeh.plotting import figure

from ._data import Importance, PerQuery, ReportData, plural
from ._fig_curves import TOOLS, note

__all__ = ["per_query", "redundancy", "stability", "group_stability", "importance", "group_importance"]

#: light (0) to dark (1)
_PALETTE = list(reversed(Blues256))
#: the worst losses listed by query id
MAX_LISTED = 12


def _fmt_p(p: float) -> str:
    return "n/a" if not np.isfinite(p) else f"{p:.3g}"


def _counts_sentence(q: PerQuery) -> str:
    w, losses, t = q.counts()
    return (f"{plural(w, 'win')}, {plural(losses, 'loss', 'losses')}, {plural(t, 'tie')}; mean Δ "
            f"{np.mean(q.delta):+.4f} (paired randomization test, p = {_fmt_p(q.pvalue)})")


def per_query(d: ReportData):
    q = d.per_query
    if q is None:
        return note(d.notes.get("per-query", "no per-query scores"))
    order = sorted(range(len(q.qids)), key=lambda i: q.delta[i])
    delta = [q.delta[i] for i in order]
    src = ColumnDataSource({"x": list(range(len(order))), "qid": [q.qids[i] for i in order], "delta": delta,
                            "chosen": [q.chosen[i] for i in order], "reference": [q.reference[i] for i in order],
                            "color": ["#2a7f2a" if v > 0 else "#c0392b" if v < 0 else "#999999" for v in delta]})
    p = figure(height=300, sizing_mode="stretch_width", tools=TOOLS, name="per-query",
               x_axis_label=f"{q.split} queries, from the worst loss to the best win",
               y_axis_label=f"Δ {q.measure} (chosen − all features)")
    r = p.vbar("x", top="delta", width=0.9, source=src, color="color")
    p.add_tools(HoverTool(renderers=[r], tooltips=[("query", "@qid"), ("chosen subset", "@chosen{0.0000}"),
                                                   ("all features", "@reference{0.0000}"), ("Δ", "@delta{+0.0000}")]))
    worst = [i for i in order if q.delta[i] < 0][:MAX_LISTED]
    lost = ", ".join(f"{escape(q.qids[i])} ({q.delta[i]:+.4f})" for i in worst) or "none"
    rows = "".join(f"<tr><td>{escape(o.chosen_label)}</td><td>{escape(_counts_sentence(o))}</td></tr>"
                   for o in d.others)
    others = (f"<p>The other methods at their own {escape('one-standard-error')} sizes against the same reference "
              f"(secondary):</p><table class='others'>{rows}</table>") if rows else ""
    head = Div(text=f"<p><b>{escape(q.chosen_label)}</b> against <b>{escape(q.reference_label)}</b>, "
                    f"{escape(q.split)} queries: {escape(_counts_sentence(q))}.</p>", name="per_query_counts")
    text = (f"<p>Queries the chosen subset loses most (query id, Δ): {lost}.</p>{others}")
    return column(head, p, Div(text=text, name="per_query_text"), sizing_mode="stretch_width")


def _heat(name: str, rows: list[str], cols: list[str], values: list[list[float]], title: str, hover: list,
          extra: dict, numbers: bool):
    """A heat map, rows x columns, with a colour bar (0 light, 1 dark) and the values on hover."""
    data: dict[str, list] = {"row": [r for r in rows for _ in cols], "col": [c for _ in rows for c in cols],
                             "v": [values[i][j] for i in range(len(rows)) for j in range(len(cols))]}
    data.update({key: [vals[i][j] for i in range(len(rows)) for j in range(len(cols))] for key, vals in extra.items()})
    data["text"] = [f"{v:.2f}".rstrip("0").rstrip(".") if v > 0 else "" for v in data["v"]]
    data["ink"] = ["white" if v > 0.6 else "black" for v in data["v"]]
    src = ColumnDataSource(data)
    label_px = 7 * max(len(r) for r in rows)  # the row labels, left of the cells
    width = min(1000, label_px + 90 * len(cols) + 120) if numbers else None
    p = figure(height=80 + 18 * len(rows) + (60 if not numbers else 0), width=width,
               sizing_mode="fixed" if numbers else "stretch_width", x_range=FactorRange(*cols),
               y_range=FactorRange(*reversed(rows)), tools=TOOLS, name=name, title=title, x_axis_location="above")
    mapper = LinearColorMapper(palette=_PALETTE, low=0.0, high=1.0)
    r = p.rect("col", "row", 1, 1, source=src, fill_color={"field": "v", "transform": mapper}, line_color="white")
    if numbers:
        p.add_layout(LabelSet(x="col", y="row", text="text", source=src, text_align="center", text_baseline="middle",
                              text_font_size="10px", text_color="ink"))
    p.add_tools(HoverTool(renderers=[r], tooltips=hover))
    p.add_layout(ColorBar(color_mapper=mapper, ticker=BasicTicker(desired_num_ticks=5), width=10,
                          title=None), "right")
    p.xaxis.major_label_orientation = 0.9 if not numbers else 0.0
    p.grid.visible = False
    return p


def redundancy(d: ReportData):
    red = d.redundancy
    if red is None:
        return note(d.notes.get("redundancy", "no data for the redundancy panel"))
    ylab = [d.label(j) for j in red.shown]
    xlab = [f"#{j + 1}" for j in red.shown]
    const = set(red.constant)
    names = [[f"{d.label(a)} × {d.label(b)}" for b in red.shown] for a in red.shown]
    flag = [["constant within every query" if a in const or b in const else "" for b in red.shown] for a in red.shown]
    part = "" if len(red.shown) == red.n_features else (
        f" - the {len(red.shown)} features that matter of {red.n_features}: the chosen ones and their closest partners")
    p = _heat("redundancy", ylab, xlab, red.matrix, f"|{red.similarity}| similarity on the training data{part}",
              [("features", "@pair"), ("similarity", "@v{0.000}"), ("", "@flag")], {"pair": names, "flag": flag},
              numbers=False)
    clusters = "".join(
        f"<li>{escape(', '.join(d.label(j) for j in c))} → keep <b>{escape(d.label(rep))}</b></li>"
        for c, rep in zip(red.clusters, red.representatives))
    pairs = "".join(f"<li>{escape(d.label(a))} and {escape(d.label(b))}: {s:.3f}</li>"
                    for a, b, s in red.pairs[:10] if s >= 0.5)
    constant = ", ".join(escape(d.label(j)) for j in red.constant) or "none"
    text = (f"<p>Clusters (every pair ≥ {red.threshold}) and the feature to keep of each:</p>"
            f"<ul>{clusters or '<li>none</li>'}</ul>"
            f"<p>Most similar pairs (at least 0.5):</p><ul>{pairs or '<li>none</li>'}</ul>"
            f"<p>Constant within every query (they cannot rank; similarity 0, light rows): {constant}.</p>")
    return column(p, Div(text=text, name="clusters"), sizing_mode="stretch_width")


def _frequency_heat(name: str, d: ReportData, freqs: dict[str, list[float]], labels: list[str], over: str):
    methods = list(freqs)
    used = [j for j in range(len(labels)) if any(freqs[m][j] > 0 for m in methods)]
    rows = [labels[j] for j in used]
    values = [[freqs[m][j] for m in methods] for j in used]
    heat = _heat(name, rows or ["none"], methods, values or [[0.0] * len(methods)], "selection frequency",
                 [("method", "@col"), ("", "@row"), ("frequency", "@v{0.00}")], {}, numbers=True)
    shown = "rows: those selected at least once" if rows else "none was selected"
    return column(Div(text=f"<p>Selection frequency over {escape(over)} ({shown}).</p>", name=f"{name}_text"), heat)


def stability(d: ReportData):
    if not d.stability:
        return note(d.notes.get("stability", "no stability data"))
    labels = [d.label(j) for j in range(len(d.feature_names))]
    return _frequency_heat("stability", d, d.stability, labels, d.stability_over)


def group_stability(d: ReportData):
    if d.groups is None:
        return note("no feature groups were given")
    if not d.group_stability:
        return note(d.notes.get("stability", "no stability data"))
    return _frequency_heat("group_stability", d, d.group_stability, list(d.groups.names),
                           d.stability_over + " - a group counts when any of its features is selected")


def _bars(name: str, imp: Importance):
    order = sorted(range(len(imp.labels)), key=lambda i: imp.mean[i])
    labels = [imp.labels[i] for i in order]
    src = ColumnDataSource({"f": labels, "mean": [imp.mean[i] for i in order], "low": [imp.low[i] for i in order],
                            "high": [imp.high[i] for i in order]})
    p = figure(height=90 + 24 * len(labels), sizing_mode="stretch_width", y_range=FactorRange(*labels), tools=TOOLS,
               name=name, x_axis_label=f"drop of {imp.measure} on {imp.split} when the {imp.unit} is shuffled")
    finite = [v for v in imp.low + imp.high + imp.mean if np.isfinite(v)] or [0.0]
    pad = 0.05 * (max(finite) - min(min(finite), 0.0) or 1.0)
    p.x_range = Range1d(min(min(finite), 0.0) - pad, max(max(finite), 0.0) + pad)  # the whiskers inside
    r = p.hbar(y="f", right="mean", height=0.7, source=src, color="#4477aa")
    p.add_layout(Whisker(source=src, base="f", lower="low", upper="high", dimension="width"))
    p.add_tools(HoverTool(renderers=[r], tooltips=[(imp.unit, "@f"), ("mean drop", "@mean{0.0000}"),
                                                   ("95 % interval", "@low{0.0000} – @high{0.0000}")]))
    return p


def importance(d: ReportData):
    if d.importance is None:
        return note(d.notes.get("importance", "no importance computed"))
    return _bars("importance", d.importance)


def group_importance(d: ReportData):
    if d.groups is None:
        return note("no feature groups were given")
    if d.group_importance is None:
        return note(d.notes.get("importance", "no importance computed"))
    return _bars("group_importance", d.group_importance)
