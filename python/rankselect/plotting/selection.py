"""Plots of selections: the cost-quality trade-off (:func:`plot_cost_quality`) and selection
frequencies (:func:`plot_selection_frequencies`)."""
from __future__ import annotations

import numpy as np

from .backend import new_figure

__all__ = ["plot_cost_quality", "plot_selection_frequencies"]


def plot_cost_quality(paths, ax=None, *, title=None):
    """Cost-quality trade-off: validation measure against total feature cost, every model
    as a marker and each path's Pareto front (:func:`rankselect.analysis.costs.pareto_front`) as a
    step line.

    Parameters
    ----------
    paths : CostQualityPath or dict label -> CostQualityPath
        From :func:`rankselect.analysis.costs.cost_quality_path`.
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    >>> from rankselect.analysis.costs import cost_quality_path
    >>> from rankselect.plotting import plot_cost_quality
    >>> costs = np.linspace(0.1, 2.2, train.n_features)
    >>> path = cost_quality_path(rs.GreedyRankRLS(n_features_to_select=5).fit(*train), vali, costs)
    >>> ax = plot_cost_quality({"greedy RankRLS": path})
    >>> ax.get_xlabel()
    'total feature cost'
    """
    if not isinstance(paths, dict):
        paths = {"": paths}
    if ax is None:
        ax = new_figure().add_subplot()
    scoring = None
    for i, (label, p) in enumerate(paths.items()):
        color = f"C{i}"
        ax.plot(p.total_cost, p.score, "o", color=color, alpha=0.35, ms=4,
                label=f"{label} models" if label else "models")
        front = p.pareto
        ax.step(p.total_cost[front], p.score[front], "-", where="post", color=color, marker="s", ms=4,
                label=f"{label} Pareto front" if label else "Pareto front")
        scoring = p.scoring
    ax.set_xlabel("total feature cost")
    ax.set_ylabel(f"validation {scoring}")
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return ax


def plot_selection_frequencies(frequencies, ax=None, *, feature_numbers=None, title=None, threshold=None):
    """Bar chart of how often each feature was selected (one bar group per entry).

    Parameters
    ----------
    frequencies : array-like of shape (n_features,) or dict label -> array-like
        E.g. :attr:`rankselect.StabilitySelection.selection_frequencies_` and
        :func:`rankselect.selection.stability.fold_selection_frequencies`.
    ax : matplotlib Axes, optional
    feature_numbers : sequence of int, optional
        Tick labels; default 1-based feature numbers (as in LETOR files).
    title : str, optional
    threshold : float, optional
        Draw the support threshold as a horizontal line.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.plotting import plot_selection_frequencies
    >>> ax = plot_selection_frequencies({"greedy": np.array([1.0, 0.2, 0.9]), "GAS": np.array([0.8, 0.5, 0.1])},
    ...                                 threshold=0.6)
    >>> type(ax).__name__
    'Axes'
    """
    if not isinstance(frequencies, dict):
        frequencies = {"": frequencies}
    arrays = {k: np.asarray(v, dtype=float) for k, v in frequencies.items()}
    n = next(iter(arrays.values())).shape[0]
    if any(a.shape != (n,) for a in arrays.values()):
        raise ValueError("every frequency vector must have shape (n_features,)")
    if ax is None:
        ax = new_figure((max(6.4, 0.18 * n + 2), 4.0)).add_subplot()
    width = 0.8 / len(arrays)
    x = np.arange(n)
    for i, (label, a) in enumerate(arrays.items()):
        ax.bar(x + (i - (len(arrays) - 1) / 2) * width, a, width, color=f"C{i}", label=label or None)
    nums = list(range(1, n + 1)) if feature_numbers is None else list(feature_numbers)
    ax.set_xticks(x)
    ax.set_xticklabels([str(j) for j in nums], rotation=90, fontsize=7)
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_ylim(0, 1.02)
    if threshold is not None:
        ax.axhline(threshold, color="0.4", lw=0.8, ls="--", label=f"threshold {threshold:g}")
    ax.set_xlabel("feature")
    ax.set_ylabel("selection frequency")
    if title:
        ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    if any(arrays) or threshold is not None:
        ax.legend(fontsize="small")
    return ax
