"""Every feature used alone as a ranker, train against test (:func:`plot_single_feature_scores`)."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Optional

import numpy as np
import numpy.typing as npt

from .backend import new_figure

__all__ = ["plot_single_feature_scores"]


def _place_labels(ax, xs, ys, texts, fontsize=6.5):
    """Annotate points without overlapping labels: each label takes the first of a ring of
    offsets (growing outwards) where its drawn box meets no label placed before and no
    other point (the fewest overlaps if none is free); a label placed away from its point
    gets a thin leader line."""
    fig = ax.figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()  # settle the layout, then freeze it: the positions below are final
    fig.set_layout_engine("none")
    renderer = fig.canvas.get_renderer()
    pts = ax.transData.transform(np.column_stack([xs, ys]))  # pixels
    placed: list[tuple] = []
    if ax.get_legend() is not None:  # labels stay off the legend
        e = ax.get_legend().get_window_extent(renderer)
        placed.append((e.x0, e.y0, e.x1, e.y1))
    order = np.argsort(-pts[:, 1])
    offsets = [(3, 2)]
    for r in (4, 9, 15, 22, 30, 40, 52, 66, 82):
        offsets += [(r, r * 0.3), (r, -r * 0.3 - 7), (-r, r * 0.3), (-r, -r * 0.3 - 7),
                    (0, r), (0, -r - 7), (r, r), (-r, r), (r, -r - 7), (-r, -r - 7)]

    def clashes(box, own):
        x0, y0, x1, y1 = box
        n = sum(x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1 for b in placed)
        near = (pts[:, 0] > x0 - 2) & (pts[:, 0] < x1 + 2) & (pts[:, 1] > y0 - 2) & (pts[:, 1] < y1 + 2)
        near[own] = False
        return 100 * n + int(near.sum())  # covering a point is bad, covering a label worse

    for i in order:
        ann = ax.annotate(texts[i], (xs[i], ys[i]), xytext=offsets[0], textcoords="offset points",
                          fontsize=fontsize)
        best = None
        for dx, dy in offsets:
            ann.set_ha("left" if dx > 0 else "right" if dx < 0 else "center")
            ann.xyann = (dx, dy)
            e = ann.get_window_extent(renderer)
            box = (e.x0, e.y0, e.x1, e.y1)
            c = clashes(box, i)
            if best is None or c < best[0]:
                best = (c, (dx, dy), ann.get_ha(), box)
            if c == 0:
                break
        _, (dx, dy), ha, box = best
        ann.remove()
        far = abs(dx) > 8 or abs(dy) > 10
        ax.annotate(texts[i], (xs[i], ys[i]), xytext=(dx, dy), textcoords="offset points", fontsize=fontsize,
                    ha=ha, arrowprops=dict(arrowstyle="-", lw=0.4, color="0.5", shrinkA=0, shrinkB=2) if far else None)
        placed.append(box)


def plot_single_feature_scores(train_scores: npt.ArrayLike, test_scores: npt.ArrayLike, *,
                               label: str = "NDCG@10", feature_numbers: Optional[Sequence[int]] = None,
                               title: Optional[str] = None, constant: Optional[Sequence[int]] = None):
    """Scatter of every feature used alone as a ranker: its ``label`` on train (x) against
    test (y), features annotated 1-based (FSMRank Fig. 4 shows these per data set).

    Features at the same point share one label (``"7, 8, 9"``); ``constant`` (1-based
    numbers) marks the features constant on the training set, which rank by file order
    only (grey crosses). ``title`` names the data and fold, e.g. ``"MQ2008 Fold1"``.

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.plotting import plot_single_feature_scores
    >>> train, test = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("test")
    >>> a = rs.protocol.single_feature_scores(*train)
    >>> b = rs.protocol.single_feature_scores(*test)
    >>> fig = plot_single_feature_scores(a, b, title="example")
    >>> type(fig).__name__
    'Figure'
    """
    a = np.asarray(train_scores, dtype=float)
    b = np.asarray(test_scores, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"train_scores and test_scores must be 1-D of equal length, got {a.shape} and {b.shape}")
    nums = list(range(1, a.size + 1)) if feature_numbers is None else [int(j) for j in feature_numbers]
    if len(nums) != a.size:
        raise ValueError(f"feature_numbers has {len(nums)} entries but there are {a.size} scores")
    const = set(int(j) for j in (constant or ()))
    fig = new_figure((6.6, 6.2))
    ax = fig.add_subplot()
    is_const = np.array([j in const for j in nums], dtype=bool)
    ax.scatter(a[~is_const], b[~is_const], s=14, zorder=3, label="feature")
    if is_const.any():
        ax.scatter(a[is_const], b[is_const], s=22, marker="x", color="0.5", zorder=3,
                   label="constant on train (ranks by file order)")
    lo, hi = float(min(a.min(), b.min())), float(max(a.max(), b.max()))
    pad = 0.04 * (hi - lo if hi > lo else 1.0)
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="0.7", lw=0.8, label="test = train")
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(lo - pad, hi + pad)
    ax.set_aspect("equal")
    groups: dict[tuple, list[int]] = defaultdict(list)
    for x, y, j in zip(a.tolist(), b.tolist(), nums):
        groups[(round(x, 12), round(y, 12))].append(j)
    ax.set_xlabel(f"{label} on train (feature alone)")
    ax.set_ylabel(f"{label} on test (feature alone)")
    ax.set_title(f"{title + ': ' if title else ''}each feature alone as the ranking score ({label})",
                 fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")  # above the diagonal: test better than train, rare
    keys = list(groups)
    _place_labels(ax, np.array([k[0] for k in keys]), np.array([k[1] for k in keys]),
                  [", ".join(map(str, sorted(groups[k]))) for k in keys])
    return fig
