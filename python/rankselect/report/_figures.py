"""One Bokeh model per panel of the report (:func:`panels`), drawn from a :class:`~.data.ReportData`.

Every panel has hover tools with the numbers behind it; the quality panel's legend hides a
method when clicked; the subset panel's slider picks ``k`` and a
:class:`~bokeh.models.CustomJS` callback (no server) fills the table and the snippets.
"""
from __future__ import annotations

from typing import Any

from bokeh.layouts import column, row
from bokeh.models import (
    Button,
    ColumnDataSource,
    CustomJS,
    DataTable,
    Div,
    HoverTool,
    InlineStyleSheet,
    Label,
    LinearColorMapper,
    PreText,
    Select,
    Slider,
    Span,
    TableColumn,
    Whisker,
)
from bokeh.palettes import Category10_10, Viridis256
from bokeh.plotting import figure

from ..analysis.export import export_selection
from ..deploy import handoff_files
from ._data import ReportData

__all__ = ["panels"]

_TOOLS = "pan,box_zoom,wheel_zoom,reset,save"


def _color(i: int) -> str:
    return Category10_10[i % 10]


def _note(text: str) -> Div:
    return Div(text=f"<p class='note'>{text}</p>", name="note")


def quality(d: ReportData):
    p = figure(height=380, sizing_mode="stretch_width", tools=_TOOLS, x_axis_label="number of features",
               y_axis_label=d.measure, name="quality")
    methods = list(dict.fromkeys(c.method for c in d.curves))
    for c in d.curves:
        if not c.n_features:
            continue
        color = _color(methods.index(c.method))
        src = ColumnDataSource({"k": c.n_features, "score": c.score, "low": c.low, "high": c.high,
                                "method": [c.method] * len(c.score), "split": [c.split] * len(c.score)})
        label = f"{c.method} ({c.split})"
        dash = "solid" if c.split == "validation" else "dashed"
        p.varea("k", "low", "high", source=src, fill_color=color, fill_alpha=0.12, legend_label=label)
        p.line("k", "score", source=src, color=color, line_dash=dash, line_width=2, legend_label=label)
        r = p.scatter("k", "score", source=src, color=color, size=5, legend_label=label,
                      marker="circle" if c.split == "validation" else "square")
        p.add_tools(HoverTool(renderers=[r], tooltips=[("method", "@method"), ("split", "@split"), ("k", "@k"),
                                                       (d.measure, "@score{0.0000}"),
                                                       (f"95 % interval over {c.interval_over}",
                                                        "@low{0.0000} – @high{0.0000}")]))
    m = d.marks.get(d.method)
    if m:
        for rule, dash in (("best", "dashed"), ("one-standard-error", "solid")):
            p.add_layout(Span(location=m[rule], dimension="height", line_color="black", line_dash=dash))
            p.add_layout(Label(x=m[rule], y=5, y_units="screen", text=f" {rule}: k = {m[rule]}",
                               text_font_size="11px", y_offset=14 if rule == "best" else 0))
    p.legend.click_policy = "hide"
    p.legend.location = "bottom_right"
    return p


def pareto(d: ReportData):
    p = figure(height=340, sizing_mode="stretch_width", tools=_TOOLS, name="pareto", y_axis_label=d.measure,
               x_axis_label="total feature cost" if d.costs else "number of features (unit cost)")
    methods = list(dict.fromkeys(x["method"] for x in d.pareto))
    src = ColumnDataSource({key: [x[key] for x in d.pareto] for key in ("method", "k", "cost", "score", "split")}
                           | {"color": [_color(methods.index(x["method"])) for x in d.pareto]})
    r = p.scatter("cost", "score", source=src, color="color", size=8, alpha=0.8)
    front, best = [], float("-inf")
    for x in sorted(d.pareto, key=lambda x: (x["cost"], -x["score"])):
        if x["score"] > best:
            front.append(x)
            best = x["score"]
    p.step([x["cost"] for x in front], [x["score"] for x in front], mode="after", color="black", line_width=1.5)
    p.add_tools(HoverTool(renderers=[r], tooltips=[("method", "@method"), ("features", "@k"), ("cost", "@cost"),
                                                   (f"{d.measure} ({d.pareto[0]['split'] if d.pareto else ''})",
                                                    "@score{0.0000}")]))
    return p


