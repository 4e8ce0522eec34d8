"""Plots (optional extra: ``pip install "rankselect[plot]"``, matplotlib).

Every function takes an optional ``ax`` and returns the Axes it drew on, so plots compose
into user figures; without ``ax`` a new figure is created (without pyplot, so it works
headless: save it with ``ax.figure.savefig(path)``).
"""
from __future__ import annotations

import numpy as np


def _require_matplotlib():
    """Import matplotlib or raise an ImportError that says how to install it."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "plotting needs matplotlib, an optional extra: pip install \"rankselect[plot]\"") from exc
    return matplotlib


def _new_axes(figsize):
    _require_matplotlib()
    from matplotlib.figure import Figure

    return Figure(figsize=figsize).add_subplot()


def plot_similarity(sim, ax=None, *, labels=None, title=None, cmap=None, vmin=None, vmax=None,
                    colorbar=True):
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

    Returns
    -------
    matplotlib Axes
    """
    sim = np.asarray(sim, dtype=float)
    if sim.ndim != 2 or sim.shape[0] != sim.shape[1]:
        raise ValueError(f"sim must be a square (n_features, n_features) matrix, got shape {sim.shape}")
    if ax is None:
        side = min(12.0, 3.0 + 0.15 * sim.shape[0])
        ax = _new_axes((side + 1.0, side))
    signed = bool(np.nanmin(sim) < 0) if sim.size else False
    if cmap is None:
        cmap = "RdBu_r" if signed else "viridis"
    if vmin is None:
        vmin = -1.0 if signed else 0.0
    if vmax is None:
        vmax = 1.0
    im = ax.imshow(sim, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
    n = sim.shape[0]
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
    if title:
        ax.set_title(title)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    return ax
