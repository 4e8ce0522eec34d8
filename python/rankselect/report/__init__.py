"""One self-contained, interactive HTML page for a selection run: :func:`write_report`.

The page leads with the decision (how many features of which method, by the
one-standard-error rule on paired per-query differences, and how the chosen subset fares
against all features per query), carried also as data in a ``<script type="application/json"
id="rankselect-decision">`` element (:func:`decision`). Its panels (:data:`PANELS`, one entry
each) are: quality against the number of features, the cost-quality front over every size of
every method, the chosen subset against all features per query, redundancy, stability,
importance, the feature-group views when groups are given, and the chosen subset with a k
slider and the hand-off boxes (:data:`HANDOFF_FORMATS`); then the settings and versions. It is
drawn with Bokeh, whose JavaScript is inlined (the file opens offline); it needs the
``report`` extra (``pip install "rankselect[report]"``: Bokeh and Jinja2).

Examples
--------
>>> import tempfile, rankselect as rs
>>> from rankselect.report import write_report
>>> train, vali, test = (rs.data.datasets.load_example(s) for s in ("train", "vali", "test"))
>>> sel = rs.GreedyRankRLS(n_features_to_select=6).fit(*train)
>>> path = write_report(sel, tempfile.mkdtemp() + "/report.html", train=train, vali=vali, test=test,
...                     progress=False)
>>> path.name, path.stat().st_size < 5_000_000
('report.html', True)
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Union

from ._data import ReportData
from ._experiment import load_experiment
from ._handoff import HANDOFF_FORMATS, HandOff, Selection

__all__ = ["build_report", "write_report", "decision", "load_experiment", "ReportData", "PANELS", "Panel",
           "HANDOFF_FORMATS", "HandOff", "Selection", "MISSING_EXTRA"]

#: the one-line message when Bokeh or Jinja2 is missing
MISSING_EXTRA = 'the report needs Bokeh and Jinja2: pip install "rankselect[report]"'


def __getattr__(name: str) -> Any:
    """``PANELS`` and ``Panel``: the panel registry draws with Bokeh, imported on first use (the
    package imports without the ``report`` extra and says what is missing when it is used)."""
    if name in ("PANELS", "Panel"):
        _require_extra()
        from . import _panels

        return getattr(_panels, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _require_extra() -> None:
    try:
        import bokeh  # noqa: F401
        import jinja2  # noqa: F401
    except ImportError as exc:
        raise ModuleNotFoundError(MISSING_EXTRA, name=exc.name) from None


def build_report(source: Any, **kwargs: Any) -> ReportData:
    """Collect what the report shows (a :class:`~rankselect.report.ReportData`).

    Parameters
    ----------
    source : path or fitted selector
        An experiment's output folder (``rankselect experiment ... --out DIR``; keywords:
        ``method=``, ``data_dir=``, ``feature_names=``, ``feature_costs=``, ``feature_groups=``,
        ``group_costs=``, ``title=``, ``random_state=``, ``progress=``, ``measure=`` - the
        measure of the decision, one the experiment kept per query -, ``ranker=`` - decide for
        the methods run with that ranker (``"lightgbm"``: ``forward:ranker=lightgbm``), the
        other paths a screening view -, ``rule=`` - ``"one-standard-error"`` or ``"holm"`` -,
        ``nested=True`` - compare the sizes on their cross-fitted validation scores),
        or a fitted rankselect
        selector (keywords: ``train=``, ``vali=`` and optionally ``test=``, ``ranker=``,
        ``scoring=``, ``convention=``, ``feature_names=``, ``feature_costs=``,
        ``feature_groups=``, ``group_costs=``, ``n_resamples=``, ``progress=``). A
        ranker-in-the-loop selector's ``path_`` gives the validation scores of every size;
        otherwise ``ranker`` (default: the selector's own estimator, else ``RankRLS()``) is
        fitted on every prefix of the selection order. ``n_resamples`` (default 5; 0 skips)
        bounds the refits of the stability panel, each one fit of the selector on half of the
        queries; long work prints its progress and its time per step on standard error
        (``progress=False``: silent) and the page says what it cost.

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
    >>> data = build_report(sel, train=train, vali=vali, n_resamples=0, progress=False)
    >>> data.curves[0].n_features, data.marks["RecursiveElimination"]
    ([3, 6, 11, 22], {'best': 6, 'one-standard-error': 6})
    """
    _require_extra()
    from ._panels import collect_panels

    if isinstance(source, (str, os.PathLike)):
        from ._experiment import from_experiment

        return collect_panels(from_experiment(source, **kwargs))
    from ._fitted import from_selector

    return collect_panels(from_selector(source, **kwargs))


def decision(data: ReportData) -> dict[str, Any]:
    """What the page recommends, as data: ``method``, ``rule``, ``interval`` ("queries"),
    ``reference`` ("all features"), ``measure`` (``"NDCG@10"``, ...), ``ranker`` (the ranker
    decided for, None: every method's own), ``best_size``, ``chosen_size``, ``features``
    (0-based columns) and ``feature_names``, ``selected_features`` (1-based), the validation
    score and its paired difference to the best size, ``groups`` (with groups), the
    comparison with all features (``against_reference``) and, for an experiment, ``folds``
    (per fold: ``fold``, ``size``, ``reference_method``, ``reference_size``,
    ``mean_difference``, ``interval``, ``pvalue``, ``pvalue_holm``, ``significant_loss``,
    ``n_queries`` and the same against the best size under ``against_best``),
    ``significant_losses`` (the folds flagged) and ``optimism`` (the validation score's, from
    cross-fitted scores). The dict is open: another view may add a top-level key of its own
    (``ReportData.decision_extra``). The page carries it in its
    ``<script type="application/json" id="rankselect-decision">`` element.

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.report import build_report, decision
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> sel = rs.GreedyRankRLS(n_features_to_select=6).fit(*train)
    >>> d = decision(build_report(sel, train=train, vali=vali, n_resamples=0, progress=False))
    >>> d["method"], d["rule"], d["interval"], d["chosen_size"], d["features"]
    ('GreedyRankRLS', 'one-standard-error', 'queries', 5, [7, 3, 11, 4, 16])
    """
    return data.decision()


def write_report(source: Any, path: Union[str, os.PathLike], *, force: bool = False, **kwargs: Any) -> Path:
    """Write the report of ``source`` (see :func:`build_report`; or a
    :class:`~rankselect.report.ReportData` it returned) to ``path`` as one HTML file.

    An existing file is not overwritten unless ``force=True`` (FileExistsError, checked before
    any work).

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
    >>> page = write_report(sel, tempfile.mkdtemp() + "/gas.html", train=train, vali=vali, n_resamples=0,
    ...                     progress=False)
    >>> page.read_text().count('class="panel"')
    8
    """
    out = Path(path)
    if out.is_dir():
        raise IsADirectoryError(f"{out} is a folder: give the path of the HTML file to write")
    if out.exists() and not force:
        raise FileExistsError(f"{out} exists: pass force=True (rankselect report --force) to overwrite it")
    data = source if isinstance(source, ReportData) else build_report(source, **kwargs)
    from ._html import render

    out.write_text(render(data), encoding="utf-8")
    return out
