"""The hand-off panel: a k slider, the subset's table (features, names, costs, groups) and
one copy box per hand-off format (:data:`~rankselect.report._handoff.HANDOFF_FORMATS`); a
:class:`~bokeh.models.CustomJS` callback (no server) follows the slider."""
from __future__ import annotations

from html import escape
from typing import Any

from bokeh.layouts import column, row
from bokeh.models import (
    Button,
    ColumnDataSource,
    CustomJS,
    DataTable,
    Div,
    InlineStyleSheet,
    PreText,
    Slider,
    TableColumn,
)

from ..analysis.stats import RULE
from ._data import ReportData, plural
from ._handoff import HANDOFF_FORMATS, Selection

__all__ = ["subset", "MAX_SIZES", "ROW_HEIGHT"]

#: the slider offers at most this many sizes (the smallest ones, and the chosen and best sizes)
MAX_SIZES = 100
#: pixels per table row (the table's height follows k)
ROW_HEIGHT = 26


def _rows(d: ReportData, k: int) -> dict[str, list[Any]]:
    cols = d.subsets[k]
    return {"index": [j + 1 for j in cols], "column": cols, "name": [d.feature_names[j] for j in cols],
            "cost": [d.costs[j] if d.costs else 1.0 for j in cols],
            "group": [d.groups.names[int(d.groups.index[j])] if d.groups is not None else "" for j in cols]}


def _heading(d: ReportData, k: int) -> str:
    cols = d.subsets[k]
    text = f"<b>{plural(len(cols), 'feature')}</b>"
    if d.groups is not None:
        groups = d.groups_of(cols)
        text += f" from <b>{plural(len(groups), 'group')}</b> to extract: {escape(', '.join(groups))}"
    if d.costs is not None or d.group_costs is not None:
        text += f"; cost {d.cost_of(cols):.4g}"
    return text


def _sizes(d: ReportData) -> list[int]:
    ks = sorted(d.subsets)
    m = d.marks.get(d.method, {})
    keep = set(ks[:MAX_SIZES]) | {v for v in m.values() if v in d.subsets} | {d.default_k}
    return [k for k in ks if k in keep]


def subset(d: ReportData):
    n = len(d.feature_names)
    ks = _sizes(d)
    numbered = all(s == str(j + 1) for j, s in enumerate(d.feature_names)) or len(set(d.feature_names)) != n
    names = None if numbered else d.feature_names
    tables = {str(k): _rows(d, k) for k in ks}
    headings = {str(k): _heading(d, k) for k in ks}
    snippets = {str(k): {h.key: h.render(Selection(d.subsets[k], n, names, d.groups_of(d.subsets[k])
                                                   if d.groups is not None else None)) for h in HANDOFF_FORMATS}
                for k in ks}
    src = ColumnDataSource(tables[str(d.default_k)])
    columns = [TableColumn(field="index", title="feature (1-based, as in the file)"),
               TableColumn(field="column", title="column (0-based)"), TableColumn(field="name", title="name"),
               TableColumn(field="cost", title="cost")]
    if d.groups is not None:
        columns.append(TableColumn(field="group", title="group"))
    height = 30 + ROW_HEIGHT * len(d.subsets[d.default_k])
    table = DataTable(source=src, columns=columns, index_position=None, reorderable=False, sizing_mode="stretch_width",
                      height=min(height, 520), name="subset_table")
    m = d.marks.get(d.method, {})
    slider = Slider(start=ks[0], end=max(ks[-1], ks[0] + 1), value=d.default_k, step=1, name="k_slider",
                    title=f"k ({d.method}; {RULE} k = {m.get(RULE, '?')}, best k = {m.get('best', '?')})")
    # the snippets wrap inside their box (a long column list on one line widened the page)
    wrap = InlineStyleSheet(css="pre { white-space: pre-wrap; overflow-wrap: anywhere; }")
    boxes = {h.key: PreText(text=snippets[str(d.default_k)][h.key], name=f"snippet_{h.key}", width=420,
                            stylesheets=[wrap]) for h in HANDOFF_FORMATS}
    heading = Div(text=headings[str(d.default_k)], name="subset_heading")
    slider.js_on_change("value", CustomJS(args=dict(src=src, tables=tables, snippets=snippets, boxes=boxes,
                                                    heading=heading, headings=headings, ks=ks, table=table,
                                                    row_height=ROW_HEIGHT), code="""
        let k = Math.round(cb_obj.value);
        if (!(String(k) in tables)) { k = ks.reduce((a, b) => (b <= k ? b : a), ks[0]); }
        src.data = tables[String(k)];
        for (const key in boxes) { boxes[key].text = snippets[String(k)][key]; }
        heading.text = headings[String(k)];
        table.height = Math.min(30 + row_height * tables[String(k)].index.length, 520);
    """))
    cells = []
    for h in HANDOFF_FORMATS:
        b = Button(label=h.label, width=200, name=f"copy_{h.key}")
        b.js_on_event("button_click", CustomJS(args=dict(pre=boxes[h.key]),
                                               code="navigator.clipboard.writeText(pre.text);"))
        cells.append(column(b, boxes[h.key]))
    pairs = [row(*cells[i:i + 2]) for i in range(0, len(cells), 2)]  # two boxes a row: the page keeps its width
    return column(slider, heading, table, *pairs, sizing_mode="stretch_width")
