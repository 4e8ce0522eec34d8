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

__all__ = ["build_report", "write_report", "MISSING_EXTRA"]

#: the one-line message when Bokeh or Jinja2 is missing
MISSING_EXTRA = 'the report needs Bokeh and Jinja2: pip install "rankselect[report]"'


def _require_extra() -> None:
    try:
        import bokeh  # noqa: F401
        import jinja2  # noqa: F401
    except ImportError as exc:
        raise ModuleNotFoundError(MISSING_EXTRA, name=exc.name) from None


def build_report(source: Any, **kwargs: Any):
    """Collect what the report shows (a :class:`~rankselect.report.data.ReportData`).

    Parameters
    ----------
    source : path or fitted selector
        An experiment's output folder (``rankselect experiment ... --out DIR``; keywords of
        :func:`~rankselect.report.experiment.from_experiment`), or a fitted rankselect selector
        (keywords of :func:`~rankselect.report.fitted.from_selector`: ``train=``, ``vali=``
        and optionally ``test=``, ``ranker=``, ``scoring=``, ``feature_names=``,
        ``feature_costs=``, ``feature_groups=``, ``n_resamples=``); a ranker-in-the-loop
        selector's ``path_`` gives the validation curve.
    """
    _require_extra()
    if isinstance(source, (str, os.PathLike)):
        from .experiment import from_experiment

        return from_experiment(source, **kwargs)
    from .fitted import from_selector

    return from_selector(source, **kwargs)


def write_report(source: Any, path: Union[str, os.PathLike], **kwargs: Any) -> Path:
    """Write the report of ``source`` (see :func:`build_report`) to ``path`` as one HTML file.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    data = build_report(source, **kwargs)
    from .html import render

    out = Path(path)
    out.write_text(render(data), encoding="utf-8")
    return out
