"""The redundancy report: clusters at a threshold, representatives, the figure, the CLI."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rankselect import redundancy_report, spearman_similarity


def _data(seed=0):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(20), 6)
    base = rng.normal(size=(qid.size, 3))
    X = np.column_stack([base[:, 0], base[:, 1], 2 * base[:, 0] + 1e-3 * rng.normal(size=qid.size),
                         -base[:, 1], base[:, 2], np.zeros(qid.size)])
    y = (base[:, 0] > 0).astype(float) + (base[:, 1] > 1)
    return X, y, qid


def test_clusters_are_the_pairs_above_threshold():
    X, y, qid = _data()
    r = redundancy_report(X, qid, y, threshold=0.9)
    assert [c.tolist() for c in r.redundant] == [[0, 2], [1, 3]]  # a negation is a duplicate
    assert sorted(j for c in r.clusters for j in c.tolist()) == list(range(6))
    np.testing.assert_array_equal(r.similarity, spearman_similarity(X))
    for c in r.redundant:  # complete linkage: every pair inside at least the threshold
        block = r.similarity[np.ix_(c, c)]
        assert block.min() >= 0.9
    assert r.n_redundant_features == 2
    d = r.to_dict()
    assert d["clusters"][0]["features"] == [1, 3] and "keep" in r.summary()


def test_representative_is_most_important_and_kendall_option():
    X, y, qid = _data()
    imp = np.array([0.1, 0.5, 0.9, 0.2, 0.3, 0.0])
    r = redundancy_report(X, similarity="spearman", importance=imp, threshold=0.9)
    reps = dict(zip([tuple(c.tolist()) for c in r.clusters], r.representatives.tolist()))
    assert reps[(0, 2)] == 2 and reps[(1, 3)] == 1
    k = redundancy_report(X, qid, similarity="tau_b", threshold=0.9, feature_names=list("abcdef"))
    assert [c.tolist() for c in k.redundant] == [[0, 2], [1, 3]] and k.feature_names[0] == "a"
    with pytest.raises(ValueError, match="needs qid"):
        redundancy_report(X, similarity="geng")
    with pytest.raises(ValueError, match="threshold"):
        redundancy_report(X, threshold=0.0)


def test_single_linkage_chains():
    rng = np.random.default_rng(1)
    a = rng.normal(size=200)
    b = a + 0.35 * rng.normal(size=200)
    c = b + 0.35 * rng.normal(size=200)
    X = np.column_stack([a, b, c])
    s = spearman_similarity(X)
    t = (min(s[0, 1], s[1, 2]) + s[0, 2]) / 2  # a-b and b-c above, a-c below
    assert s[0, 2] < t < min(s[0, 1], s[1, 2])
    assert len(redundancy_report(X, threshold=t, linkage_method="single").redundant[0]) == 3
    assert len(redundancy_report(X, threshold=t, linkage_method="complete").redundant[0]) == 2


def test_figure():
    pytest.importorskip("matplotlib")
    from rankselect.plotting import plot_redundancy

    X, y, qid = _data()
    fig = plot_redundancy(redundancy_report(X, threshold=0.9))
    heat = fig.axes[1]
    assert [t.get_text() for t in heat.get_xticklabels()] and len(heat.patches) == 2


def test_cli(tmp_path, capsys):
    """``rankselect redundancy`` through :func:`rankselect.cli.main`, the function the console
    script runs (the process itself is tested in tests/cli/test_cli_process.py)."""
    import rankselect
    from rankselect.cli import main

    X, y, qid = _data()
    path = tmp_path / "train.txt"
    rankselect.save_letor(path, rankselect.RankingData(X, y, qid))
    run = ["redundancy", str(path), "--threshold", "0.9"]
    assert main(run + ["--json"]) == 0
    clusters = json.loads(capsys.readouterr().out)["clusters"]
    assert [c["features"] for c in clusters] == [[1, 3], [2, 4]]  # feature numbers, as numbers (#40)
    assert [c["names"] for c in clusters] == [["1", "3"], ["2", "4"]]
    assert main(run[:-1] + ["1.5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "threshold" in err


def test_threshold_takes_any_real_number_but_a_bool():
    """Issue 40: ``np.float32(0.9)`` was refused and ``True`` accepted as 1."""
    X, y, qid = _data()
    expected = redundancy_report(X, threshold=0.9)
    for t in (np.float32(0.9), np.float64(0.9)):
        r = redundancy_report(X, threshold=t)
        assert [c.tolist() for c in r.redundant] == [c.tolist() for c in expected.redundant]
    for bad in (True, np.bool_(True), "0.9"):
        with pytest.raises(ValueError, match="threshold must be in"):
            redundancy_report(X, threshold=bad)
