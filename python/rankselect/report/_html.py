"""The page: the panels of ``_figures`` embedded with BokehJS inlined into the Jinja2
template ``templates/report.html.j2``.

BokehJS is inlined without its WebGL and MathJax bundles, which no panel uses: about 1.9 MB
instead of 3.9 MB for ``bokeh.resources.INLINE``."""
from __future__ import annotations

from pathlib import Path

from bokeh.embed import components
from bokeh.resources import Resources
from jinja2 import Environment, select_autoescape

from ._data import PANELS, ReportData, versions
from ._figures import panels

__all__ = ["render", "RESOURCES"]

#: BokehJS, inlined: the core, the widgets (the k slider) and the tables (the subset table)
RESOURCES = Resources(mode="inline", components=["bokeh", "bokeh-widgets", "bokeh-tables"])


def render(d: ReportData) -> str:
    """The report as one self-contained HTML document (no network needed to open it)."""
    script, divs = components(panels(d))
    env = Environment(autoescape=select_autoescape(default=True, default_for_string=True))
    template = env.from_string((Path(__file__).parent / "templates" / "report.html.j2").read_text("utf-8"))
    m = d.marks.get(d.method, {})
    k1 = m.get("one-standard-error", d.default_k)
    chosen = d.subsets.get(k1) or d.subsets[d.default_k]
    return template.render(
        d=d, panels=[(key, title, guide, divs[key]) for key, (title, guide) in PANELS.items()],
        bokeh_resources=RESOURCES.render(), bokeh_script=script, versions=versions(), marks=m,
        one_se=[(j + 1, d.feature_names[j]) for j in chosen])
