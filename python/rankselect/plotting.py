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

    return Figure(figsize=figsize, layout="constrained").add_subplot()


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


def _figure(figsize=(6.4, 4.4)):
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - exercised only without matplotlib
        raise ImportError(
            "rankselect's plots need matplotlib: pip install 'rankselect[plot]' (or pip install matplotlib)"
        ) from exc
    return Figure(figsize=figsize, layout="constrained")


def _as_dict(result) -> Dict:
    """An experiment result as the dict of ``ExperimentResult.to_dict()``: accepts an
    ExperimentResult, that dict, or the path of its ``experiment.json``."""
    if isinstance(result, (str, Path)):
        import json

        return json.loads(Path(result).read_text())
    if isinstance(result, dict):
        return result
    return result.to_dict()


# Grid parameters that set the number of features directly (a selection path).
_COUNT_PARAMS = ("k", "t")


def _kind(d: Dict, m: str) -> str:
    """How method ``m`` reaches a number of features: ``"path"`` (a count parameter k / t
    in its grid: greedy RankRLS, GAS), ``"single"`` (every grid point uses the same count on
    every fold: the all-feature baselines) or ``"grid"`` (the count follows a
    regularisation parameter and differs between folds: sparse RankSVM, FSMRank)."""
    if any(p in d["grids"].get(m, {}) for p in _COUNT_PARAMS):
        return "path"
    counts = {int(e["n_features"]) for f in d["folds"] for e in f[m]["curve"]}
    return "single" if len(counts) == 1 else "grid"


def _params_key(params: Dict) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in params.items()))


def feature_curves(result, metric: str = "MAP", select: Optional[str] = None) -> Dict[str, Dict[str, np.ndarray]]:
    """Per method, the ``metric`` against the number of features in use (non-zero weight on a
    feature that is not zero on every training row: the count of the results table).

    - selection paths (greedy RankRLS k, GAS t) and all-feature baselines (one count): for
      every count n, the grid point with n features and the best validation ``select``
      score (default: the experiment's selection metric when the curves hold it, else
      ``metric``), and the fold means of its validation and test ``metric``; only counts
      reached on every fold are kept (a baseline is one point, the model the protocol chose);
    - methods whose count follows a regularisation parameter (sparse RankSVM, FSMRank):
      one point per grid point at the fold mean of its count, in grid order.

    ``result`` is an ExperimentResult, its ``to_dict()`` or the path of its JSON.

    Returns ``{method: {"n": (p,), "vali": (p,), "test": (p,), "kind": "path" | "grid" |
    "single", "varying": names of the grid parameters with more than one value}}``.
    """
    if metric not in ("MAP", "NDCG@10"):
        raise ValueError(f"metric must be 'MAP' or 'NDCG@10', got {metric!r}")
    d = _as_dict(result)
    if select is None:
        select = d.get("metric") if d.get("metric") in ("MAP", "NDCG@10") else metric
    out = {}
    for m in d["methods"]:
        kind = _kind(d, m)
        varying = [p for p, vs in d["grids"].get(m, {}).items() if len(vs) > 1 and p not in _COUNT_PARAMS]
        if kind in ("path", "single"):
            per_fold = []
            for f in d["folds"]:
                best: Dict[int, tuple] = {}
                for e in f[m]["curve"]:
                    n = int(e["n_features"])
                    key, v, t = e["vali"][select], e["vali"][metric], e["test"][metric]
                    if n not in best or key > best[n][0]:
                        best[n] = (key, v, t)
                per_fold.append(best)
            common = sorted(set.intersection(*(set(b) for b in per_fold))) if per_fold else []
            n_arr = np.array(common, dtype=float)
            vali = np.array([np.mean([b[n][1] for b in per_fold]) for n in common])
            test = np.array([np.mean([b[n][2] for b in per_fold]) for n in common])
        else:
            points: Dict[tuple, List[tuple]] = defaultdict(list)
            for f in d["folds"]:
                for e in f[m]["curve"]:
                    points[_params_key(e["params"])].append(
                        (int(e["n_features"]), e["vali"][metric], e["test"][metric]))
            rows = [np.mean(v, axis=0) for v in points.values() if len(v) == len(d["folds"])]
            arr = np.array(rows, dtype=float).reshape(-1, 3)
            n_arr, vali, test = arr[:, 0], arr[:, 1], arr[:, 2]
        out[m] = {"n": n_arr, "vali": vali, "test": test, "kind": kind, "varying": varying}
    return out


