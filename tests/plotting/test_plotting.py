"""Figures as a reader of the papers looks at them (issue 17.3): the legend stays off the
data, every legend entry has a curve, one-point methods are markers at their count, the
per-alpha figure has a colour bar instead of a 21-entry legend, single-feature labels do not
overlap and name the fold, heat maps label their colour bar; counts are features in use."""
from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from rankselect import plotting  # noqa: E402
from rankselect.protocol import run  # noqa: E402


def _entry(params, n, v, t):
    return {"params": params, "n_features": n, "vali": {"MAP": v, "NDCG@10": v / 2},
            "test": {"MAP": t, "NDCG@10": t / 2}}


def synthetic_result(n_folds=3):
    """A stored-result dict: a greedy path (k), an all-feature baseline (alpha), a sparse
    method whose count follows C and differs between folds, and a two-parameter one."""
    folds = []
    rng = np.random.default_rng(0)
    for f in range(n_folds):
        greedy = [_entry({"alpha": a, "k": k}, k, 0.4 + 0.01 * k + a / 100, 0.38 + 0.01 * k)
                  for a in (0.5, 1.0, 2.0) for k in range(1, 11)]
        base = [_entry({"alpha": a}, 10, 0.45 + a / 100, 0.43) for a in (0.5, 1.0, 2.0)]
        sparse = [_entry({"C": C}, min(10, i + 1 + f), 0.41 + 0.005 * i, 0.40 + 0.004 * i)
                  for i, C in enumerate((0.01, 0.1, 1.0, 10.0))]
        fsm = [_entry({"lambda1": l1, "lambda2": l2}, int(rng.integers(2, 9)), 0.42, 0.41)
               for l1 in (0.1, 1.0) for l2 in (0.01, 0.1)]
        folds.append({"greedy-rankrls": {"curve": greedy}, "rankrls": {"curve": base},
                      "sparse-ranksvm": {"curve": sparse}, "fsmrank": {"curve": fsm}})
    return {
        "data_dir": "/data/SYN", "methods": ["greedy-rankrls", "rankrls", "sparse-ranksvm", "fsmrank"],
        "metric": "MAP", "convention": "letor",
        "grids": {"greedy-rankrls": {"alpha": [0.5, 1.0, 2.0], "k": list(range(1, 11))},
                  "rankrls": {"alpha": [0.5, 1.0, 2.0]}, "sparse-ranksvm": {"C": [0.01, 0.1, 1.0, 10.0]},
                  "fsmrank": {"lambda1": [0.1, 1.0], "lambda2": [0.01, 0.1]}},
        "averages": {m: {"MAP": 0.42, "NDCG@10": 0.21, "n_features": 5.0}
                     for m in ("greedy-rankrls", "rankrls", "sparse-ranksvm", "fsmrank")},
        "folds": folds,
    }


