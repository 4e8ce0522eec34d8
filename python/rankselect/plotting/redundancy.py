"""The figure of a redundancy report (:func:`plot_redundancy`): a dendrogram over a heat map
of the similarity in dendrogram order, with the feature names."""
from __future__ import annotations

import numpy as np

from .backend import new_figure

__all__ = ["plot_redundancy"]


def plot_redundancy(report, *, title=None, figsize=None, cmap="viridis"):
    """Clustered heat map of a :class:`rankselect.analysis.redundancy.RedundancyReport`.

    The dendrogram (SciPy, distance ``1 - similarity``, the report's linkage) is drawn on
    top with the threshold's cut as a dashed line; below it the similarity matrix with rows
    and columns in dendrogram order, labelled with the feature names, and a box around every
    cluster of near-duplicates.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from rankselect import redundancy_report
    >>> from rankselect.data.datasets import load_example
    >>> from rankselect.plotting import plot_redundancy
    >>> fig = plot_redundancy(redundancy_report(load_example().X, threshold=0.9))
    >>> len(fig.axes)  # dendrogram, heat map, colour bar
    3
    """
    from scipy.cluster.hierarchy import dendrogram

    n = len(report.feature_names)
    size = max(5.0, min(16.0, 0.22 * n + 3.0))
    fig = new_figure(figsize or (size, size * 1.25))
    top, heat = fig.subplots(2, 1, height_ratios=[1, 4])
    if n > 1:
        tree = dendrogram(report.linkage, ax=top, no_labels=True, color_threshold=1 - report.threshold,
                          above_threshold_color="grey")
        order = np.asarray(tree["leaves"])
        top.axhline(1 - report.threshold, ls="--", lw=0.8, color="k")
    else:
        order = np.arange(n)
    top.set_ylabel("1 - similarity")
    top.set_xticks([])
    s = report.similarity[np.ix_(order, order)]
    im = heat.imshow(s, cmap=cmap, vmin=0.0, vmax=1.0, interpolation="nearest")
    names = [report.feature_names[j] for j in order]
    fontsize = 8 if n <= 60 else 5
    heat.set_xticks(range(n), names, rotation=90, fontsize=fontsize)
    heat.set_yticks(range(n), names, fontsize=fontsize)
    position = {int(j): p for p, j in enumerate(order)}
    for cluster in report.redundant:
        ps = sorted(position[int(j)] for j in cluster)
        if ps[-1] - ps[0] + 1 == len(ps):  # contiguous in dendrogram order (always for complete linkage)
            heat.add_patch(_box(ps[0] - 0.5, len(ps)))
    fig.colorbar(im, ax=heat, shrink=0.7, label="similarity")
    fig.suptitle(title or f"Redundancy: {len(report.redundant)} clusters at similarity >= {report.threshold}")
    return fig


def _box(start, width):
    from matplotlib.patches import Rectangle

    return Rectangle((start, start), width, width, fill=False, edgecolor="red", lw=1.2)