def per_query(d: ReportData):
    q = d.per_query
    if q is None:
        return _note(d.notes.get("per-query", "no per-query scores"))
    order = sorted(range(len(q.qids)), key=lambda i: q.delta[i])
    delta = [q.delta[i] for i in order]
    src = ColumnDataSource({"x": list(range(len(order))), "qid": [q.qids[i] for i in order], "delta": delta,
                            "chosen": [q.chosen[i] for i in order], "reference": [q.reference[i] for i in order],
                            "color": ["#2a7f2a" if v > 0 else "#c0392b" if v < 0 else "#999999" for v in delta]})
    wins, losses = sum(v > 0 for v in delta), sum(v < 0 for v in delta)
    p = figure(height=300, sizing_mode="stretch_width", tools=_TOOLS, name="per-query",
               title=f"{q.chosen_label} against {q.reference_label}: {wins} wins, {losses} losses, "
                     f"{len(delta) - wins - losses} ties ({q.measure})",
               x_axis_label="queries, from the worst loss to the best win", y_axis_label=f"Δ {q.measure}")
    r = p.vbar("x", top="delta", width=0.9, source=src, color="color")
    p.add_tools(HoverTool(renderers=[r], tooltips=[("query", "@qid"), ("chosen", "@chosen{0.0000}"),
                                                   ("reference", "@reference{0.0000}"), ("Δ", "@delta{+0.0000}")]))
    return p


def redundancy(d: ReportData):
    red = d.redundancy
    if red is None:
        return _note(d.notes.get("redundancy", "no data for the redundancy panel"))
    labels = [d.feature_names[j] for j in red.order]
    n = len(labels)
    src = ColumnDataSource({"a": [labels[i] for i in range(n) for _ in range(n)],
                            "b": [labels[j] for _ in range(n) for j in range(n)],
                            "s": [red.matrix[i][j] for i in range(n) for j in range(n)]})
    side = min(640, 120 + 14 * n)
    p = figure(height=side, width=side, x_range=labels, y_range=list(reversed(labels)), tools=_TOOLS,
               name="redundancy", title=f"|{red.similarity}| similarity (clusters cut at {red.threshold})")
    mapper = LinearColorMapper(palette=list(reversed(Viridis256)), low=0.0, high=1.0)
    r = p.rect("a", "b", 1, 1, source=src, fill_color={"field": "s", "transform": mapper}, line_color=None)
    p.xaxis.major_label_orientation = 1.2
    p.add_tools(HoverTool(renderers=[r], tooltips=[("features", "@a × @b"), ("similarity", "@s{0.000}")]))
    text = "".join(f"<li>{', '.join(c)} → keep <b>{rep}</b></li>" for c, rep in zip(red.clusters, red.representatives))
    return column(p, Div(text=f"<p>Clusters (similarity ≥ {red.threshold}) and their representatives:</p>"
                         f"<ul>{text or '<li>none</li>'}</ul>", name="clusters"), sizing_mode="stretch_width")


def stability(d: ReportData):
    if not d.stability:
        return _note(d.notes.get("stability", "no stability data"))
    methods = list(d.stability)
    used = [j for j in range(len(d.feature_names)) if any(d.stability[m][j] > 0 for m in methods)]
    labels = [d.feature_names[j] for j in used]
    src = ColumnDataSource({"m": [m for m in methods for _ in used], "f": [x for _ in methods for x in labels],
                            "v": [d.stability[m][j] for m in methods for j in used]})
    p = figure(height=90 + 40 * len(methods), sizing_mode="stretch_width", x_range=labels or ["-"],
               y_range=list(reversed(methods)), tools=_TOOLS, name="stability",
               title=f"selection frequency over {d.stability_over} (features selected at least once)")
    mapper = LinearColorMapper(palette=list(reversed(Viridis256)), low=0.0, high=1.0)
    r = p.rect("f", "m", 1, 1, source=src, fill_color={"field": "v", "transform": mapper}, line_color="white")
    p.xaxis.major_label_orientation = 1.2
    p.add_tools(HoverTool(renderers=[r], tooltips=[("method", "@m"), ("feature", "@f"), ("frequency", "@v{0.00}")]))
    return p


def importance(d: ReportData):
    imp = d.importance
    if imp is None:
        return _note(d.notes.get("importance", "no importance computed"))
    order = sorted(range(len(imp.features)), key=lambda i: imp.mean[i])
    labels = [d.feature_names[imp.features[i]] for i in order]
    src = ColumnDataSource({"f": labels, "mean": [imp.mean[i] for i in order], "low": [imp.low[i] for i in order],
                            "high": [imp.high[i] for i in order]})
    p = figure(height=80 + 22 * len(labels), sizing_mode="stretch_width", y_range=labels, tools=_TOOLS,
               name="importance", x_axis_label=f"drop of {imp.measure} on {imp.split}")
    r = p.hbar(y="f", right="mean", height=0.7, source=src, color="#4477aa")
    p.add_layout(Whisker(source=src, base="f", lower="low", upper="high", dimension="width"))
    p.add_tools(HoverTool(renderers=[r], tooltips=[("feature", "@f"), ("mean drop", "@mean{0.0000}"),
                                                   ("95 % interval", "@low{0.0000} – @high{0.0000}")]))
    return p


def _rows(d: ReportData, k: int) -> dict[str, list[Any]]:
    cols = d.subsets[k]
    return {"index": [j + 1 for j in cols], "column": cols, "name": [d.feature_names[j] for j in cols],
            "cost": [d.costs[j] if d.costs else 1.0 for j in cols],
            "family": [d.families[j] if d.families else "" for j in cols]}


