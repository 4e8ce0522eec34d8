"""Curves of a LETOR protocol run: the measure against the number of features in use
(:func:`feature_curves`, :func:`plot_feature_curves`) and per regularisation value
(:func:`plot_regularization_curves`)."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Optional

import numpy as np

from .._validation import shown
from ..protocol.results import ExperimentResult
from .backend import new_figure

__all__ = ["as_result_dict", "feature_curves", "plot_feature_curves", "plot_regularization_curves"]


def as_result_dict(result) -> dict:
    """An experiment result as the dict of ``ExperimentResult.to_dict()``: accepts an
    ExperimentResult, that dict, or the path of its ``experiment.json``.

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> from rankselect.plotting.curves import as_result_dict
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # a fold layout (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> result = rs.protocol.run(root, ["rankrls"], grid={"rankrls": {"alpha": [1.0]}}, progress=False)
    >>> sorted(as_result_dict(result))[:3]
    ['averages', 'convention', 'data_dir']
    """
    if isinstance(result, (str, Path)):
        import json

        result = json.loads(Path(result).read_text())
    if isinstance(result, dict):
        if any(isinstance(r.get("curve"), dict) for f in result.get("folds", []) for r in f.values()):
            return ExperimentResult.from_dict(result).to_dict()  # a file's columns: one dict per grid point
        return result
    return result.to_dict()


# Grid parameters that set the number of features directly (a selection path).
_COUNT_PARAMS = ("k", "t")


def _kind(d: dict, m: str) -> str:
    """How method ``m`` reaches a number of features: ``"path"`` (a count parameter k / t
    in its grid: greedy RankRLS, GAS), ``"single"`` (every grid point uses the same count on
    every fold: the all-feature baselines) or ``"grid"`` (the count follows a
    regularisation parameter and differs between folds: sparse RankSVM, FSMRank)."""
    if any(p in d["grids"].get(m, {}) for p in _COUNT_PARAMS):
        return "path"
    counts = {int(e["n_features"]) for f in d["folds"] for e in f[m]["curve"]}
    return "single" if len(counts) == 1 else "grid"


def _params_key(params: dict) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in params.items()))


def feature_curves(result, metric: str = "MAP", select: Optional[str] = None) -> dict[str, dict[str, Any]]:
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

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # a fold layout (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> grid = {"rankrls": {"alpha": [1.0]}, "greedy-rankrls": {"alpha": [1.0]}}
    >>> result = rs.protocol.run(root, ["rankrls", "greedy-rankrls"], grid=grid, progress=False)
    >>> from rankselect.plotting import feature_curves
    >>> curves = feature_curves(result, metric="MAP")
    >>> sorted(curves)
    ['greedy-rankrls', 'rankrls']
    """
    if metric not in ("MAP", "NDCG@10"):
        raise ValueError(f"metric must be 'MAP' or 'NDCG@10', got {shown(metric)}")
    d = as_result_dict(result)
    if select is None:
        select = d.get("metric") if d.get("metric") in ("MAP", "NDCG@10") else metric
    out = {}
    for m in d["methods"]:
        kind = _kind(d, m)
        varying = [p for p, vs in d["grids"].get(m, {}).items() if len(vs) > 1 and p not in _COUNT_PARAMS]
        if kind in ("path", "single"):
            per_fold = []
            for f in d["folds"]:
                best: dict[int, tuple] = {}
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
            points: dict[tuple, list[tuple]] = defaultdict(list)
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

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # a fold layout (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> grid = {"rankrls": {"alpha": [1.0]}, "greedy-rankrls": {"alpha": [1.0]}}
    >>> result = rs.protocol.run(root, ["rankrls", "greedy-rankrls"], grid=grid, progress=False)
    >>> from rankselect.plotting import plot_feature_curves
    >>> fig = plot_feature_curves(result, metric="MAP")
    >>> type(fig).__name__
    'Figure'
    """
    d = as_result_dict(result)
    curves = feature_curves(d, metric)
    select = d.get("metric") if d.get("metric") in ("MAP", "NDCG@10") else metric
    chosen = d.get("averages", {})
    fig = new_figure((11.0, 5.4))
    ax_v, ax_t = fig.subplots(1, 2, sharey=True)
    handles, labels = [], []
    drawn: dict[str, dict] = {}
    starred = False
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
            starred = True
        handles.append(h)
        labels.append(label + (f"; = {same}, drawn over it" if same else ""))
    from matplotlib.lines import Line2D

    if starred:  # the legend names only what is drawn
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
    kinds = {c["kind"] for c in curves.values()}
    parts = []  # what the lines and markers are: only the kinds drawn
    if "path" in kinds:
        parts.append(f"lines: selection paths, at each count the grid point of best validation {select}")
    if kinds - {"path", "single"}:
        parts.append("markers: one per regularisation value, at its mean count over the folds")
    if "single" in kinds:
        parts.append("dotted lines: the all-feature baselines' level")
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize="small", frameon=False,
               title=";\n".join(parts), title_fontsize="small")
    return fig


def plot_regularization_curves(result, method: str = "greedy-rankrls", metric: str = "MAP", param: str = "alpha",
                               split: str = "vali"):
    """Fold mean of the validation (or test) ``metric`` against the number of features in
    use, one line per value of ``param``, coloured by log2 of the value with a colour bar
    (greedy RankRLS paper, Figs 1-4: average validation MAP / MeanNDCG per lambda).
    ``result`` is an ExperimentResult, its ``to_dict()`` or the path of its JSON.

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # a fold layout (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> grid = {"rankrls": {"alpha": [1.0]}, "greedy-rankrls": {"alpha": [1.0]}}
    >>> result = rs.protocol.run(root, ["rankrls", "greedy-rankrls"], grid=grid, progress=False)
    >>> from rankselect.plotting import plot_regularization_curves
    >>> fig = plot_regularization_curves(result, method="greedy-rankrls", metric="MAP", param="alpha")
    >>> type(fig).__name__
    'Figure'
    """
    d = as_result_dict(result)
    if method not in d["methods"]:
        raise ValueError(f"method {method!r} is not in this result (methods: {', '.join(d['methods'])})")
    if split not in ("vali", "test"):
        raise ValueError(f"split must be 'vali' or 'test', got {split!r}")
    # value -> count -> fold -> score (a count reached twice in a fold, e.g. after an
    # all-zero feature was added, keeps its best validation point)
    table: dict = defaultdict(lambda: defaultdict(dict))
    for fi, f in enumerate(d["folds"]):
        for e in f[method]["curve"]:
            if param not in e["params"]:
                raise ValueError(f"method {method!r} has no parameter {param!r}")
            cell = table[e["params"][param]][int(e["n_features"])]
            if fi not in cell or e["vali"][metric] > cell[fi][0]:
                cell[fi] = (e["vali"][metric], e[split][metric])
    nf = len(d["folds"])
    fig = new_figure((7.4, 4.6))
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
