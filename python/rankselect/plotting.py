"""Plots (optional extra: ``pip install "rankselect[plot]"``, matplotlib).

Figures are built without pyplot, so they work headless. ``plot_similarity`` takes an
optional ``ax`` and returns the Axes it drew on (save with ``ax.figure.savefig(path)``);
the experiment figures return a :class:`matplotlib.figure.Figure` (``fig.savefig(path)``).
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Optional, Sequence

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


def _figure(figsize=(6.4, 4.4)):
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - exercised only without matplotlib
        raise ImportError(
            "rankselect's plots need matplotlib: pip install 'rankselect[plot]' (or pip install matplotlib)"
        ) from exc
    return Figure(figsize=figsize, layout="constrained")


def _count(entry) -> int:
    return int(entry["n_features"])


def feature_curves(result, metric: str = "MAP") -> Dict[str, Dict[str, np.ndarray]]:
    """Per method: for every number of selected features n, the fold mean of the best
    validation ``metric`` among the grid points with n features, and the fold mean of the
    test ``metric`` of those same points. Only counts reached on every fold are kept.

    Returns ``{method: {"n": (p,), "vali": (p,), "test": (p,)}}``.
    """
    if metric not in ("MAP", "NDCG@10"):
        raise ValueError(f"metric must be 'MAP' or 'NDCG@10', got {metric!r}")
    out = {}
    for m in result.methods:
        per_fold = []
        for f in result.folds:
            best: Dict[int, tuple] = {}
            for e in f[m].curve:
                n = _count(e)
                v, t = e["vali"][metric], e["test"][metric]
                if n not in best or v > best[n][0]:
                    best[n] = (v, t)
            per_fold.append(best)
        common = sorted(set.intersection(*(set(b) for b in per_fold))) if per_fold else []
        out[m] = {
            "n": np.array(common, dtype=int),
            "vali": np.array([np.mean([b[n][0] for b in per_fold]) for n in common]),
            "test": np.array([np.mean([b[n][1] for b in per_fold]) for n in common]),
        }
    return out


def plot_feature_curves(result, metric: str = "MAP"):
    """Validation (dashed) and test (solid) ``metric`` against the number of selected
    features, one colour per method, fold means (the papers' Figs 1-4 / FSMRank Fig. 3).
    Methods with a single feature count (all-feature baselines) are drawn as a marker."""
    curves = feature_curves(result, metric)
    fig = _figure()
    ax = fig.add_subplot()
    for i, (m, c) in enumerate(curves.items()):
        color = f"C{i}"
        if len(c["n"]) == 1:
            ax.plot(c["n"], c["test"], "o", color=color, label=f"{m} test")
            ax.plot(c["n"], c["vali"], "s", color=color, mfc="none", label=f"{m} validation")
        else:
            ax.plot(c["n"], c["test"], "-", color=color, label=f"{m} test")
            ax.plot(c["n"], c["vali"], "--", color=color, label=f"{m} validation")
    ax.set_xlabel("number of selected features")
    ax.set_ylabel(f"{metric} (mean over folds)")
    ax.set_title(f"{metric} against the number of features")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def plot_regularization_curves(result, method: str = "greedy-rankrls", metric: str = "MAP", param: str = "alpha",
                               split: str = "vali"):
    """Fold mean of the validation (or test) ``metric`` against k, one line per value of
    ``param`` (greedy RankRLS paper, Figs 1-4: average validation MAP / MeanNDCG per lambda)."""
    if method not in result.methods:
        raise ValueError(f"method {method!r} is not in this result (methods: {', '.join(result.methods)})")
    if split not in ("vali", "test"):
        raise ValueError(f"split must be 'vali' or 'test', got {split!r}")
    table = defaultdict(lambda: defaultdict(list))
    for f in result.folds:
        for e in f[method].curve:
            if param not in e["params"]:
                raise ValueError(f"method {method!r} has no parameter {param!r}")
            table[e["params"][param]][_count(e)].append(e[split][metric])
    nf = len(result.folds)
    fig = _figure()
    ax = fig.add_subplot()
    cmap = _colormap()
    values = sorted(table)
    for i, v in enumerate(values):
        ks = sorted(k for k, xs in table[v].items() if len(xs) == nf)
        if not ks:
            continue
        ys = [np.mean(table[v][k]) for k in ks]
        lab = f"{param}=2^{int(np.log2(v))}" if v > 0 and float(np.log2(v)).is_integer() else f"{param}={v:g}"
        ax.plot(ks, ys, color=cmap(i / max(1, len(values) - 1)), lw=1, label=lab)
    ax.set_xlabel("number of selected features k")
    ax.set_ylabel(f"{'validation' if split == 'vali' else 'test'} {metric} (mean over folds)")
    ax.set_title(f"{method}: {metric} per {param}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="x-small", ncol=3)
    return fig


def _colormap():
    from matplotlib import colormaps

    return colormaps["viridis"]


def plot_single_feature_scores(train_scores: Sequence[float], test_scores: Sequence[float], *,
                               label: str = "NDCG@10", feature_numbers: Optional[Sequence[int]] = None):
    """Scatter of every feature used alone as a ranker: its ``label`` on train (x) against
    test (y), features annotated 1-based (FSMRank Fig. 4 shows these per data set)."""
    a = np.asarray(train_scores, dtype=float)
    b = np.asarray(test_scores, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"train_scores and test_scores must be 1-D of equal length, got {a.shape} and {b.shape}")
    nums = list(range(1, a.size + 1)) if feature_numbers is None else list(feature_numbers)
    fig = _figure((6.0, 6.0))
    ax = fig.add_subplot()
    ax.scatter(a, b, s=14)
    for x, y, j in zip(a, b, nums):
        ax.annotate(str(j), (x, y), fontsize=6, xytext=(2, 2), textcoords="offset points")
    lo, hi = float(min(a.min(), b.min())), float(max(a.max(), b.max()))
    ax.plot([lo, hi], [lo, hi], color="0.7", lw=0.8)
    ax.set_xlabel(f"{label} on train (feature alone)")
    ax.set_ylabel(f"{label} on test (feature alone)")
    ax.set_title(f"single-feature {label}")
    ax.grid(alpha=0.3)
    return fig


def save_experiment_figures(result, out_dir, *, fold: int = 1) -> List[Path]:
    """Write the experiment's figures as PNG into ``out_dir``; returns the paths.

    ``curves_MAP.png``, ``curves_NDCG10.png`` (metric against the number of features),
    ``<method>_alpha_MAP.png`` for greedy RankRLS (per-alpha validation curves),
    ``single_feature_NDCG10.png`` (fold ``fold``'s train vs test) and
    ``kendall_similarity.png`` (:func:`plot_similarity` of fold ``fold``'s training set).
    """
    from .protocol import load_folds, single_feature_scores

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []

    def save(fig, name):
        p = out / name
        fig.savefig(p, dpi=120)
        written.append(p)

    save(plot_feature_curves(result, "MAP"), "curves_MAP.png")
    save(plot_feature_curves(result, "NDCG@10"), "curves_NDCG10.png")
    for m in result.methods:
        if m.partition(":")[0] == "greedy-rankrls":
            save(plot_regularization_curves(result, m, "MAP"), f"{m.replace(':', '_')}_alpha_MAP.png")
    folds = load_folds(result.data_dir)
    f = folds[fold - 1]
    tr = single_feature_scores(f.train.X, f.train.y, f.train.qid, k=10, convention=result.convention)
    te = single_feature_scores(f.test.X, f.test.y, f.test.qid, k=10, convention=result.convention)
    save(plot_single_feature_scores(tr, te), "single_feature_NDCG10.png")
    from .kendall import kendall_similarity

    S = np.asarray(kendall_similarity(f.train.X, f.train.qid))
    ax = plot_similarity(S, title=f"Kendall similarity ({f.name} train)")
    save(ax.figure, "kendall_similarity.png")
    return written