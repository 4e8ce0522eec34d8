"""Heat map of a feature similarity matrix (:func:`plot_similarity`)."""
from __future__ import annotations

import numpy as np

from .backend import new_axes

__all__ = ["SIMILARITY_LABELS", "plot_similarity"]

#: colour-bar labels of the similarity variants of :func:`rankselect.kendall_similarity`
SIMILARITY_LABELS = {
    "geng": "Kendall similarity (Geng et al.): share of document pairs both features order alike; ties count as unlike",
    "tau_b": "Kendall tau-b (per query, averaged over queries)",
}


def plot_similarity(sim, ax=None, *, labels=None, title=None, cmap=None, vmin=None, vmax=None,
                    colorbar=True, colorbar_label=None, hide=None):
    """Heat map of a feature similarity matrix (like Fig. 7 of Geng et al. 2007).

    Parameters
    ----------
    sim : array-like of shape (n_features, n_features)
        E.g. from :func:`rankselect.kendall_similarity`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    labels : sequence of str, optional
        Tick labels; default the 1-based feature numbers (as in LETOR files).
    title : str, optional
    cmap, vmin, vmax : optional
        Colour map and range; default ``"RdBu_r"`` on [-1, 1] when the matrix has negative
        entries (tau-b), else ``"viridis"`` on [0, 1] (Geng's concordance fraction).
    colorbar : bool, default=True
    colorbar_label : str, optional
        Label of the colour bar; default "similarity".
    hide : sequence of int, optional
        0-based features drawn grey and not coloured, e.g. the features constant on the
        training set (they order no pair, so a similarity of 0 would read as "dissimilar").

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect.plotting import plot_similarity
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> ax = plot_similarity(rs.kendall_similarity(X[:, :5], qid), title="Kendall similarity")
    >>> ax.get_title()
    'Kendall similarity'
    """
    sim = np.asarray(sim, dtype=float)
    if sim.ndim != 2 or sim.shape[0] != sim.shape[1]:
        raise ValueError(f"sim must be a square (n_features, n_features) matrix, got shape {sim.shape}")
    if ax is None:
        side = min(12.0, 3.0 + 0.15 * sim.shape[0])
        ax = new_axes((side + 1.0, side))
    signed = bool(np.nanmin(sim) < 0) if sim.size else False
    if cmap is None:
        cmap = "RdBu_r" if signed else "viridis"
    if vmin is None:
        vmin = -1.0 if signed else 0.0
    if vmax is None:
        vmax = 1.0
    n = sim.shape[0]
    shown = np.ma.masked_invalid(sim)
    hidden = np.zeros(n, dtype=bool)
    if hide is not None and len(hide):
        hidden[np.asarray(hide, dtype=int)] = True
        shown = np.ma.masked_where(hidden[:, None] | hidden[None, :], shown)
    from matplotlib import colormaps

    cm = (colormaps[cmap] if isinstance(cmap, str) else cmap).with_extremes(bad="0.85")
    im = ax.imshow(shown, cmap=cm, vmin=vmin, vmax=vmax, interpolation="nearest")
    if labels is None:
        labels = [str(i + 1) for i in range(n)]
    elif len(labels) != n:
        raise ValueError(f"labels has {len(labels)} entries but sim has {n} features")
    step = max(1, int(np.ceil(n / 40)))
    ticks = np.arange(0, n, step)
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set_xticklabels([labels[i] for i in ticks], rotation=90, fontsize=7)
    ax.set_yticklabels([labels[i] for i in ticks], fontsize=7)
    ax.set_xlabel("feature")
    ax.set_ylabel("feature")
    if hidden.any():
        note = f"grey: features {', '.join(labels[i] for i in np.flatnonzero(hidden))} (constant, not compared)"
        ax.set_xlabel(f"feature\n{note}")
    if title:
        ax.set_title(title)
    if colorbar:
        bar = ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        bar.set_label(colorbar_label or "similarity")
    return ax