def _renderer(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _overlap(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_feature_curves_kinds():
    curves = plotting.feature_curves(synthetic_result(), "MAP")
    g = curves["greedy-rankrls"]
    assert g["kind"] == "path" and list(g["n"]) == list(range(1, 11))
    # at each count, the alpha of best validation MAP (alpha = 2)
    np.testing.assert_allclose(g["vali"], [0.4 + 0.01 * k + 0.02 for k in range(1, 11)])
    b = curves["rankrls"]
    assert b["kind"] == "single" and list(b["n"]) == [10]  # one point: the chosen model
    np.testing.assert_allclose(b["vali"], [0.47])
    s = curves["sparse-ranksvm"]
    assert s["kind"] == "grid" and s["varying"] == ["C"] and s["n"].size == 4
    np.testing.assert_allclose(s["n"], [2, 3, 4, 5])  # fold means of the counts, in C order
    f = curves["fsmrank"]
    assert f["kind"] == "grid" and f["varying"] == ["lambda1", "lambda2"] and f["n"].size == 4


def test_feature_curves_figure_reads_right(tmp_path):
    d = synthetic_result()
    path = tmp_path / "experiment.json"
    path.write_text(json.dumps(d))
    fig = plotting.plot_feature_curves(path, "MAP")  # straight from the stored JSON
    fig.savefig(tmp_path / "c.png")
    renderer = _renderer(fig)
    axes = [ax for ax in fig.axes]
    assert len(axes) == 2 and [ax.get_title() for ax in axes] == ["validation MAP", "test MAP"]
    (legend,) = fig.legends
    box = legend.get_window_extent(renderer)
    for ax in axes:
        assert not ax.get_legend()
        assert not _overlap(box, ax.get_window_extent(renderer)), "the legend covers a panel"
    texts = [t.get_text() for t in legend.get_texts()]
    assert any(t.startswith("rankrls (all 10 features)") for t in texts)
    assert any(t.startswith("fsmrank (a point per lambda1 x lambda2)") for t in texts)
    # every legend entry stands for something drawn with data
    for handle, text in zip(legend.legend_handles, texts):
        if text.startswith("chosen by validation"):
            continue
        assert len(handle.get_xdata()) > 0, text
    # the baseline is one marker at its count, not a line over the whole axis
    lines = [ln for ln in axes[0].get_lines() if ln.get_color() == "C1" and ln.get_marker() not in ("None", None, "")]
    assert len(lines) == 1 and list(lines[0].get_xdata()) == [10]


def test_regularization_curves_colour_bar_not_legend(tmp_path):
    fig = plotting.plot_regularization_curves(synthetic_result(), "greedy-rankrls", "MAP")
    fig.savefig(tmp_path / "a.png")
    main_ax = fig.axes[0]
    assert main_ax.get_legend() is None
    assert len(fig.axes) == 2 and fig.axes[1].get_ylabel() == "log2 alpha"
    assert len(main_ax.get_lines()) == 3


def test_single_feature_labels_do_not_overlap_and_name_the_fold(tmp_path):
    rng = np.random.default_rng(1)
    tr = np.r_[rng.normal(0.15, 0.01, 30), [0.11] * 5]
    te = np.r_[tr[:30] + rng.normal(0, 0.005, 30), [0.10] * 5]
    fig = plotting.plot_single_feature_scores(tr, te, title="SYN Fold2", constant=[31, 32, 33, 34, 35])
    fig.savefig(tmp_path / "s.png")
    ax = fig.axes[0]
    assert "SYN Fold2" in ax.get_title()
    renderer = _renderer(fig)
    labels = [t for t in ax.texts]
    texts = [t.get_text() for t in labels]
    assert "31, 32, 33, 34, 35" in texts  # coincident points share one label
    assert sorted(int(j) for t in texts for j in t.split(", ")) == list(range(1, 36))
    boxes = [t.get_window_extent(renderer) for t in labels]
    overlaps = sum(_overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    assert overlaps == 0


def test_similarity_colour_bar_label_and_hidden_features(tmp_path):
    S = np.eye(4) * 0.8
    ax = plotting.plot_similarity(S, colorbar_label=plotting.SIMILARITY_LABELS["geng"], hide=[2])
    fig = ax.figure
    fig.savefig(tmp_path / "k.png")
    bar_ax = fig.axes[1]
    assert "Geng" in bar_ax.get_ylabel()
    assert "grey: feature" in ax.get_xlabel() and "3" in ax.get_xlabel()
    assert plotting.plot_similarity(S).figure.axes[1].get_ylabel() == "similarity"


def test_curve_counts_are_features_in_use(tmp_path):
    """The curve's count is the table's: features with a non-zero weight, not counting a
    column that is zero on every training row (RankRLS leaves round-off there)."""
    from rankselect.data import RankingData, save_letor
    from rankselect.data.datasets import make_ranking

    root = tmp_path / "Z"
    for f in range(1, 6):
        (root / f"Fold{f}").mkdir(parents=True)
        for i, split in enumerate(("train", "vali", "test")):
            d = make_ranking(n_queries=8, docs_per_query=10, n_informative=3, n_redundant=0, n_noise=1,
                             random_state=10 * f + i)
            X = np.c_[np.asarray(d.X), np.zeros(len(d.y))]  # last column zero everywhere
            save_letor(root / f"Fold{f}" / f"{split}.txt", RankingData(X, d.y, d.qid))
    res = run(root, ["rankrls"], grid={"rankrls": {"alpha": [1.0]}}, progress=False, folds=[1])
    (entry,) = res.folds[0]["rankrls"].curve
    n_columns = res.n_features
    assert entry["n_features"] == n_columns - 1 == res.folds[0]["rankrls"].n_features


def test_single_method_legend_names_only_what_is_drawn():
    """Issue 35: a figure of one selection path names no markers, baselines or stars."""
    d = synthetic_result()
    d["methods"] = ["greedy-rankrls"]
    d["folds"] = [{"greedy-rankrls": f["greedy-rankrls"]} for f in d["folds"]]
    d["averages"] = {}  # no chosen model stored: no star
    fig = plotting.plot_feature_curves(d, "MAP")
    (legend,) = fig.legends
    title = legend.get_title().get_text()
    assert title.startswith("lines: selection paths") and "markers" not in title and "dotted" not in title
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts == ["greedy-rankrls"]
    d["averages"] = {"greedy-rankrls": {"MAP": 0.42, "n_features": 5.0}}  # a chosen model: a star, named
    texts = [t.get_text() for t in plotting.plot_feature_curves(d, "MAP").legends[0].get_texts()]
    assert texts[-1].startswith("chosen by validation")
