"""One self-contained, interactive HTML page for a selection run: :func:`write_report`.

The page holds seven panels (quality against the number of features with the best and
one-standard-error sizes, cost against quality, per-query wins and losses, redundancy,
stability, importance, the chosen subset with a k slider and hand-off snippets) and the
settings and versions. It is drawn with Bokeh, whose JavaScript is inlined
(``bokeh.resources.INLINE``), so the file opens offline; it needs the ``report`` extra
(``pip install "rankselect[report]"``: Bokeh and Jinja2).

Examples
--------
>>> import tempfile, rankselect as rs
>>> from rankselect.report import write_report
>>> train, vali, test = (rs.data.datasets.load_example(s) for s in ("train", "vali", "test"))
>>> sel = rs.GreedyRankRLS(n_features_to_select=6).fit(*train)
>>> path = write_report(sel, tempfile.mkdtemp() + "/report.html", train=train, vali=vali, test=test)
>>> path.name, path.stat().st_size < 5_000_000
('report.html', True)
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Union

from ._data import PANELS, ReportData
from ._experiment import load_experiment

__all__ = ["build_report", "write_report", "load_experiment", "ReportData", "PANELS", "MISSING_EXTRA"]

#: the one-line message when Bokeh or Jinja2 is missing
MISSING_EXTRA = 'the report needs Bokeh and Jinja2: pip install "rankselect[report]"'


def _require_extra() -> None:
    try:
        import bokeh  # noqa: F401
        import jinja2  # noqa: F401
    except ImportError as exc:
        raise ModuleNotFoundError(MISSING_EXTRA, name=exc.name) from None


def build_report(source: Any, **kwargs: Any):
    """Collect what the report shows (a :class:`~rankselect.report.ReportData`).

    Parameters
    ----------
    source : path or fitted selector
        An experiment's output folder (``rankselect experiment ... --out DIR``; keywords of
        ``from_experiment``: ``method=``, ``data_dir=``, ``feature_names=``, ``title=``,
        ``random_state=``), or a fitted rankselect selector
        (keywords of ``from_selector``: ``train=``, ``vali=``
        and optionally ``test=``, ``ranker=``, ``scoring=``, ``feature_names=``,
        ``feature_costs=``, ``feature_groups=``, ``n_resamples=``); a ranker-in-the-loop
        selector's ``path_`` gives the validation curve.

    Returns
    -------
    ReportData

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.report import build_report
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> sel = rs.RecursiveElimination(rs.RankRLS(), n_features_to_select=3, step=0.5,
    ...                               validation=tuple(vali), random_state=0).fit(*train)
    >>> data = build_report(sel, train=train, vali=vali, n_resamples=0)
    >>> data.curves[0].n_features, data.marks["RecursiveElimination"]
    ([3, 6, 11, 22], {'best': 6, 'one-standard-error': 6})
    """
    _require_extra()
    if isinstance(source, (str, os.PathLike)):
        from ._experiment import from_experiment

        return from_experiment(source, **kwargs)
    from ._fitted import from_selector

    return from_selector(source, **kwargs)


def write_report(source: Any, path: Union[str, os.PathLike], **kwargs: Any) -> Path:
    """Write the report of ``source`` (see :func:`build_report`) to ``path`` as one HTML file.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile
    >>> import rankselect as rs
    >>> from rankselect.report import write_report
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> sel = rs.GAS(4, 0.1).fit(*train)
    >>> page = write_report(sel, tempfile.mkdtemp() + "/gas.html", train=train, vali=vali, n_resamples=0)
    >>> page.read_text().count('class="panel"')
    8
    """
    data = build_report(source, **kwargs)
    from ._html import render

    out = Path(path)
    out.write_text(render(data), encoding="utf-8")
    return out
