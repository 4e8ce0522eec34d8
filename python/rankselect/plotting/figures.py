"""The figures of a LETOR protocol run, written as PNG files (:func:`save_experiment_figures`)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np

from ..data.uninformative import constant_columns
from ..protocol import load_folds, single_feature_scores
from ..selection.similarity import kendall_similarity
from .curves import as_result_dict, plot_feature_curves, plot_regularization_curves
from .similarity import SIMILARITY_LABELS, plot_similarity
from .single_feature import plot_single_feature_scores

__all__ = ["save_experiment_figures"]


def save_experiment_figures(result, out_dir, *, fold: Optional[int] = None) -> list[Path]:
    """Write the experiment's figures as PNG into ``out_dir``; returns the paths.

    ``curves_MAP.png``, ``curves_NDCG10.png`` (metric against the number of features),
    ``<method>_alpha_MAP.png`` for greedy RankRLS (per-alpha validation curves),
    ``single_feature_NDCG10.png`` (fold ``fold``'s train vs test) and
    ``kendall_similarity.png`` (:func:`plot_similarity` of fold ``fold``'s training set);
    ``fold`` (1-based) defaults to the first fold of the result.
    ``result`` is an ExperimentResult, its ``to_dict()`` or the path of its JSON (the last
    two figures read the data again from its ``data_dir``).

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
    >>> from rankselect.plotting import save_experiment_figures
    >>> paths = save_experiment_figures(result, tempfile.mkdtemp())
    >>> len(paths) > 0, paths[0].suffix
    (True, '.png')
    """
    d = as_result_dict(result)
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
    constant = np.flatnonzero(constant_columns(f.train.X))
    save(plot_single_feature_scores(tr, te, title=name, constant=(constant + 1).tolist()),
         "single_feature_NDCG10.png")
    S = np.asarray(kendall_similarity(f.train.X, f.train.qid))
    ax = plot_similarity(S, title=f"{name} train: Kendall similarity of the features", hide=constant,
                         colorbar_label=SIMILARITY_LABELS["geng"])
    save(ax.figure, "kendall_similarity.png")
    return written
