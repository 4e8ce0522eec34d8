"""Data input found unclear by issue 40's reliability campaign: the hand-written group and cost
files (comments, a BOM, a Latin-1 byte, a huge field, an unterminated quote), labels (2-D,
strings, strings mixed with numbers) and query ids of ``query_splits`` (NaN, 2-D, a string
as ``cv``). Each is one clear exception naming the file and line, the row or the argument."""
from __future__ import annotations

import codecs
import warnings

import numpy as np
import pytest

import rankselect as rs
from rankselect import metrics
from rankselect.analysis.costs import read_costs
from rankselect.data import read_feature_groups
from rankselect.data.splits import query_splits

# ---------------------------------------------------------------- the group and cost files


def _groups(tmp_path, data: bytes, n: int = 2):
    path = tmp_path / "groups.csv"
    path.write_bytes(data)
    return read_feature_groups(path, n), str(path)


def test_hash_starts_a_comment_in_a_group_file(tmp_path):
    (groups, costs), _ = _groups(tmp_path, b"# feature,group,cost\n1,body # TF\n2,title,3 # BM25\n")
    assert groups.names == ("body", "title") and costs.tolist() == [0.0, 3.0]


def test_a_byte_order_mark_is_skipped(tmp_path):
    (groups, _), _ = _groups(tmp_path, codecs.BOM_UTF8 + b"feature,group\r\n1,body\r\n2,title\r\n")
    assert groups.names == ("body", "title")
    path = tmp_path / "costs.csv"
    path.write_bytes(codecs.BOM_UTF8 + b"0.5\n2\n")  # the first cost was read as a header
    assert read_costs(path, 2).tolist() == [0.5, 2.0]


@pytest.mark.parametrize("data,line,says", [
    (b"1,body\n2,t\xe9tle\n", 2, "not UTF-8 text (byte 0xe9 at column 4)"),
    (b"1,body\n2," + b"x" * 200_000 + b"\n", 2, "a field longer than"),
    (b'1,"body\n2,title\n', 1, "a quote that is not closed on its line"),
    (b"1,body\n" + b"9" * 5000 + b",title\n", 2, "is not an integer"),
])
def test_unreadable_group_files_name_the_file_and_line(tmp_path, data, line, says):
    with pytest.raises(ValueError) as exc:
        _groups(tmp_path, data)
    message = str(exc.value)
    assert message.startswith(f"{tmp_path / 'groups.csv'}, line {line}: ") and says in message
    assert len(message) < 300


def test_an_unreadable_cost_file_names_the_line(tmp_path):
    path = tmp_path / "costs.csv"
    path.write_bytes(b"1\n\xff\n")
    with pytest.raises(ValueError, match=r"costs.csv, line 2: not UTF-8 text"):
        read_costs(path, 2)


def test_the_cli_reports_a_bad_group_file_in_one_line(tmp_path, capsys):
    from rankselect.cli import main

    data = rs.data.datasets.load_example("train")
    train = tmp_path / "train.txt"
    rs.save_letor(train, data)
    groups = tmp_path / "groups.csv"
    groups.write_bytes(b'1,"body\n')
    assert main(["select", "--method", "greedy-rankrls", "--groups", str(groups), str(train)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 1: a quote that is not closed" in err


# ---------------------------------------------------------------- labels

def _data():
    rng = np.random.default_rng(0)
    return rng.random((40, 3)), rng.integers(0, 3, 40).astype(float), np.repeat(np.arange(4), 10)


@pytest.mark.parametrize("shape", [(40, 1), (1, 40), (20, 2)])
def test_2d_labels_are_refused_outside_fit(shape):
    X, y, q = _data()
    for call in (lambda: metrics.ndcg(y.reshape(shape), y, q), lambda: metrics.evaluate(y.reshape(shape), y, q),
                 lambda: rs.preference_pairs(y.reshape(shape), q), lambda: rs.RankingData(X, y.reshape(shape), q)):
        with pytest.raises(ValueError, match=r"y must (be 1-D|have shape)"):
            call()


def test_fit_takes_a_column_with_a_warning_and_refuses_other_2d_labels():
    """scikit-learn's contract (check_estimator's check_supervised_y_2d): a column is ravelled
    with a DataConversionWarning; any other 2-D y is refused."""
    from sklearn.exceptions import DataConversionWarning

    X, y, q = _data()
    with pytest.warns(DataConversionWarning):
        rs.RankRLS().fit(X, y.reshape(40, 1), qid=q)
    with pytest.raises(ValueError, match="y"):
        rs.RankRLS().fit(X, y.reshape(20, 2), qid=q)


@pytest.mark.parametrize("labels,says", [
    (np.array([1] * 20 + ["1"] * 20, dtype=object), "mixes numbers and strings (1 at row 0, '1' at row 20)"),
    (np.array(["1", "2"] * 20), "holds strings ('1' at row 0)"),
    (np.array([1, None] * 20, dtype=object), "row 1 holds NoneType"),
])
def test_labels_that_are_not_numbers_are_refused(labels, says):
    X, _, q = _data()
    for call in (lambda: rs.RankRLS().fit(X, labels, qid=q), lambda: rs.GreedyRankRLS(2).fit(X, labels, qid=q),
                 lambda: rs.RankingData(X, labels, q)):
        with pytest.raises(TypeError) as exc:
            call()
        assert says in str(exc.value)
    with pytest.raises(TypeError, match="numeric"):
        metrics.ndcg(labels, np.zeros(40), q)


def test_numeric_object_labels_still_work():
    X, y, q = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = rs.RankRLS().fit(X, y.astype(object), qid=q).coef_
    np.testing.assert_array_equal(a, rs.RankRLS().fit(X, y, qid=q).coef_)


# ---------------------------------------------------------------- query ids of query_splits

def test_query_splits_refuses_a_nan_query_id():
    qid = np.array([1, 1, np.nan, np.nan, 2, 2, 3, 3])
    with pytest.raises(ValueError, match=r"qid must hold integers; row 2 has nan"):
        query_splits(2, qid)


def test_query_splits_refuses_2d_query_ids():
    with pytest.raises(ValueError, match=r"qid must be 1-D"):
        query_splits(2, np.repeat(np.arange(3), 2).reshape(3, 2))


@pytest.mark.parametrize("cv", ["abc", b"abc"])
def test_query_splits_names_a_string_cv(cv):
    with pytest.raises(TypeError, match=r"cv must be an int, a splitter or an iterable of \(train, test\) pairs"):
        query_splits(cv, np.repeat(np.arange(3), 2))
