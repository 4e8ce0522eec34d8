"""The page grows linearly with the features (issue 40: a page of 1,000 features was 20.8 MB
and grew as n^2, the redundancy matrix of every pair being sent): the matrix holds the features
that matter, the pairs list the closest ones, the hand-off sizes are bounded."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("bokeh")
pytest.importorskip("jinja2")

import rankselect as rs  # noqa: E402
from rankselect.report import build_report, write_report  # noqa: E402


def _split(n: int, n_queries: int, seed: int):
    rng = np.random.default_rng(seed)
    m = 10 * n_queries
    X = rng.normal(size=(m, n))
    X[:, 1::7] = X[:, 0::7][:, : X[:, 1::7].shape[1]] + 0.05 * rng.normal(size=(m, X[:, 1::7].shape[1]))
    y = (X[:, :5].sum(axis=1) + rng.normal(size=m) > 1).astype(float)
    return X, y, np.repeat(np.arange(n_queries), 10)


def _page(n: int, tmp_path) -> int:
    train, vali = _split(n, 60, 1), _split(n, 30, 2)
    sel = rs.GreedyRankRLS(n_features_to_select=10).fit(*train)
    names = [f"feature number {j} of a long layout" for j in range(n)]
    page = write_report(sel, tmp_path / f"p{n}.html", train=train, vali=vali, feature_names=names, n_resamples=0,
                        progress=False)
    return page.stat().st_size


def test_page_size_is_linear_in_the_features(tmp_path):
    from rankselect.report._html import RESOURCES

    base = len(RESOURCES.render().encode())  # BokehJS, the same on every page
    small, large = _page(250, tmp_path), _page(1000, tmp_path)
    assert large < 3_000_000
    assert large - base <= 4.5 * (small - base), (small, large, base)  # n^2 would be 16x


def test_redundancy_matrix_holds_the_features_that_matter():
    train, vali = _split(300, 40, 1), _split(300, 20, 2)
    sel = rs.GreedyRankRLS(n_features_to_select=8).fit(*train)
    d = build_report(sel, train=train, vali=vali, n_resamples=0, progress=False)
    red = d.redundancy
    assert red is not None and red.n_features == 300
    assert len(red.shown) == len(red.matrix) == 60
    assert set(d.subsets[d.default_k]) <= set(red.shown)
    a, b, s = red.pairs[0]
    assert s > 0.99 and b - a == 1 and a % 7 == 0  # the made-up near-duplicates come first