#: engine -> the hand-off box's file of its feature set (skeletons: no templates, no model)
ENGINE_FILES = {"opensearch": "featureset.json", "solr": "features.json", "elasticsearch": "model.json",
                "vespa": "rankselect.profile", "ranklib": "features.txt"}


def _engine_snippets(d: ReportData, k: int, names) -> dict[str, str]:
    files = handoff_files(d.subsets[k], len(d.feature_names), names, engines=tuple(ENGINE_FILES))
    return {e: files[e][f] for e, f in ENGINE_FILES.items()}


def subset(d: ReportData):
    n = len(d.feature_names)
    ks = sorted(d.subsets)
    names = None if all(s == str(j + 1) for j, s in enumerate(d.feature_names)) else d.feature_names
    tables = {str(k): _rows(d, k) for k in ks}
    snippets: dict[str, dict[str, Any]] = {
        str(k): {"json": export_selection(d.subsets[k], "json", n_features=n, feature_names=names),
                 "lightgbm": export_selection(d.subsets[k], "lightgbm", n_features=n, feature_names=names),
                 "engines": _engine_snippets(d, k, names)}
        for k in ks}
    src = ColumnDataSource(tables[str(d.default_k)])
    columns = [TableColumn(field="index", title="feature (1-based, as in the file)"),
               TableColumn(field="column", title="column (0-based)"), TableColumn(field="name", title="name"),
               TableColumn(field="cost", title="cost")]
    if d.families:
        columns.append(TableColumn(field="family", title="family"))
    table = DataTable(source=src, columns=columns, index_position=None, reorderable=False, sizing_mode="stretch_width",
                      height=min(600, 30 + 26 * max(len(v) for v in d.subsets.values())), name="subset_table")
    m = d.marks.get(d.method, {})
    slider = Slider(start=ks[0], end=max(ks[-1], ks[0] + 1), value=d.default_k, step=1, name="k_slider",
                    title=f"k ({d.method}; one-standard-error k = {m.get('one-standard-error', '?')}, "
                          f"best k = {m.get('best', '?')})")
    # the snippets wrap inside their box (a long column list on one line widened the page);
    # the copy buttons copy the text as it is
    wrap = InlineStyleSheet(css="pre { white-space: pre-wrap; overflow-wrap: anywhere; }")
    js_pre, lgb_pre = (PreText(text=snippets[str(d.default_k)][f], name=f"snippet_{f}", width=420,
                               stylesheets=[wrap]) for f in ("json", "lightgbm"))
    engine = Select(title="search engine (feature set skeleton: rankselect export --engine)", value="opensearch",
                    options=list(ENGINE_FILES), name="engine_select", width=420)
    engine_pre = PreText(text=snippets[str(d.default_k)]["engines"]["opensearch"], name="snippet_engine", width=420,
                         stylesheets=[wrap])
    heading = Div(text=f"<b>{len(d.subsets[d.default_k])} features</b>", name="subset_heading")
    show_engine = CustomJS(args=dict(slider=slider, snippets=snippets, pre=engine_pre, engine=engine, ks=ks), code="""
        let k = Math.round(slider.value);
        if (!(String(k) in snippets)) { k = ks.reduce((a, b) => (b <= k ? b : a), ks[0]); }
        pre.text = snippets[String(k)].engines[engine.value];
    """)
    engine.js_on_change("value", show_engine)
    slider.js_on_change("value", show_engine)
    slider.js_on_change("value", CustomJS(args=dict(src=src, tables=tables, snippets=snippets, js=js_pre,
                                                    lgb=lgb_pre, heading=heading, ks=ks), code="""
        let k = Math.round(cb_obj.value);
        if (!(String(k) in tables)) { k = ks.reduce((a, b) => (b <= k ? b : a), ks[0]); }
        src.data = tables[String(k)];
        js.text = snippets[String(k)].json;
        lgb.text = snippets[String(k)].lightgbm;
        heading.text = "<b>" + tables[String(k)].index.length + " features</b>";
    """))
    buttons = [Button(label=f"copy {label}", width=160, name=f"copy_{f}") for f, label in
               (("json", "the JSON"), ("lightgbm", "the LightGBM columns"), ("engine", "the feature set"))]
    for b, pre in zip(buttons, (js_pre, lgb_pre, engine_pre)):
        b.js_on_event("button_click", CustomJS(args=dict(pre=pre), code="navigator.clipboard.writeText(pre.text);"))
    return column(slider, heading, table,
                  row(column(buttons[0], js_pre), column(buttons[1], lgb_pre)), column(engine, buttons[2], engine_pre),
                  sizing_mode="stretch_width")


def panels(d: ReportData) -> dict[str, Any]:
    """Panel id (the keys of :data:`PANELS`) -> Bokeh model."""
    return {"quality": quality(d), "pareto": pareto(d), "per-query": per_query(d), "redundancy": redundancy(d),
            "stability": stability(d), "importance": importance(d), "subset": subset(d)}
