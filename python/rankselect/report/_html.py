"""The page: the panels of the registry (``_panels``) embedded with BokehJS inlined into the
Jinja2 template ``templates/report.html.j2``, and the decision as a JSON element.

Every user string reaches the page escaped: the template autoescapes, the panels' HTML
escapes its text, plot labels and tooltips are text, and the decision's JSON has ``<``, ``>``
and ``&`` written as ``\\u003c`` ... so that nothing in it can close its ``<script>`` element.

BokehJS is inlined without its WebGL and MathJax bundles, which no panel uses: about 1.9 MB
instead of 3.9 MB for ``bokeh.resources.INLINE``."""
from __future__ import annotations

import json
from pathlib import Path

from bokeh.embed import components
from bokeh.resources import Resources
from jinja2 import Environment, select_autoescape

from ._data import ReportData, versions
from ._folds import fold_sentence
from ._panels import shown_panels

__all__ = ["render", "RESOURCES", "decision_json"]

#: BokehJS, inlined: the core, the widgets (the k slider) and the tables (the subset table)
RESOURCES = Resources(mode="inline", components=["bokeh", "bokeh-widgets", "bokeh-tables"])


def decision_json(d: ReportData) -> str:
    """The decision as JSON, safe inside a ``<script>`` element."""
    text = json.dumps(d.decision(), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render(d: ReportData) -> str:
    """The report as one self-contained HTML document (no network needed to open it)."""
    panels = shown_panels(d)
    script, divs = components({p.key: p.draw(d) for p in panels})
    env = Environment(autoescape=select_autoescape(default=True, default_for_string=True))
    template = env.from_string((Path(__file__).parent / "templates" / "report.html.j2").read_text("utf-8"))
    decision = d.decision()
    return template.render(
        d=d, panels=[(p.key, p.title, p.guide, divs[p.key]) for p in panels], decision=decision,
        folds_sentence=fold_sentence(d.folds, d.measure),
        decision_json=decision_json(d), chosen=[d.label(j) for j in decision["features"]],
        bokeh_resources=RESOURCES.render(), bokeh_script=script, versions=versions())