_MARKERS = "osD^vP*Xph<>"


def plot_feature_curves(result, metric: str = "MAP"):
    """Validation (left) and test (right) ``metric`` against the number of features in use,
    fold means, one colour per method (the papers' Figs 1-4 / FSMRank Fig. 3).

    Selection paths (greedy RankRLS, GAS) are lines over every count; sparse RankSVM and
    FSMRank, whose count follows a regularisation parameter, are one marker per grid point
    at its mean count over the folds (joined in grid order when one parameter varies); an
    all-feature baseline is one marker at its count with a dotted line across the panel at
    its level. On the test
    panel, a star marks the model the protocol chose by validation (the results table's row:
    mean #features and mean test score). The legend sits below the panels.
    ``result`` is an ExperimentResult, its ``to_dict()`` or the path of its JSON.
    """
    d = _as_dict(result)
    curves = feature_curves(d, metric)
    select = d.get("metric") if d.get("metric") in ("MAP", "NDCG@10") else metric
    chosen = d.get("averages", {})
    fig = _figure((11.0, 5.4))
    ax_v, ax_t = fig.subplots(1, 2, sharey=True)
    handles, labels = [], []
    drawn: Dict[str, Dict] = {}
    for i, (m, c) in enumerate(curves.items()):
        color, marker = f"C{i % 10}", _MARKERS[i % len(_MARKERS)]
        same = next((o for o, oc in drawn.items() if oc["n"].shape == c["n"].shape and np.allclose(oc["n"], c["n"])
                     and np.allclose(oc["vali"], c["vali"]) and np.allclose(oc["test"], c["test"])), None)
        drawn[m] = c
        for ax, split in ((ax_v, "vali"), (ax_t, "test")):
            if c["kind"] == "path":
                (h,) = ax.plot(c["n"], c[split], "-", color=color, lw=1.3)
                label = m
            elif c["kind"] == "single":
                ax.axhline(c[split][0], color=color, ls=":", lw=1)
                (h,) = ax.plot(c["n"], c[split], marker, color=color, ms=8, mec="k", mew=0.6, ls="none")
                label = f"{m} (all {int(round(c['n'][0]))} features)"
            else:
                line = "-" if len(c["varying"]) == 1 else "none"
                (h,) = ax.plot(c["n"], c[split], ls=line, color=color, lw=0.7, marker=marker, ms=4)
                label = f"{m} (a point per {' x '.join(c['varying']) or 'grid point'})"
        if m in chosen and "n_features" in chosen[m] and metric in chosen[m]:
            ax_t.plot([chosen[m]["n_features"]], [chosen[m][metric]], "*", color=color, ms=13,
                      mec="k", mew=0.7, zorder=5)
        handles.append(h)
        labels.append(label + (f"; = {same}, drawn over it" if same else ""))
    from matplotlib.lines import Line2D

    handles.append(Line2D([], [], marker="*", color="0.6", mec="k", ms=12, ls="none"))
    labels.append("chosen by validation (the table's row; test panel)")
    for ax, split in ((ax_v, "validation"), (ax_t, "test")):
        ax.set_xlabel("number of features in use (mean over folds)")
        ax.set_title(f"{split} {metric}")
        ax.grid(alpha=0.3)
        ax.set_xlim(left=0)
    ax_v.set_ylabel(f"{metric} (mean over folds)")
    ax_t.tick_params(labelleft=True)
    name = Path(str(d.get("data_dir", ""))).name
    fig.suptitle(f"{name + ': ' if name else ''}{metric} against the number of features "
                 f"({d.get('convention', 'letor')} conventions, "
                 f"{'means over ' + str(len(d['folds'])) + ' folds' if len(d['folds']) != 1 else 'one fold'})")
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize="small", frameon=False,
               title=f"lines: selection paths, at each count the grid point of best validation {select}; "
                     "markers: one per regularisation value,\nat its mean count over the folds; "
                     "dotted lines: the all-feature baselines' level", title_fontsize="small")
    return fig


