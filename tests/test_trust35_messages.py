"""Clear errors instead of silent or late failures (issue 35, items 14 and 15): a C too large
for double precision, an empty ``n_features``, a typo feature index under a small memory limit,
a negative label shown as a plain number."""
from __future__ import annotations

import numpy as np
import pytest

import rankselect as rs
from rankselect.analysis.inspection import evaluate_path


@pytest.fixture(scope="module")
def example():
    return rs.data.datasets.load_example("train")


@pytest.mark.parametrize("C", [1e300, 1e120])
def test_ranksvm_refuses_a_C_that_overflows(example, C):
    X, y, qid = example
    with pytest.raises(ValueError, match=r"C=1e\+\d+ is too large for these data"):
        rs.RankSVM(C=C).fit(X, y, qid=qid)


def test_ranksvm_large_but_representable_C_still_fits(example):
    X, y, qid = example
    big = rs.RankSVM(C=1e60).fit(X, y, qid=qid)
    assert np.all(np.isfinite(big.coef_)) and np.abs(big.coef_).max() > 0


def test_evaluate_path_refuses_empty_n_features(example):
    X, y, qid = example
    train = vali = (X, y, qid)
    with pytest.raises(ValueError, match="n_features must name at least one subset size"):
        evaluate_path([0, 1], rs.RankRLS(), train, vali, n_features=[])


def test_negative_label_message_shows_a_plain_number():
    y = np.array([-1.0, 0.0, 1.0, 0.0])
    with pytest.raises(ValueError) as exc:
        rs.metrics.ndcg(y, np.arange(4.0), np.array([1, 1, 2, 2]))
    assert "row 0 has -1.0" in str(exc.value) and "np.float64" not in str(exc.value)


def test_typo_index_under_a_small_memory_limit_is_the_density_error(tmp_path):
    """The density rule's ValueError naming the line comes before the memory rule's MemoryError."""
    path = tmp_path / "typo.txt"
    path.write_text("1 qid:1 1:1\n0 qid:1 999999999:1\n")
    with rs.config_context(max_memory=2**20):
        with pytest.raises(ValueError, match=r"line 2: feature index 999999999"):
            rs.load_letor(path)
