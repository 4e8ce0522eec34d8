"""The LETOR experiment protocol (rankselect.protocol) and `rankselect experiment`."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import rankselect

# the harness drives the loaders, metrics and RankRLS of other modules
pytest.importorskip("rankselect.data", reason="rankselect.data (LETOR loader) not in this build")
pytest.importorskip("rankselect.data.datasets", reason="rankselect.data.datasets (make_ranking) not in this build")
if not all(hasattr(rankselect, n) for n in ("RankRLS", "GreedyRankRLS")):
    pytest.skip("RankRLS / GreedyRankRLS not in this build", allow_module_level=True)

from conftest import shared_path  # noqa: E402
from rankselect import metrics  # noqa: E402
from rankselect.protocol import (  # noqa: E402
    METHODS,
    Candidate,
    MethodSpec,
    load_folds,
    parse_method,
    run,
    single_feature_scores,
)

N_FEATURES = 6
SMALL = {"rankrls": {"alpha": [0.01, 1.0, 100.0]}, "greedy-rankrls": {"alpha": [0.1, 10.0], "k": [1, 2, 3, 6]}}


def _write_letor(path: Path, X, y, qid) -> None:
    with open(path, "w") as fh:
        for xi, yi, qi in zip(X, y, qid):
            feats = " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(xi))
            fh.write(f"{int(yi)} qid:{int(qi)} {feats}\n")


def _make_layout(root: Path, seed: int = 0) -> Path:
    """Five parts S1..S5 from make_ranking, folds cyclic as in LETOR 4.0 (Fold1 = train
    S1,S2,S3 / vali S4 / test S5)."""
    from rankselect.data.datasets import make_ranking

    parts = []
    for i in range(5):
        d = make_ranking(n_queries=12, docs_per_query=12, n_informative=3, n_redundant=1, n_noise=2,
                         random_state=seed + i)
        X, y, q = np.asarray(d.X), np.asarray(d.y), np.asarray(d.qid)
        parts.append((X, y, q + 1000 * (i + 1)))  # distinct query ids per part
    root.mkdir(parents=True, exist_ok=True)
    for f in range(5):
        d = root / f"Fold{f + 1}"
        d.mkdir()
        tr = [parts[(f + j) % 5] for j in range(3)]
        _write_letor(d / "train.txt", *(np.concatenate([p[i] for p in tr]) for i in range(3)))
        _write_letor(d / "vali.txt", *parts[(f + 3) % 5])
        _write_letor(d / "test.txt", *parts[(f + 4) % 5])
    return root


@pytest.fixture(scope="module")
def layout(tmp_path_factory) -> Path:
    return _make_layout(tmp_path_factory.mktemp("letor") / "SYN")


@pytest.fixture(scope="module")
def result(layout):
    return run(layout, ["rankrls", "greedy-rankrls"], grid=SMALL, progress=False)


# ------------------------------------------------------------------ structure


def test_result_structure_and_averages(result, layout):
    assert result.methods == ["rankrls", "greedy-rankrls"]
    assert len(result.folds) == 5
    avg = result.averages()
    for m in result.methods:
        for key in ("MAP", "NDCG@10", "P@10", "MeanNDCG", "n_features"):
            assert key in avg[m]
        for key in ("MAP", "NDCG@10", "P@10", "MeanNDCG"):
            assert avg[m][key] == pytest.approx(np.mean([f[m].test[key] for f in result.folds]))
            assert 0.0 <= avg[m][key] <= 1.0
    for f in result.folds:
        g = f["greedy-rankrls"]
        assert g.params["alpha"] in SMALL["greedy-rankrls"]["alpha"]
        assert g.params["k"] in SMALL["greedy-rankrls"]["k"]
        assert len(g.selected_features) == g.params["k"]
        assert g.n_features <= g.params["k"]
        assert 0 < g.sparsity_ratio <= 1
        r = f["rankrls"]
        assert r.params["alpha"] in SMALL["rankrls"]["alpha"]
        assert r.n_candidates == 3 and g.n_candidates == 2 * 4
        assert r.per_query["AP"].shape == r.per_query["NDCG@10"].shape == (12,)
        assert g.fit_time >= 0


def test_selection_matches_independent_grid_search(result, layout):
    """The chosen alpha is the first grid point with the best validation MAP, and the test
    metrics are those of the refitted model (LETOR conventions)."""
    folds = load_folds(layout)
    alphas = SMALL["rankrls"]["alpha"]
    for fold, fr in zip(folds, result.folds):
        tr, va, te = fold.train, fold.vali, fold.test
        vals = []
        models = []
        for a in alphas:
            est = rankselect.RankRLS(alpha=a).fit(tr.X, tr.y, qid=tr.qid)
            models.append(est)
            vals.append(metrics.mean_average_precision(va.y, est.predict(va.X), va.qid, convention="letor"))
        best = int(np.argmax(vals))  # argmax = first maximum = first in grid order
        got = fr["rankrls"]
        assert got.params["alpha"] == alphas[best]
        assert got.validation_score == pytest.approx(vals[best], abs=1e-12)
        s = models[best].predict(te.X)
        expected = metrics.mean_average_precision(te.y, s, te.qid, convention="letor")
        assert got.test["MAP"] == pytest.approx(expected, abs=1e-9)
        assert got.test["NDCG@10"] == pytest.approx(metrics.ndcg(te.y, s, te.qid, k=10, convention="letor"), abs=1e-9)
        assert got.per_query["AP"].mean() == pytest.approx(got.test["MAP"], abs=1e-12)


def test_greedy_path_candidates_match_separate_fits(layout):
    """One greedy run per alpha gives every k: the candidate for (alpha, k) equals a
    separate fit with n_features_to_select=k."""
    fold = load_folds(layout)[0]
    res = run(layout, ["greedy-rankrls"], grid={"greedy-rankrls": {"alpha": [1.0], "k": [1, 2, 3]}},
              progress=False, folds=[1])
    chosen = res.folds[0]["greedy-rankrls"]
    k = chosen.params["k"]
    est = rankselect.GreedyRankRLS(n_features_to_select=k, alpha=1.0)
    est.fit(fold.train.X, fold.train.y, qid=fold.train.qid)
    assert chosen.selected_features == [int(j) for j in est.selected_features_]
    s = fold.test.X @ np.asarray(est.coef_path_)[k - 1]
    assert chosen.test["MAP"] == pytest.approx(
        metrics.mean_average_precision(fold.test.y, s, fold.test.qid, convention="letor"), abs=1e-9)
    assert len(chosen.curve) == 3


def test_deterministic(layout):
    a = run(layout, ["rankrls"], grid=SMALL, progress=False)
    b = run(layout, ["rankrls"], grid=SMALL, progress=False, jobs=1)
    for m in a.methods:
        for key in ("MAP", "P@10", "NDCG@10", "MeanNDCG", "n_features"):
            assert a.averages()[m][key] == b.averages()[m][key]
    assert [f["rankrls"].params for f in a.folds] == [f["rankrls"].params for f in b.folds]


def test_standard_convention_differs_only_in_metrics(layout):
    a = run(layout, ["rankrls"], grid=SMALL, progress=False, convention="standard", metric="ndcg@10")
    assert a.convention == "standard" and a.metric == "NDCG@10"
    for f in a.folds:
        assert 0 <= f["rankrls"].test["NDCG@10"] <= 1


# ------------------------------------------------------------------ degenerate models


def _degenerate_spec(order):
    """A method whose grid holds an all-zero model, a model whose scores are constant
    within every query (feature 1 of the vali file below), and a real but weak model."""
    def cands(train, grid, options, cache):
        n = train.X.shape[1]
        zero = np.zeros(n)
        const = np.zeros(n)
        const[0] = 1.0
        weak = np.zeros(n)
        weak[1] = 1.0
        pool = {"zero": zero, "const": const, "weak": weak}
        yield [Candidate({"w": name}, pool[name], [] if name == "zero" else [0 if name == "const" else 1])
               for name in grid["w"]]
    return MethodSpec("degenerate-test", "test", lambda n: {"w": list(order)}, cands, lambda g: 1)


def _file_order_layout(root: Path) -> Path:
    """Every query lists its relevant documents first (file order is informative);
    feature 1 is constant within each query, feature 2 anti-correlates with relevance."""
    rng = np.random.default_rng(3)
    root.mkdir(parents=True)
    for f in range(1, 6):
        d = root / f"Fold{f}"
        d.mkdir()
        for split in ("train", "vali", "test"):
            rows = []
            for q in range(6):
                y = np.array([2, 1, 0, 0, 0, 0])
                X = np.column_stack([np.full(6, q + 1.0), -y + rng.uniform(0, 0.5, 6), rng.uniform(size=6)])
                rows.append((X, y, np.full(6, 100 * f + q)))
            _write_letor(d / f"{split}.txt", *(np.concatenate([r[i] for r in rows]) for i in range(3)))
    return root


def test_degenerate_models_never_win(tmp_path, monkeypatch):
    root = _file_order_layout(tmp_path / "ORDER")
    monkeypatch.setitem(METHODS, "degenerate-test", _degenerate_spec(["zero", "const", "weak"]))
    fold = load_folds(root)[0]
    # the premise: under stable ties the all-zero model ranks by file order and is perfect
    zeros = np.zeros(len(fold.vali.y))
    zero_map = metrics.mean_average_precision(fold.vali.y, zeros, fold.vali.qid, convention="letor")
    weak_map = metrics.mean_average_precision(fold.vali.y, fold.vali.X[:, 1], fold.vali.qid, convention="letor")
    assert zero_map == 1.0 and weak_map < 1.0
    res = run(root, ["degenerate-test"], progress=False)
    for f in res.folds:
        r = f["degenerate-test"]
        assert r.params == {"w": "weak"}
        assert r.skipped == [{"w": "zero"}, {"w": "const"}]
    assert res.folds[0]["degenerate-test"].validation_score == pytest.approx(weak_map)
    md = res.to_markdown()
    assert "Skipped degenerate grid points" in md and "w=zero" in md


def test_all_degenerate_raises(tmp_path, monkeypatch):
    root = _file_order_layout(tmp_path / "ORDER")
    monkeypatch.setitem(METHODS, "degenerate-test", _degenerate_spec(["zero", "const"]))
    with pytest.raises(ValueError, match="degenerate"):
        run(root, ["degenerate-test"], progress=False)


def test_ties_in_grid_keep_first_point(tmp_path, monkeypatch):
    root = _file_order_layout(tmp_path / "ORDER")

    def cands(train, grid, options, cache):
        w = np.zeros(train.X.shape[1])
        w[2] = 1.0
        yield [Candidate({"a": a}, a * w, [2]) for a in grid["a"]]  # same ranking for every a

    monkeypatch.setitem(METHODS, "tie-test", MethodSpec("tie-test", "test", lambda n: {"a": [3.0, 1.0, 2.0]},
                                                       cands, lambda g: 1))
    res = run(root, ["tie-test"], progress=False)
    assert all(f["tie-test"].params == {"a": 3.0} for f in res.folds)


# ------------------------------------------------------------------ output


def test_json_and_markdown(result, tmp_path):
    p = tmp_path / "r.json"
    result.to_json(p)
    d = json.loads(p.read_text())
    assert d["methods"] == ["rankrls", "greedy-rankrls"]
    assert d["averages"]["rankrls"]["MAP"] == pytest.approx(result.averages()["rankrls"]["MAP"])
    g0 = result.folds[0]["greedy-rankrls"]
    assert d["folds"][0]["greedy-rankrls"]["selected_features"] == [j + 1 for j in g0.selected_features]
    assert len(d["folds"][0]["rankrls"]["per_query"]["AP"]) == 12
    md = result.to_markdown()
    for s in ("## Averages", "| avg |", "## MAP per fold", "## NDCG@10 per fold", "selected 1", "| alpha |",
              "Paired t-tests", "P@1", "NDCG@1 ", "Paired tests against rankrls", "randomization test against",
              "wilcoxon test against", "p (Holm)", "Selection frequency across folds"):
        assert s in md, s
    # the frequency line of greedy RankRLS lists every feature chosen in some fold, with its fraction
    from rankselect.selection.stability import fold_selection_frequencies

    freq = fold_selection_frequencies(result)["greedy-rankrls"]
    line = next(ln for ln in md.splitlines() if ln.startswith("| greedy-rankrls | ") and ": " in ln)
    for j in np.flatnonzero(freq):
        assert f"{j + 1}: {freq[j]:.1f}" in line
    table = result.table()
    assert "rankrls" in table and "MAP" in table


def test_markdown_escapes_pipes_in_names_and_values(result):
    """A method, a fold or a parameter value with a ``|`` stays one cell of its table (issue 40)."""
    import copy
    import dataclasses

    old, new = result.methods[0], "rankrls:note=a|b"
    folds = []
    for f in result.folds:
        fold = dict(f)
        r = fold.pop(old)
        fold[new] = dataclasses.replace(r, fold=r.fold + "|x", params={**r.params, "label": "x|y"})
        folds.append(fold)
    res = dataclasses.replace(copy.deepcopy(result), methods=[new, *result.methods[1:]], folds=folds,
                              grids={new if m == old else m: g for m, g in result.grids.items()})
    md = res.to_markdown()
    assert "rankrls:note=a\\|b" in md and "x\\|y" in md
    tables, block = [], []
    for line in md.splitlines() + [""]:
        if line.startswith("|"):
            block.append(line.replace("\\|", ""))
        elif block:
            tables.append(block)
            block = []
    assert len(tables) >= 8
    for table in tables:
        assert len({line.count("|") for line in table}) == 1, table


def test_paired_ttest_matches_scipy(result):
    t = result.paired_ttest("greedy-rankrls", "rankrls", metric="MAP")
    a = np.concatenate([f["greedy-rankrls"].per_query["AP"] for f in result.folds])
    b = np.concatenate([f["rankrls"].per_query["AP"] for f in result.folds])
    assert t["n_queries"] == 60
    if not np.array_equal(a, b):
        ref = stats.ttest_rel(a, b, alternative="greater")
        assert t["pvalue"] == pytest.approx(ref.pvalue)
        assert t["statistic"] == pytest.approx(ref.statistic)
        t2 = result.paired_ttest("rankrls", "greedy-rankrls", metric="NDCG@10", alternative="less")
        ref2 = stats.ttest_rel(np.concatenate([f["rankrls"].per_query["NDCG@10"] for f in result.folds]),
                               np.concatenate([f["greedy-rankrls"].per_query["NDCG@10"] for f in result.folds]),
                               alternative="less")
        assert t2["pvalue"] == pytest.approx(ref2.pvalue)
    same = result.paired_ttest("rankrls", "rankrls")
    assert same["pvalue"] == 1.0
    with pytest.raises(ValueError, match="metric"):
        result.paired_ttest("rankrls", "greedy-rankrls", metric="ERR")
    with pytest.raises(ValueError, match="nope"):
        result.paired_ttest("rankrls", "nope")


# ------------------------------------------------------- the other methods' adapters

TINY = {
    "ranksvm": {"C": [0.1, 10.0]},
    "gas": {"c": [0.0, 0.5], "k": [1, 3, 6], "alpha": [0.1, 10.0], "C": [1.0]},
    "ngas": {"k": [1, 3, 6], "alpha": [0.1, 10.0], "C": [1.0]},
    "xgas": {"c": [0.05, 0.5], "k": [1, 3, 6], "alpha": [0.1, 10.0], "C": [1.0]},
    "hcas": {"k": [1, 3, 6], "alpha": [0.1, 10.0], "C": [1.0]},
    "sparse-ranksvm": {"C": [0.1, 1.0, 10.0]},
    "fsmrank": {"lambda1": [0.1], "lambda2": [1e-3, 1e-1]},
}


def _check_method(res, label, layout):
    """Every fold's chosen point is the first best validation point among the fitted
    candidates (recomputed independently), and the test metrics are those of its weights."""
    folds = load_folds(layout)
    for _fold, per in zip(folds, res.folds):
        r = per[label]
        assert r.n_candidates == len(r.curve) + len(r.skipped) > 0
        best = max(c["vali"]["MAP"] for c in r.curve)
        assert r.validation_score == pytest.approx(best, abs=1e-12)
        first = next(c for c in r.curve if c["vali"]["MAP"] == best)
        assert r.params == first["params"]
        assert r.test["MAP"] == pytest.approx(first["test"]["MAP"], abs=1e-12)
        assert 0 < r.n_features <= N_FEATURES
    avg = res.averages()[label]
    for key in ("MAP", "NDCG@10", "P@10", "MeanNDCG", "n_features"):
        assert np.isfinite(avg[key])
    assert avg["MAP"] > 0.5  # the synthetic data are easy: far above a random ranking


def test_ranksvm_adapter(layout):
    res = run(layout, ["ranksvm"], grid=TINY, progress=False)
    _check_method(res, "ranksvm", layout)
    fold = load_folds(layout)[0]
    C = res.folds[0]["ranksvm"].params["C"]
    w = rankselect.RankSVM(C=C).fit(fold.train.X, fold.train.y, qid=fold.train.qid).coef_
    ref = metrics.evaluate(fold.test.y, fold.test.X @ w, fold.test.qid, convention="letor")["MAP"]
    assert res.folds[0]["ranksvm"].test["MAP"] == pytest.approx(float(ref), abs=1e-12)


@pytest.mark.parametrize("ranker", ["rankrls", "ranksvm"])
def test_gas_adapter(layout, ranker):
    label = "gas" if ranker == "rankrls" else "gas:ranker=ranksvm"
    res = run(layout, [label], grid=TINY, progress=False)
    _check_method(res, label, layout)
    fold = load_folds(layout)[0]
    r = res.folds[0][label]
    gas = rankselect.GAS(n_features_to_select=r.params["k"], c=r.params["c"]).fit(
        fold.train.X, fold.train.y, qid=fold.train.qid)
    assert r.selected_features == [int(j) for j in gas.selected_features_]
    per_point = 2 if ranker == "rankrls" else 1
    assert r.n_candidates == 2 * 3 * per_point
    # the grid keeps only the ranker's own parameter (alpha for RankRLS, C for RankSVM)
    unused, used = ("C", "alpha") if ranker == "rankrls" else ("alpha", "C")
    assert unused not in res.grids[label] and used in res.grids[label]
    assert set(r.params) == {"c", "k", used}


@pytest.mark.parametrize("label", ["ngas", "xgas", "hcas:linkage=single", "ngas:ranker=ranksvm"])
def test_filter_adapters(layout, label):
    name = label.split(":")[0]
    res = run(layout, [label], grid=TINY, progress=False)
    _check_method(res, label, layout)
    fold = load_folds(layout)[0]
    r = res.folds[0][label]
    cls = {"ngas": rankselect.NGAS, "xgas": rankselect.XGAS, "hcas": rankselect.HCAS}[name]
    extra = {"c": r.params["c"]} if name == "xgas" else {"linkage": "single"} if name == "hcas" else {}
    est = cls(r.params["k"], **extra).fit(fold.train.X, fold.train.y, qid=fold.train.qid)
    assert r.selected_features == [int(j) for j in est.selected_features_]


@pytest.mark.parametrize("penalty", ["l1", "log"])
def test_sparse_ranksvm_adapter(layout, penalty):
    label = f"sparse-ranksvm:penalty={penalty}"
    res = run(layout, [label], grid=TINY, progress=False)
    _check_method(res, label, layout)
    fold = load_folds(layout)[0]
    r = res.folds[0][label]
    path = rankselect.sparse_path(fold.train.X, fold.train.y, fold.train.qid, Cs=[0.1, 1.0, 10.0], penalty=penalty)
    i = list(path.Cs).index(r.params["C"])
    assert r.n_features == int(path.n_selected[i])


def test_fsmrank_adapter(layout):
    res = run(layout, ["fsmrank"], grid=TINY, progress=False)
    _check_method(res, "fsmrank", layout)
    fold = load_folds(layout)[0]
    r = res.folds[0]["fsmrank"]
    est = rankselect.FSMRank(**r.params).fit(fold.train.X, fold.train.y, qid=fold.train.qid)
    assert r.n_features == int(np.count_nonzero(est.coef_))


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("missing", ["Fold3/vali.txt", "Fold1/train.txt", "Fold5/test.txt"])
def test_missing_file_named(layout, tmp_path, missing):
    root = tmp_path / "L"
    shutil.copytree(layout, root)
    (root / missing).unlink()
    with pytest.raises(FileNotFoundError, match=missing.replace("/", ".")):
        run(root, ["rankrls"], progress=False)


def test_missing_fold_dir_named(layout, tmp_path):
    root = tmp_path / "L"
    shutil.copytree(layout, root)
    shutil.rmtree(root / "Fold2")
    with pytest.raises(FileNotFoundError, match="Fold2"):
        load_folds(root)
    with pytest.raises(FileNotFoundError, match="no fold directory Fold1"):
        load_folds(tmp_path)
    with pytest.raises(FileNotFoundError, match="not a directory"):
        load_folds(tmp_path / "absent")


def test_bad_arguments(layout):
    with pytest.raises(ValueError, match="unknown method 'lasso'"):
        run(layout, ["lasso"], progress=False)
    with pytest.raises(ValueError, match="metric"):
        run(layout, ["rankrls"], metric="auc", progress=False)
    with pytest.raises(ValueError, match="convention"):
        run(layout, ["rankrls"], convention="trec_eval", progress=False)
    with pytest.raises(ValueError, match="unknown parameter 'C'"):
        run(layout, ["rankrls"], grid={"rankrls": {"C": [1.0]}}, progress=False)
    with pytest.raises(ValueError, match="unknown method 'lasso'"):
        run(layout, ["rankrls"], grid={"lasso": {"k": [1]}}, progress=False)
    with pytest.raises(ValueError, match="no option 'penalty'"):
        parse_method("rankrls:penalty=l1")
    with pytest.raises(ValueError, match="jobs"):
        run(layout, ["rankrls"], jobs=0, progress=False)
    with pytest.raises(ValueError, match="jobs must be a positive integer, got True"):
        run(layout, ["rankrls"], jobs=True, progress=False)
    with pytest.raises(ValueError, match="twice"):
        run(layout, ["rankrls", "rankrls"], progress=False)


def test_jobs_may_be_a_numpy_integer(layout):
    """Issue 40: a NumPy integer is an integer (it was refused)."""
    res = run(layout, ["rankrls"], grid={"rankrls": {"alpha": [1.0]}}, jobs=np.int64(1), folds=[1], progress=False)
    assert len(res.folds) == 1


def test_parse_method_options():
    assert parse_method("rankrls") == ("rankrls", "rankrls", {})
    label, name, opts = parse_method("gas:ranker=ranksvm")
    assert label == "gas:ranker=ranksvm" and name == "gas" and opts["ranker"] == "ranksvm"


# ------------------------------------------------------------------ CLI and plots


def test_cli_end_to_end(layout, tmp_path, capsys):
    from rankselect.cli import main

    out = tmp_path / "out"
    rc = main(["experiment", str(layout), "--method", "rankrls", "--method", "greedy-rankrls",
               "--grid", "rankrls:alpha=2^-2,2^2", "--grid", "greedy-rankrls:alpha=1", "--grid", "greedy-rankrls:k=1,2",
               "--out", str(out), "--quiet", "--jobs", "1", "--plots"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "greedy-rankrls" in text and "MAP" in text
    d = json.loads((out / "experiment.json").read_text())
    assert d["grids"]["rankrls"]["alpha"] == [0.25, 4.0]
    assert (out / "experiment.md").read_text().startswith("# Experiment")
    pngs = sorted(p.name for p in out.glob("*.png"))
    expected = {"curves_MAP.png", "curves_NDCG10.png", "single_feature_NDCG10.png", "greedy-rankrls_alpha_MAP.png"}
    assert expected <= set(pngs)
    for p in out.glob("*.png"):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_errors(layout, tmp_path, capsys):
    from rankselect.cli import main

    assert main(["experiment", str(tmp_path / "nope"), "--method", "rankrls", "--quiet"]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["experiment", str(layout), "--method", "rankrls", "--grid", "rankrls=1", "--quiet"]) == 2
    assert "METHOD:PARAM" in capsys.readouterr().err


def test_plots_direct(result, tmp_path, layout):
    pytest.importorskip("matplotlib")
    from rankselect import plotting

    curves = plotting.feature_curves(result, "MAP")
    assert list(curves["greedy-rankrls"]["n"]) == [1, 2, 3, 6]
    assert curves["rankrls"]["n"].size == 1
    fig = plotting.plot_feature_curves(result, "NDCG@10")
    fig.savefig(tmp_path / "c.png")
    fold = load_folds(layout)[0]
    sc = single_feature_scores(fold.train.X, fold.train.y, fold.train.qid)
    assert sc.shape == (N_FEATURES,) and np.all((sc >= 0) & (sc <= 1))
    fig = plotting.plot_single_feature_scores(sc, sc)
    fig.savefig(tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 0
    with pytest.raises(ValueError, match="metric"):
        plotting.feature_curves(result, "ERR")


# ------------------------------------------------------------------ real data


def test_mq2008_rankrls_reproduces_published_row():
    """Greedy RankRLS paper, Tables 7-10, RankRLS column: all 46 features, alpha by
    validation MAP over 2^-10..2^10, LETOR conventions."""
    root = shared_path("MQ2008")
    res = run(root, ["rankrls"], progress=False, curves=False)
    avg = res.averages()["rankrls"]
    assert round(avg["MAP"], 4) == 0.4719
    assert round(avg["P@10"], 4) == 0.2477
    assert round(avg["MeanNDCG"], 4) == 0.4838
    assert round(avg["NDCG@10"], 4) == 0.2268
    per_fold_map = [round(f["rankrls"].test["MAP"], 4) for f in res.folds]
    assert per_fold_map == [0.4524, 0.4300, 0.4542, 0.5225, 0.5006]


def test_mq2008_greedy_rankrls_reproduces_tables_2_and_7_to_10():
    """Greedy RankRLS paper end to end: alpha in 2^-10..2^10, k in 1..46 selected by
    validation MAP (first best in grid order), LETOR conventions. Tables 7-10 GRankRLS
    column to 4 decimals and Table 2's k and features per fold (lambda too where k > 1; on
    the k = 1 folds every lambda ranks by feature 39 alone, a tie)."""
    root = shared_path("MQ2008")
    res = run(root, ["greedy-rankrls"], progress=False, curves=False)
    avg = res.averages()["greedy-rankrls"]
    assert [round(avg[k], 4) for k in ("MAP", "P@10", "MeanNDCG", "NDCG@10")] == [0.4720, 0.2467, 0.4840, 0.2251]
    rows = [f["greedy-rankrls"] for f in res.folds]
    assert [round(r.test["MAP"], 4) for r in rows] == [0.4311, 0.4239, 0.4582, 0.5283, 0.5183]
    assert [r.params["k"] for r in rows] == [1, 4, 7, 4, 1]
    assert [[j + 1 for j in r.selected_features] for r in rows] == [
        [39], [39, 23, 37, 32], [39, 29, 25, 23, 46, 37, 19], [39, 29, 25, 23], [39]]
    assert [np.log2(r.params["alpha"]) for r in rows][1:4] == [10, 3, 6]
    assert all(not r.skipped for r in rows)


def test_sparsity_ratio_ignores_all_zero_columns(tmp_path, monkeypatch):
    """Laporte et al.'s sparsity ratio does not count features that are zero on every
    training row; a (round-off) weight there changes no score and is not counted."""
    root = _make_layout(tmp_path / "SYN0", seed=3)
    for f in root.glob("Fold*/*.txt"):
        lines = f.read_text().splitlines()
        # append feature 7 = 0 on every row (an all-zero column, as MQ2008 has six)
        f.write_text("\n".join(line + f" {N_FEATURES + 1}:0" for line in lines) + "\n")

    def cands(train, grid, options, cache):
        w = np.zeros(train.X.shape[1])
        w[[0, 1, N_FEATURES]] = [1.0, 0.5, 1e-17]  # round-off on the all-zero column
        yield [Candidate({"w": 1}, w, [0, 1, N_FEATURES])]

    monkeypatch.setitem(METHODS, "zero-column-test", MethodSpec("zero-column-test", "test", lambda n: {"w": [1]},
                                                               cands, lambda g: 1))
    res = run(root, ["zero-column-test"], progress=False)
    for fold in res.folds:
        r = fold["zero-column-test"]
        assert r.n_features == 2
        assert r.sparsity_ratio == pytest.approx(2 / N_FEATURES)


def test_progress_lines_without_tqdm(layout, capsys, monkeypatch):
    """Issue 17.1: without a progress bar, one line per fold and method (method, fold, chosen
    parameters, validation score, elapsed); --quiet prints none."""
    from rankselect.cli import main
    from rankselect.protocol import runner

    monkeypatch.setattr(runner, "tqdm", None)
    assert main(["experiment", str(layout), "--method", "rankrls", "--grid", "rankrls:alpha=0.01,1",
                 "--folds", "1,2"]) == 0
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 2
    for fold, line in zip(("Fold1", "Fold2"), lines):
        assert line.startswith(f"{fold} rankrls: alpha=") and "vali MAP 0." in line and "(letor)" in line
        assert line.endswith(" s")
    assert main(["experiment", str(layout), "--method", "rankrls", "--grid", "rankrls:alpha=1",
                 "--folds", "1", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_plots_without_matplotlib_fail_up_front(layout, tmp_path, capsys, monkeypatch):
    """Issue 17.2: --plots without matplotlib is a one-line error before any computation."""
    from rankselect import plotting
    from rankselect.cli import main
    from rankselect.protocol import runner

    def missing():
        raise ImportError('plotting needs matplotlib, an optional extra: pip install "rankselect[plot]"')

    def must_not_run(*a, **k):
        raise AssertionError("the experiment ran")

    monkeypatch.setattr(plotting, "require_matplotlib", missing)
    monkeypatch.setattr(runner, "load_folds", must_not_run)
    out = tmp_path / "out"
    assert main(["experiment", str(layout), "--method", "rankrls", "--out", str(out), "--plots", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "matplotlib" in err
    assert not out.exists()


def test_protocol_modules_are_small_with_top_level_imports():
    import ast
    from pathlib import Path

    import rankselect.protocol as protocol

    for f in Path(protocol.__file__).parent.glob("*.py"):
        text = f.read_text()
        assert len(text.splitlines()) <= 400, f
        tree = ast.parse(text)
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(fn)), (f, fn.name)