def plot_regularization_curves(result, method: str = "greedy-rankrls", metric: str = "MAP", param: str = "alpha",
                               split: str = "vali"):
    """Fold mean of the validation (or test) ``metric`` against the number of features in
    use, one line per value of ``param``, coloured by log2 of the value with a colour bar
    (greedy RankRLS paper, Figs 1-4: average validation MAP / MeanNDCG per lambda).
    ``result`` is an ExperimentResult, its ``to_dict()`` or the path of its JSON."""
    d = _as_dict(result)
    if method not in d["methods"]:
        raise ValueError(f"method {method!r} is not in this result (methods: {', '.join(d['methods'])})")
    if split not in ("vali", "test"):
        raise ValueError(f"split must be 'vali' or 'test', got {split!r}")
    # value -> count -> fold -> score (a count reached twice in a fold, e.g. after an
    # all-zero feature was added, keeps its best validation point)
    table: Dict = defaultdict(lambda: defaultdict(dict))
    for fi, f in enumerate(d["folds"]):
        for e in f[method]["curve"]:
            if param not in e["params"]:
                raise ValueError(f"method {method!r} has no parameter {param!r}")
            cell = table[e["params"][param]][int(e["n_features"])]
            if fi not in cell or e["vali"][metric] > cell[fi][0]:
                cell[fi] = (e["vali"][metric], e[split][metric])
    nf = len(d["folds"])
    fig = _figure((7.4, 4.6))
    ax = fig.add_subplot()
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    values = sorted(table)
    log2 = all(v > 0 for v in values)
    keys = [float(np.log2(v)) if log2 else float(v) for v in values]
    norm = Normalize(min(keys), max(keys) if max(keys) > min(keys) else min(keys) + 1)
    cmap = colormaps["viridis"]
    for v, key in zip(values, keys):
        ks = sorted(k for k, folds in table[v].items() if len(folds) == nf)
        if not ks:
            continue
        ys = [np.mean([s for _, s in table[v][k].values()]) for k in ks]
        ax.plot(ks, ys, color=cmap(norm(key)), lw=1)
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, pad=0.02)
    bar.set_label(f"log2 {param}" if log2 else param)
    ax.set_xlabel("number of features in use")
    ax.set_ylabel(f"{'validation' if split == 'vali' else 'test'} {metric} (mean over folds)")
    name = Path(str(d.get("data_dir", ""))).name
    ax.set_title(f"{name + ': ' if name else ''}{method}, {'validation' if split == 'vali' else 'test'} "
                 f"{metric} per {param}")
    ax.grid(alpha=0.3)
    return fig


def _colormap():
    from matplotlib import colormaps

    return colormaps["viridis"]


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
    placed: List[tuple] = []
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


def plot_single_feature_scores(train_scores: Sequence[float], test_scores: Sequence[float], *,
                               label: str = "NDCG@10", feature_numbers: Optional[Sequence[int]] = None,
                               title: Optional[str] = None, constant: Optional[Sequence[int]] = None):
    """Scatter of every feature used alone as a ranker: its ``label`` on train (x) against
    test (y), features annotated 1-based (FSMRank Fig. 4 shows these per data set).

    Features at the same point share one label (``"7, 8, 9"``); ``constant`` (1-based
    numbers) marks the features constant on the training set, which rank by file order
    only (grey crosses). ``title`` names the data and fold, e.g. ``"MQ2008 Fold1"``.
    """
    a = np.asarray(train_scores, dtype=float)
    b = np.asarray(test_scores, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"train_scores and test_scores must be 1-D of equal length, got {a.shape} and {b.shape}")
    nums = list(range(1, a.size + 1)) if feature_numbers is None else [int(j) for j in feature_numbers]
    if len(nums) != a.size:
        raise ValueError(f"feature_numbers has {len(nums)} entries but there are {a.size} scores")
    const = set(int(j) for j in (constant or ()))
    fig = _figure((6.6, 6.2))
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
    groups: Dict[tuple, List[int]] = defaultdict(list)
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


