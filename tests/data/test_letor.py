"""Data layer: load_letor against scikit-learn, bad input, folds, the synthetic generator,
the shipped example and ``rankselect info``."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import rankselect
from conftest import shared_path
from rankselect import RankingData, load_letor, load_letor_folds, save_letor
from rankselect.cli import main as cli_main
from rankselect.data.datasets import (
    EXAMPLE_DIGITS,
    example_path,
    example_splits,
    example_truth,
    load_example,
    make_ranking,
    write_example,
)


def sk_load(path, **kw):
    X, y, q = load_svmlight_file(str(path), query_id=True, **kw)
    return X.toarray(), y, q


def assert_same(data: RankingData, ref) -> None:
    X, y, q = ref
    assert data.X.dtype == X.dtype
    assert data.X.shape == X.shape
    # bit-identical, not merely close
    assert np.array_equal(data.X.view(np.uint8), np.ascontiguousarray(X).view(np.uint8))
    assert np.array_equal(data.y.view(np.uint64), y.astype(np.float64).view(np.uint64))
    assert data.qid.dtype == np.int64
    assert np.array_equal(data.qid, q)


def write(tmp_path: Path, text: str, name: str = "f.txt") -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode())
    return p


# --- equality with scikit-learn on the real data ------------------------------------------

SHARED_FILES = (
    [("MQ2008", f"S{i}.txt") for i in range(1, 6)]
    + [("MQ2008", f"Fold{i}", s) for i in (1, 3) for s in ("train.txt", "vali.txt", "test.txt")]
    + [("OHSUMED-LETOR2", f"S{i}.txt") for i in range(1, 6)]
    + [("LightGBM-lambdarank", "train.txt"), ("LightGBM-lambdarank", "test.txt")]
)


@pytest.mark.parametrize("parts", SHARED_FILES, ids=["/".join(p) for p in SHARED_FILES])
def test_equals_sklearn_on_shared_data(parts):
    path = shared_path(*parts)
    data = load_letor(path)
    assert_same(data, sk_load(path))
    assert data.n_queries == len(np.unique(data.qid))


def test_float32_equals_sklearn_on_shared_data():
    path = shared_path("OHSUMED-LETOR2", "S1.txt")
    data = load_letor(path, dtype=np.float32)
    assert data.X.dtype == np.float32
    assert_same(data, sk_load(path, dtype=np.float32))
    assert np.array_equal(data.X, load_letor(path).X.astype(np.float32))


def test_comments_on_shared_data():
    path = shared_path("OHSUMED-LETOR2", "S1.txt")
    data = load_letor(path, comments=True)
    lines = [ln for ln in path.read_text().splitlines() if ln.split("#")[0].strip()]
    assert data.comments == [ln.split("#", 1)[1].strip() if "#" in ln else "" for ln in lines]
    assert data.comments[0].startswith("docid")


def test_folds_on_shared_mq2008():
    folds = load_letor_folds(shared_path("MQ2008"))
    assert [f.name for f in folds] == [f"Fold{i}" for i in range(1, 6)]
    for f in folds:
        assert f.train.n_features == f.vali.n_features == f.test.n_features == 46
    assert_same(folds[1].test, sk_load(shared_path("MQ2008", "Fold2", "test.txt")))


# --- hypothesis round trip through scikit-learn's writer -----------------------------------

# |v| <= 1e300: sklearn writes 16 significant digits, so DBL_MAX would read back as inf
finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False, width=64)
values = st.one_of(finite, st.just(0.0), st.sampled_from([1.0, -0.5, 1e-300, 5e-324, -0.0, 1e300]))


@st.composite
def ranking_sets(draw):
    m = draw(st.integers(1, 25))
    n = draw(st.integers(1, 8))
    X = draw(hnp.arrays(np.float64, (m, n), elements=values))
    # many exact zeros: absent in the file
    X[draw(hnp.arrays(np.bool_, (m, n)))] = 0.0
    y = draw(hnp.arrays(np.float64, (m,), elements=st.one_of(st.integers(0, 4).map(float), finite)))
    qid = draw(hnp.arrays(np.int64, (m,), elements=st.integers(-(2**40), 2**40)))
    if draw(st.booleans()):
        qid = np.sort(qid)
    return X, y, qid


@pytest.mark.filterwarnings("ignore:.*not contiguous in the file")  # random qids
@settings(max_examples=40, deadline=None)
@given(ranking_sets(), st.booleans())
def test_round_trip_through_dump_svmlight_file(tmp_path_factory, data, gz):
    X, y, qid = data
    d = tmp_path_factory.mktemp("rt")
    plain = d / "f.txt"
    dump_svmlight_file(X, y, str(plain), zero_based=False, query_id=qid)
    path = plain
    if gz:
        path = d / "f.txt.gz"
        path.write_bytes(gzip.compress(plain.read_bytes()))
    got = load_letor(path, n_features=X.shape[1])
    ref = sk_load(plain, n_features=X.shape[1])
    assert_same(got, ref)
    assert np.array_equal(got.qid, qid)
    # what was written at 16 significant digits reads back within that precision
    assert np.allclose(got.X, X, rtol=1e-15, atol=0)


@pytest.mark.filterwarnings("ignore:.*not contiguous in the file")  # random qids
@settings(max_examples=25, deadline=None)
@given(ranking_sets())
def test_save_letor_round_trips_exactly(tmp_path_factory, data):
    X, y, qid = data
    p = tmp_path_factory.mktemp("sv") / "f.txt"
    save_letor(p, (X, y, qid))
    got = load_letor(p, n_features=X.shape[1])
    assert np.array_equal(got.X.view(np.uint64), X.view(np.uint64)) or np.array_equal(got.X, X)
    assert np.array_equal(got.y, y) and np.array_equal(got.qid, qid)
    assert_same(got, sk_load(p, n_features=X.shape[1]))


# --- options and layout -------------------------------------------------------------------


def test_basic_parse_comments_crlf_blank_lines(tmp_path):
    text = (
        "# header comment\n"
        "2 qid:10 1:0.5 3:-2 #docid = A  \r\n"
        "\n"
        "   \t\n"
        "0 qid:10 2:1e-3\r\n"
        "1 qid:7 3:4 # B\n"
    )
    p = write(tmp_path, text)
    d = load_letor(p, comments=True)
    assert d.X.tolist() == [[0.5, 0, -2], [0, 1e-3, 0], [0, 0, 4]]
    assert d.y.tolist() == [2, 0, 1]
    assert d.qid.tolist() == [10, 10, 7]
    assert d.comments == ["docid = A", "", "B"]
    assert (d.n_samples, d.n_features, d.n_queries) == (3, 3, 2)
    X, y, qid = d
    assert X is d.X and y is d.y and qid is d.qid
    assert load_letor(p).comments is None
    assert_same(load_letor(p), sk_load(p))


def test_n_features_pads_and_float32(tmp_path):
    p = write(tmp_path, "1 qid:1 1:0.1 2:0.2\n0 qid:1 2:0.3\n")
    d = load_letor(p, n_features=5, dtype=np.float32)
    assert d.X.shape == (2, 5) and d.X.dtype == np.float32
    assert np.array_equal(d.X[:, :2], np.array([[0.1, 0.2], [0, 0.3]]).astype(np.float32))
    assert d.y.dtype == np.float64


def test_float32_overflow_is_an_error(tmp_path):
    p = write(tmp_path, "1 qid:1 1:1\n0 qid:1 1:1e39\n")
    with pytest.raises(ValueError, match="line 2: .*overflows float32"):
        load_letor(p, dtype=np.float32)
    assert load_letor(p).X[1, 0] == 1e39


def test_non_contiguous_queries_are_kept_in_file_order(tmp_path):
    p = write(tmp_path, "1 qid:1 1:1\n0 qid:2 1:2\n2 qid:1 1:3\n0 qid:2 1:4\n")
    with pytest.warns(UserWarning, match=r"2 queries have rows that are not contiguous.*qid 1, .*data row 3"):
        d = load_letor(p)
    assert d.qid.tolist() == [1, 2, 1, 2]
    assert d.X[:, 0].tolist() == [1, 2, 3, 4]
    assert d.n_queries == 2
    assert d.n_split_queries == 2
    g = rankselect.QueryGroups.from_qid(d.qid)
    assert g.n_queries == 2


def test_split_queries_warned_once_and_counted(tmp_path):
    import warnings

    from rankselect.data import split_queries

    # qid 7 comes back after qid 3 (concatenated files); qid 3 and 5 are contiguous
    p = write(tmp_path, "1 qid:7 1:1\n0 qid:7 1:2\n1 qid:3 1:1\n0 qid:3 1:1\n"
                        "1 qid:7 1:3\n1 qid:5 1:3\n0 qid:5 1:3\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = load_letor(p)
    split = [w for w in caught if "not contiguous" in str(w.message)]
    assert len(split) == 1 and issubclass(split[0].category, UserWarning)
    assert "1 query has" in str(split[0].message) and "qid 7" in str(split[0].message)
    assert str(p) in str(split[0].message)
    assert d.n_split_queries == 1 and d.n_queries == 3
    assert split_queries([4, 4, 2, 2, 4, 2, 9]) == (2, 4, 4)
    assert split_queries([1, 1, 2, 3, 3]) == (0, None, None)
    assert split_queries([]) == (0, None, None)
    # contiguous files load without a warning
    q = write(tmp_path, "1 qid:1 1:1\n0 qid:1 1:2\n1 qid:2 1:1\n", name="ok.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_letor(q).n_split_queries == 0


def test_gzip_by_content(tmp_path):
    text = "1 qid:1 1:1.25 2:3\n0 qid:2 2:-1\n"
    p = tmp_path / "data.txt.gz"
    p.write_bytes(gzip.compress(text.encode()))
    q = write(tmp_path, text)
    assert_same(load_letor(p), sk_load(q))


def test_nonfinite_on_request(tmp_path):
    p = write(tmp_path, "1 qid:1 1:nan 2:inf\n")
    with pytest.raises(ValueError, match="line 1: .*not finite"):
        load_letor(p)
    d = load_letor(p, allow_nonfinite=True)
    assert np.isnan(d.X[0, 0]) and d.X[0, 1] == np.inf


# --- bad input ----------------------------------------------------------------------------

BAD = [
    ("1 qid:1 1:1\nabc qid:1 1:1\n", 2, "label 'abc' is not a number"),
    ("1 qid:1 1:1\n1 qid:1 2:x\n", 2, "value of feature 2 'x' is not a number"),
    ("# c\n\n1 1:0.5\n", 3, "missing qid"),
    ("1\n", 1, "missing qid"),
    ("1 qid:1 1:1\n1 qid:one 1:1\n", 2, "qid 'one' is not an integer"),
    ("1 qid:2.5 1:1\n", 1, "qid '2.5' is not an integer"),
    ("1 qid:1 0:1 1:1\n", 1, "feature index 0"),
    ("1 qid:1 1:1\n1 qid:1 1:1 3:1 2:1\n", 2, "ascending: 2 after 3"),
    ("1 qid:1 1:1 1:2\n", 1, "duplicate feature index 1"),
    ("1 qid:1 1:nan\n", 1, "not finite"),
    ("1 qid:1 1:1\n1 qid:1 1:-inf\n", 2, "not finite"),
    ("nan qid:1 1:1\n", 1, "label 'nan' is not finite"),
    ("1 qid:1 1:1e400\n", 1, "not finite"),
    ("1 qid:1 1:1 2\n", 1, "expected '<index>:<value>'"),
    ("1 qid:1 a:1\n", 1, "feature index 'a' is not a positive integer"),
    ("1 qid:1 1:\n", 1, "value of feature 1 '' is not a number"),
    ("1 qid:1 1:1\r\n1 qid:1 1:1\r\n\r\n1 qid:1 1:1 1:1\r\n", 4, "duplicate"),
]


@pytest.mark.parametrize("text,line,msg", BAD)
def test_bad_input_names_line(tmp_path, text, line, msg):
    p = write(tmp_path, text)
    with pytest.raises(ValueError, match=rf"f\.txt: line {line}: .*{__import__('re').escape(msg)}"):
        load_letor(p)


def test_index_above_n_features(tmp_path):
    p = write(tmp_path, "1 qid:1 1:1 2:1\n0 qid:1 5:1\n")
    with pytest.raises(ValueError, match="line 2: feature index 5 exceeds n_features=3"):
        load_letor(p, n_features=3)


def test_line_numbers_in_a_large_file(tmp_path):
    # several parse chunks (1 MiB each): the error line must still be exact
    rows = [f"{i % 3} qid:{i // 50} 1:{i * 0.001:.6f} 2:{-i * 0.5:.6f} 3:1" for i in range(60000)]
    rows.insert(1000, "# a comment line")
    rows.insert(30000, "")
    bad_at = 52345
    rows[bad_at] = rows[bad_at].replace("2:", "7:")  # 7 then 3: not ascending
    p = write(tmp_path, "\n".join(rows) + "\n")
    assert p.stat().st_size > 2 * 2**20
    with pytest.raises(ValueError, match=f"line {bad_at + 1}: feature indices must be ascending: 3 after 7"):
        load_letor(p)


@pytest.mark.parametrize("text", ["", "\n\n", "# only comments\n  \n"])
def test_empty_file(tmp_path, text):
    p = write(tmp_path, text)
    with pytest.raises(ValueError, match="no data rows"):
        load_letor(p)


def test_bad_arguments(tmp_path):
    p = write(tmp_path, "1 qid:1 1:1\n")
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        load_letor(tmp_path / "nope.txt")
    with pytest.raises(IsADirectoryError):
        load_letor(tmp_path)
    with pytest.raises(ValueError, match="dtype"):
        load_letor(p, dtype=np.int32)
    with pytest.raises(ValueError, match="n_features"):
        load_letor(p, n_features=0)
    with pytest.raises(TypeError, match="n_features"):
        load_letor(p, n_features=2.5)


def test_ranking_data_validates():
    with pytest.raises(ValueError, match="y must have shape"):
        RankingData(np.zeros((3, 2)), np.zeros(2), np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="qid"):
        RankingData(np.zeros((3, 2)), np.zeros(3), np.zeros(2, dtype=np.int64))


# --- folds --------------------------------------------------------------------------------


def make_folds(root: Path, gz_split=None):
    rng = np.random.default_rng(0)
    for i in range(1, 6):
        d = root / f"Fold{i}"
        d.mkdir(parents=True)
        for s, n_feat in (("train", 4), ("vali", 6 if i == 2 else 4), ("test", 3)):
            X = np.round(rng.normal(size=(6, n_feat)), 3)
            y = rng.integers(0, 3, 6).astype(float)
            qid = np.repeat([i * 10 + 1, i * 10 + 2], 3)
            p = d / f"{s}.txt"
            save_letor(p, (X, y, qid))
            if gz_split == s:
                (d / f"{s}.txt.gz").write_bytes(gzip.compress(p.read_bytes()))
                p.unlink()


def test_load_letor_folds(tmp_path):
    make_folds(tmp_path, gz_split="vali")
    folds = load_letor_folds(tmp_path)
    assert len(folds) == 5
    for i, f in enumerate(folds, start=1):
        assert f.name == f"Fold{i}"
        want = 6 if i == 2 else 4
        assert f.train.n_features == f.vali.n_features == f.test.n_features == want
        ref = sk_load(tmp_path / f.name / "test.txt", n_features=want)
        assert_same(f.test, ref)
        train, vali, test = f
        assert train is f.train
    folds = load_letor_folds(tmp_path, n_features=8)
    assert all(s.n_features == 8 for f in folds for s in f)


def test_load_letor_folds_malformed(tmp_path):
    make_folds(tmp_path)
    (tmp_path / "Fold3" / "vali.txt").unlink()
    with pytest.raises(FileNotFoundError, match=r"Fold3.*vali\.txt"):
        load_letor_folds(tmp_path)
    with pytest.raises(FileNotFoundError, match="no fold directory Fold1"):
        load_letor_folds(tmp_path / "Fold1")
    with pytest.raises(FileNotFoundError, match="not a directory"):
        load_letor_folds(tmp_path / "missing")


# --- synthetic data -----------------------------------------------------------------------


def test_make_ranking_structure():
    d = make_ranking(n_queries=30, docs_per_query=(5, 12), n_informative=3, n_redundant=4,
                     n_noise=5, n_constant=2, label_levels=4, random_state=1)
    t = d.truth
    assert d.n_features == 14 and d.n_queries == 30
    sizes = np.bincount(d.qid)[1:]
    assert sizes.min() >= 5 and sizes.max() <= 12
    groups = [set(t.informative), set(t.redundant_of), set(t.noise), set(t.constant)]
    assert sum(map(len, groups)) == 14 and set().union(*groups) == set(range(14))
    assert set(t.redundant_of.values()) <= set(t.informative)
    assert np.all(d.X[:, t.constant] == 1.0)
    assert set(np.unique(d.y)) == {0, 1, 2, 3}
    assert np.all(np.diff(np.abs(t.weights)) <= 0)
    # the informative weights reproduce the latent ranking better than any other column
    Xc = d.X - np.array([d.X[d.qid == q].mean(0) for q in d.qid])
    score = Xc[:, t.informative] @ t.weights
    assert np.corrcoef(score, d.latent)[0, 1] > 0.8
    corr = [abs(np.corrcoef(Xc[:, j], d.y)[0, 1]) if np.std(Xc[:, j]) > 0 else 0 for j in range(14)]
    best_inf = max(corr[j] for j in t.informative)
    assert best_inf > max(corr[j] for j in t.noise)
    for r, src in t.redundant_of.items():
        assert np.corrcoef(Xc[:, r], Xc[:, src])[0, 1] > 0.7
    # same seed, same data; another seed, other data
    again = make_ranking(n_queries=30, docs_per_query=(5, 12), n_informative=3, n_redundant=4,
                         n_noise=5, n_constant=2, label_levels=4, random_state=1)
    assert np.array_equal(again.X, d.X) and np.array_equal(again.y, d.y)
    other = make_ranking(n_queries=30, random_state=2)
    assert not np.array_equal(other.X[:5, :3], d.X[:5, :3])
    X, y, qid = d
    assert X.shape == (len(y), 14)


def test_make_ranking_unshuffled_layout_and_validation():
    d = make_ranking(n_queries=3, docs_per_query=4, n_informative=2, n_redundant=2, n_noise=1,
                     n_constant=1, shuffle=False, random_state=0)
    assert sorted(d.truth.informative.tolist()) == [0, 1]
    assert d.truth.redundant_of == {2: 0, 3: 1}
    assert d.truth.noise.tolist() == [4] and d.truth.constant.tolist() == [5]
    with pytest.raises(ValueError, match="n_queries"):
        make_ranking(n_queries=0)
    with pytest.raises(ValueError, match="label_levels"):
        make_ranking(label_levels=1)
    with pytest.raises(ValueError, match="docs_per_query"):
        make_ranking(docs_per_query=(5, 2))
    with pytest.raises(ValueError, match="noise"):
        make_ranking(noise=-1.0)
    with pytest.raises(TypeError, match="n_noise"):
        make_ranking(n_noise=1.5)


def test_shipped_example_is_regenerated_by_its_seed(tmp_path):
    paths = write_example(tmp_path)
    for p in paths:
        shipped = Path(rankselect.data.datasets.__file__).parent / "data" / p.name
        assert shipped.read_bytes() == p.read_bytes(), p.name
    full = example_splits()
    for split in ("train", "vali", "test"):
        d = load_example(split)
        assert_same(d, sk_load(example_path(split), n_features=22))
        assert np.allclose(d.X, full[split].X, rtol=10.0 ** (1 - EXAMPLE_DIGITS), atol=1e-300)
        assert np.array_equal(d.y, full[split].y)
    t = example_truth()
    assert len(t.informative) == 5 and len(t.redundant_of) == 5 and len(t.noise) == 10


def test_example_truth_matches_module_docstring():
    t = example_truth()
    doc = rankselect.data.datasets.__doc__
    one = lambda cols: ", ".join(str(int(c) + 1) for c in cols)  # noqa: E731
    assert f"- informative: {one(t.informative)} " in doc
    red = ", ".join(f"{r + 1} (copy of {s + 1})" for r, s in t.redundant_of.items())
    assert f"- redundant: {red}\n" in doc
    assert f"- noise: {one(t.noise)}\n" in doc
    assert f"- constant: {one(t.constant)}\n" in doc


# --- rankselect info ----------------------------------------------------------------------


def test_info_cli(tmp_path, capsys):
    p = write(tmp_path, "2 qid:1 1:1 2:5 3:0\n0 qid:1 1:2 2:5\n1 qid:9 1:3 2:5\n0 qid:9 2:5\n0 qid:9 2:5\n")
    assert cli_main(["info", str(p), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["rows"] == 5 and info["queries"] == 2 and info["features"] == 3
    assert info["docs_per_query"] == {"min": 2, "mean": 2.5, "max": 3}
    assert info["labels"] == {"0": 3, "1": 1, "2": 1}
    assert info["constant_features"] == [2, 3]
    assert cli_main(["info", str(p)]) == 0
    out = capsys.readouterr().out
    assert "rows" in out and "constant features" in out and "2-3" in out  # ranges of feature numbers


def test_info_cli_reports_split_queries(tmp_path, capsys):
    p = write(tmp_path, "1 qid:1 1:1\n0 qid:2 1:2\n2 qid:1 1:3\n0 qid:2 1:4\n0 qid:3 1:4\n")
    assert cli_main(["info", str(p), "--json"]) == 0
    captured = capsys.readouterr()
    info = json.loads(captured.out)
    assert info["split_queries"] == {"count": 2, "first_qid": 1, "first_row": 3}
    assert cli_main(["info", str(p)]) == 0
    captured = capsys.readouterr()
    line = next(ln for ln in captured.out.splitlines() if ln.startswith("split queries"))
    assert "2 (" in line and "qid 1" in line and "merged by qid" in line
    assert captured.err == ""  # said once, in the summary, not again as a warning


def test_info_cli_allow_nonfinite(tmp_path, capsys):
    p = write(tmp_path, "1 qid:1 1:1 2:nan\n0 qid:1 1:2 2:1\ninf qid:2 1:3 2:1\n0 qid:2 1:4 2:1\n")
    assert cli_main(["info", str(p)]) == 2
    err = capsys.readouterr().err
    assert "line 1" in err and "--allow-nonfinite" in err and "allow_nonfinite=True" not in err
    assert cli_main(["info", str(p), "--allow-nonfinite", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["nonfinite"] == {"values": 2, "rows": 2, "first_row": 1}
    # the other commands say how to inspect such a file, in CLI terms
    assert cli_main(["select", "--method", "gas", "-k", "1", str(p)]) == 2
    err = capsys.readouterr().err
    assert "rankselect info --allow-nonfinite" in err and "allow_nonfinite=True" not in err


def test_info_cli_reports_bad_file(tmp_path, capsys):
    p = write(tmp_path, "1 qid:1 1:1\n1 qid:x 1:1\n")
    assert cli_main(["info", str(p)]) == 2
    assert "line 2" in capsys.readouterr().err


def test_save_digits_takes_a_numpy_integer_but_not_a_bool(tmp_path):
    """Issue 40: a NumPy integer is an integer; True is not a number of digits."""
    data = rankselect.data.datasets.load_example("vali")
    rankselect.save_letor(tmp_path / "a.txt", data, digits=np.int64(6))
    rankselect.save_letor(tmp_path / "b.txt", data, digits=6)
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()
    with pytest.raises(ValueError, match="digits must be a positive int or None, got True"):
        rankselect.save_letor(tmp_path / "c.txt", data, digits=True)
