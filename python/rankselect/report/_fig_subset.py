"""The hand-off panel: a k slider, the subset's table (features, names, costs, groups) and
one copy box per hand-off format (:data:`~rankselect.report._handoff.HANDOFF_FORMATS`), or per
menu of formats (the search engines' feature sets); :class:`~bokeh.models.CustomJS` callbacks
(no server) follow the slider and the menus.

The texts of every k are sent as lines: one table of the distinct lines, and per k and format
the indices of its lines (:func:`encode`; the page joins them with newlines). An engine's
feature set repeats a few lines per feature, so the page holds each line once (on five-fold
MQ2008, 40 sizes of four engines' files: about 0.9 MB of text, 0.1 MB as lines)."""
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
    Select,
    Slider,
    TableColumn,
)

from ._data import ReportData, plural
from ._handoff import HANDOFF_FORMATS, MENUS, HandOff, Selection

__all__ = ["subset", "render", "encode", "decode", "MAX_SIZES", "ROW_HEIGHT", "BOX_HEIGHT"]

#: the slider offers at most this many sizes (the smallest ones, and the chosen and best sizes)
MAX_SIZES = 100
#: pixels per table row (the table's height follows k)
ROW_HEIGHT = 26
#: a copy box scrolls beyond this height (an engine's feature set of 40 features: 500 lines)
BOX_HEIGHT = 420

#: JavaScript: the text of a format at a k, from the table of lines (:func:`decode`)
_DECODE = "const text = (k, key) => snippets[String(k)][key].map(i => lines[i]).join('\\n');"


def encode(texts: dict[str, dict[str, str]]) -> tuple[list[str], dict[str, dict[str, list[int]]]]:
    """``k -> format -> text`` as (the distinct lines, ``k -> format -> line indices``).

    Examples
    --------
    >>> from rankselect.report._fig_subset import decode, encode
    >>> lines, ids = encode({"1": {"a": "x\\ny\\n"}, "2": {"a": "x\\nz\\ny\\n"}})
    >>> lines, ids
    (['x', 'y', '', 'z'], {'1': {'a': [0, 1, 2]}, '2': {'a': [0, 3, 1, 2]}})
    >>> decode(lines, ids["2"]["a"])
    'x\\nz\\ny\\n'
    """
    table: dict[str, int] = {}
    ids = {k: {key: [table.setdefault(line, len(table)) for line in text.split("\n")] for key, text in by.items()}
           for k, by in texts.items()}
    return list(table), ids


def decode(lines: list[str], ids: list[int]) -> str:
    """The text of line indices (what the page's callback does)."""
    return "\n".join(lines[i] for i in ids)


def render(h: HandOff, s: Selection) -> str:
    """The text of format ``h`` for ``s``, or why the format cannot take the subset (names that
    collide once LightGBM or Vespa has replaced their characters): the page still builds."""
    try:
        return h.render(s)
    except ValueError as exc:
        return f"cannot write the {h.key} hand-off of this subset: {exc}\n"


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
    snippets = {str(k): {h.key: render(h, Selection(d.subsets[k], n, names, d.groups_of(d.subsets[k])
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
                    title=f"k ({d.method}; {d.rule} k = {m.get(d.rule, '?')}, best k = {m.get('best', '?')})")
    # the snippets wrap inside their box (a long column list on one line widened the page) and scroll
    wrap = InlineStyleSheet(css=f"pre {{ white-space: pre-wrap; overflow-wrap: anywhere; max-height: {BOX_HEIGHT}px; "
                                "overflow-y: auto; border: 1px solid #e3e3e3; padding: 4px 6px; } "
                                ".bk-clearfix { width: 100%; }")
    lines, ids = encode(snippets)
    first = snippets[str(d.default_k)]
    menus = {key: [h for h in HANDOFF_FORMATS if h.menu == key] for key in MENUS}
    menus = {key: hs for key, hs in menus.items() if hs}
    selects = {key: Select(title=MENUS[key], value=hs[0].key, options=[(h.key, h.label) for h in hs],
                           name=f"menu_{key}", width=860) for key, hs in menus.items()}
    boxes = {h.key: PreText(text=first[h.key], name=f"snippet_{h.key}", width=420, stylesheets=[wrap])
             for h in HANDOFF_FORMATS if not h.menu}
    boxes.update({key: PreText(text=first[hs[0].key], name=f"snippet_{key}", width=860, stylesheets=[wrap])
                  for key, hs in menus.items()})
    heading = Div(text=headings[str(d.default_k)], name="subset_heading")
    slider.js_on_change("value", CustomJS(args=dict(src=src, tables=tables, heading=heading, headings=headings, ks=ks,
                                                    table=table, row_height=ROW_HEIGHT), code="""
        let k = Math.round(cb_obj.value);
        if (!(String(k) in tables)) { k = ks.reduce((a, b) => (b <= k ? b : a), ks[0]); }
        src.data = tables[String(k)];
        heading.text = headings[String(k)];
        table.height = Math.min(30 + row_height * tables[String(k)].index.length, 520);
    """))
    # the boxes follow the slider and their menu: box -> the chosen format's text at k
    show = CustomJS(args=dict(slider=slider, lines=lines, snippets=ids, boxes=boxes, selects=selects, ks=ks),
                    code=_DECODE + """
        let k = Math.round(slider.value);
        if (!(String(k) in snippets)) { k = ks.reduce((a, b) => (b <= k ? b : a), ks[0]); }
        for (const box in boxes) { boxes[box].text = text(k, box in selects ? selects[box].value : box); }
    """)
    slider.js_on_change("value", show)
    for sel in selects.values():
        sel.js_on_change("value", show)
    cells, wide = [], []
    for h in HANDOFF_FORMATS:
        if h.menu:
            continue
        b = Button(label=h.label, width=200, name=f"copy_{h.key}")
        b.js_on_event("button_click", CustomJS(args=dict(pre=boxes[h.key]),
                                               code="navigator.clipboard.writeText(pre.text);"))
        cells.append(column(b, boxes[h.key]))
    for key in menus:
        b = Button(label="copy the chosen file", width=200, name=f"copy_{key}")
        b.js_on_event("button_click", CustomJS(args=dict(pre=boxes[key]),
                                               code="navigator.clipboard.writeText(pre.text);"))
        wide.append(column(selects[key], b, boxes[key]))
    pairs = [row(*cells[i:i + 2]) for i in range(0, len(cells), 2)]  # two boxes a row: the page keeps its width
    return column(slider, heading, table, *pairs, *wide, sizing_mode="stretch_width")