def save_experiment_figures(result, out_dir, *, fold: Optional[int] = None) -> List[Path]:
    """Write the experiment's figures as PNG into ``out_dir``; returns the paths.

    ``curves_MAP.png``, ``curves_NDCG10.png`` (metric against the number of features),
    ``<method>_alpha_MAP.png`` for greedy RankRLS (per-alpha validation curves),
    ``single_feature_NDCG10.png`` (fold ``fold``'s train vs test) and
    ``kendall_similarity.png`` (:func:`plot_similarity` of fold ``fold``'s training set);
    ``fold`` (1-based) defaults to the first fold of the result.
    ``result`` is an ExperimentResult, its ``to_dict()`` or the path of its JSON (the last
    two figures read the data again from its ``data_dir``).
    """
    from .protocol import load_folds, single_feature_scores

    d = _as_dict(result)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []

    def save(fig, name):
        p = out / name
        fig.savefig(p, dpi=120)
        written.append(p)

    save(plot_feature_curves(d, "MAP"), "curves_MAP.png")
    save(plot_feature_curves(d, "NDCG@10"), "curves_NDCG10.png")
    for m in d["methods"]:
        if m.partition(":")[0] == "greedy-rankrls":
            save(plot_regularization_curves(d, m, "MAP"), f"{m.replace(':', '_')}_alpha_MAP.png")
    folds = load_folds(d["data_dir"])
    if fold is None:
        first = d["folds"][0][d["methods"][0]].get("fold") if d["folds"] else None
        f = next((x for x in folds if x.name == first), folds[0])
    else:
        f = folds[fold - 1]
    name = f"{Path(str(d['data_dir'])).name} {f.name}"
    convention = d.get("convention", "letor")
    tr = single_feature_scores(f.train.X, f.train.y, f.train.qid, k=10, convention=convention)
    te = single_feature_scores(f.test.X, f.test.y, f.test.qid, k=10, convention=convention)
    X = f.train.X
    constant = np.flatnonzero(np.all(X == X[:1], axis=0)) if X.shape[0] else np.arange(X.shape[1])
    save(plot_single_feature_scores(tr, te, title=name, constant=(constant + 1).tolist()),
         "single_feature_NDCG10.png")
    from .kendall import kendall_similarity

    S = np.asarray(kendall_similarity(f.train.X, f.train.qid))
    ax = plot_similarity(S, title=f"{name} train: Kendall similarity of the features", hide=constant,
                         colorbar_label=SIMILARITY_LABELS["geng"])
    save(ax.figure, "kendall_similarity.png")
    return written

def plot_cost_quality(paths, ax=None, *, title=None):
    """Cost-quality trade-off: validation measure against total feature cost, every model
    as a marker and each path's Pareto front (:func:`rankselect.costs.pareto_front`) as a
    step line.

    Parameters
    ----------
    paths : CostQualityPath or dict label -> CostQualityPath
        From :func:`rankselect.costs.cost_quality_path`.
    ax : matplotlib Axes, optional
    title : str, optional

    Returns
    -------
    matplotlib Axes
    """
    if not isinstance(paths, dict):
        paths = {"": paths}
    if ax is None:
        ax = _figure().add_subplot()
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
        :func:`rankselect.stability.fold_selection_frequencies`.
    ax : matplotlib Axes, optional
    feature_numbers : sequence of int, optional
        Tick labels; default 1-based feature numbers (as in LETOR files).
    title : str, optional
    threshold : float, optional
        Draw the support threshold as a horizontal line.

    Returns
    -------
    matplotlib Axes
    """
    if not isinstance(frequencies, dict):
        frequencies = {"": frequencies}
    arrays = {k: np.asarray(v, dtype=float) for k, v in frequencies.items()}
    n = next(iter(arrays.values())).shape[0]
    if any(a.shape != (n,) for a in arrays.values()):
        raise ValueError("every frequency vector must have shape (n_features,)")
    if ax is None:
        ax = _figure((max(6.4, 0.18 * n + 2), 4.0)).add_subplot()
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
