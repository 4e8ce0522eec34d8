"""Regression tests of issue 23's findings that are not about memory (those are in
``test_memory_limits.py``): silent wrong numbers, unnamed errors, silent acceptances."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import rankselect as rs
from rankselect import metrics
from rankselect.analysis import stats
from rankselect.cli import main


def _data(m=40, n=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((m, n))
    y = rng.integers(0, 3, m).astype(float)
    return X, y, np.repeat(np.arange(m // 10), 10)


# -- panics: none reaches Python ---------------------------------------------------------

def test_nystroem_transform_without_landmarks_is_a_value_error():
    from rankselect import _core

    with pytest.raises(ValueError, match="landmark"):
        _core.nystroem_transform(np.ones((3, 2)), np.ones((0, 2)), np.ones((0, 0)), "rbf", 1.0, 0.0, 3.0)


# -- numbers that came back silently wrong --------------------------------------------------

@pytest.mark.parametrize("top", [1020, 1021, 1022, 1023])
def test_labels_whose_summed_gains_overflow_are_refused(top):
    y = np.array([top, top, 0.0])
    with pytest.raises(ValueError, match="too large for the gain"):
        metrics.ndcg(y, np.array([3.0, 2, 1]), np.zeros(3), 10)
    X = np.random.default_rng(0).random((6, 2))
    with pytest.raises(ValueError, match="too large for the gain"):
        rs.GreedyRankRLS(n_features_to_select=1, criterion="ndcg@10").fit(X, np.tile(y, 2), qid=np.repeat([0, 1], 3))


def test_cost_sums_that_overflow_are_refused():
    X, y, q = _data()
    with pytest.raises(ValueError, match="overflows"):
        rs.GreedyRankRLS(n_features_to_select=2, feature_costs=[1e308, 1e308, 1, 1, 1]).fit(X, y, qid=q)
    with pytest.raises(ValueError, match="overflows"):
        rs.SparseRankSVM(feature_costs=[1e308, 1e308, 1, 1, 1]).fit(X, y, qid=q)


def test_budget_has_a_rounding_tolerance():
    X, y, q = _data(n=3)
    est = rs.GreedyRankRLS(n_features_to_select=3, feature_costs=[0.1, 0.1, 0.1], budget=0.3).fit(X, y, qid=q)
    assert len(est.selected_features_) == 3
    gas = rs.GAS(n_features_to_select=3, feature_costs=[0.1, 0.1, 0.1], budget=0.3).fit(X, y, qid=q)
    assert len(gas.selected_features_) == 3


def test_gas_does_not_spend_the_budget_on_a_constant_feature():
    X, y, q = _data(n=3)
    X[:, 2] = 7.0  # constant in every query
    gas = rs.GAS(n_features_to_select=3, feature_costs=[1, 1, 1], budget=3).fit(X, y, qid=q)
    assert 2 not in gas.selected_features_.tolist()


def test_config_context_is_per_thread_and_blocks_may_overlap():
    seen = {}
    inside, release = threading.Event(), threading.Event()

    def other():
        with rs.config_context(max_memory=123):
            inside.set()
            assert release.wait(120)
            seen["other"] = rs.get_config()["max_memory"]

    t = threading.Thread(target=other)
    t.start()
    assert inside.wait(120)  # generous: the other thread may start late on a loaded machine
    seen["main"] = rs.get_config()["max_memory"]  # the other thread's block does not leak here
    release.set()
    t.join()
    assert seen == {"main": None, "other": 123}
    a, b = rs.config_context(max_memory=10**6), rs.config_context(max_memory=2 * 10**6)
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)  # overlapping, not nested
    assert rs.get_config()["max_memory"] == 2 * 10**6
    b.__exit__(None, None, None)
    assert rs.get_config()["max_memory"] is None
    rs.set_config(max_memory=np.int64(10**9))
    try:
        assert rs.get_config()["max_memory"] == 10**9
    finally:
        rs.set_config(max_memory=None)


def test_writers_refuse_fields_that_break_lines(tmp_path):
    with pytest.raises(ValueError, match="whitespace or control"):
        stats.write_per_query(tmp_path / "a.tsv", {"run": {"ndcg\n@10": [0.5]}}, [1])
    with pytest.raises(ValueError, match="whitespace or control"):
        stats.write_per_query(tmp_path / "a.tsv", {"run": {"ndcg": [0.5]}}, ["q\t1"])
    with pytest.raises(ValueError, match="whitespace or control"):
        stats.write_trec_run(tmp_path / "r", [1, 1], [0.1, 0.2], docnos=["a\x00b", "c"])
    with pytest.raises(TypeError, match="run_name"):
        stats.write_trec_run(tmp_path / "r", [1, 1], [0.1, 0.2], run_name=[1])
    with pytest.raises(ValueError, match="2\\^63"):
        stats.write_trec_run(tmp_path / "r", np.array([2**63, 2**63], dtype=np.uint64), [0.1, 0.2])


def test_complex_input_is_refused():
    X, y, q = _data()
    with pytest.raises(TypeError, match="complex"):
        metrics.ndcg(y + 0j, y, q)
    with pytest.raises(TypeError, match="complex"):
        rs.kendall_similarity(X + 1j, q)
    with pytest.raises(TypeError, match="complex"):
        rs.center_by_query(X.astype(complex), q)


def test_stability_selection_keeps_dataframe_names_and_refuses_a_ranker():
    pd = pytest.importorskip("pandas")
    X, y, q = _data(m=80)
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    st = rs.StabilitySelection(rs.GreedyRankRLS(n_features_to_select=2), n_resamples=2, random_state=0)
    st.fit(df, y, qid=q)
    assert list(st.feature_names_in_) == list(df.columns)
    assert list(st.get_feature_names_out()) == [c for c, s in zip(df.columns, st.support_) if s]
    with pytest.raises(TypeError, match="get_support"):
        rs.StabilitySelection(rs.RankRLS(), n_resamples=2).fit(X, y, qid=q)


def test_stats_never_return_nan_silently():
    a, b = np.array([0.1, 0.5, 0.3, 0.9]), np.array([0.2, 0.4, 0.1, 0.5])
    with pytest.raises(ValueError, match="finite|NaN"):
        stats.mean_confidence_interval(np.array([0.1, np.nan, 0.3]))
    with pytest.raises(ValueError, match="n_resamples"):
        stats.effect_size(a, b, n_resamples=1)
    with pytest.raises(ValueError, match="overflow"):
        stats.paired_test(np.array([1e308, -1e308, 1e308]), np.array([-1e308, 1e308, -1e308]))
    with pytest.raises(ValueError, match="alpha"):
        stats.compare({"a": a, "b": b}, "b", alpha=float("nan"))


def test_named_errors_instead_of_index_or_attribute_errors():
    from scipy import sparse

    X, y, q = _data()
    ranker = rs.RankRLS().fit(X, y, qid=q)
    with pytest.raises(ValueError, match="y"):
        rs.analysis.inspection.evaluate_path([0, 1], rs.RankRLS(), (X, y, q), (X, y[:5], q))
    with pytest.raises(TypeError, match="dense"):
        rs.analysis.inspection.permutation_importance(ranker, sparse.csr_matrix(X), y, q)
    with pytest.raises(TypeError, match="integer"):
        rs.analysis.inspection.permutation_importance(ranker, X, y, q, features=[1.5])
    with pytest.raises((TypeError, ValueError)):
        rs.analysis.costs.cost_quality_path(rs.GreedyRankRLS(n_features_to_select=2).fit(X, y, qid=q), 3, np.ones(5))


def test_gridsearch_without_metadata_routing_says_what_to_enable():
    """Issue 23 made it a warning; issue 40 an error (every score was NaN): tests/test_search_splits.py."""
    from sklearn.model_selection import GridSearchCV, GroupKFold

    X, y, q = _data(m=60)
    gs = GridSearchCV(rs.RankRLS(), {"alpha": [1.0, 2.0]}, cv=GroupKFold(3))
    with pytest.raises(ValueError, match=r"enable_metadata_routing=True"):
        gs.fit(X, y, qid=q, groups=q)


def test_fsmrank_constant_feature_warning_once_per_command(tmp_path, capsys):
    X, y, q = _data(m=60)
    X[:, 0] = 1.0
    path = tmp_path / "d.txt"
    rs.save_letor(path, (X, y, q))
    assert main(["select", "--method", "fsmrank", "-k", "2", str(path)]) == 0
    err = capsys.readouterr().err
    assert err.count("constant over the training set") <= 1


def test_select_says_why_it_selected_fewer_than_k(tmp_path, capsys):
    X, y, q = _data(m=60, n=4)
    X[:, 3] = 5.0
    path = tmp_path / "d.txt"
    rs.save_letor(path, (X, y, q))
    assert main(["select", "--method", "greedy-rankrls", "-k", "4", str(path)]) == 0
    out = capsys.readouterr().out
    assert "-k 4: 3 features selected because" in out


def test_cli_overflow_is_one_line_and_exit_2(tmp_path, capsys):
    sel = tmp_path / "sel.json"
    sel.write_text('{"selected_features": [1], "n_features": 1e400}')
    assert main(["export", str(sel), "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankselect export: error:") and err.count("\n") == 1


def test_train_kernel_is_reproducible_by_default(tmp_path, capsys):
    X, y, q = _data(m=60)
    path = tmp_path / "d.txt"
    rs.save_letor(path, (X, y, q))
    outs = []
    for _ in range(2):
        assert main(["train", str(path), "--test", str(path), "--kernel", "rff", "--components", "8"]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]


def test_help_is_plain_text(capsys):
    for command in ("select", "evaluate", "train", "info", "export"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        assert "``" not in out and ":func:" not in out and "P_ALPHA" not in out, command


def test_letor_density_rule_and_info_ranges(tmp_path, capsys):
    path = tmp_path / "typo.txt"
    path.write_text("1 qid:1 1:1\n0 qid:1 999999999:1\n")
    with pytest.raises(ValueError, match=r"line 2: feature index 999999999.*n_features=999999999"):
        rs.load_letor(path)
    wide = tmp_path / "wide.txt"
    wide.write_text("1 qid:1 1:1 5:1\n0 qid:1 2:1 100000:1\n")
    assert main(["info", str(wide)]) == 0
    out = capsys.readouterr().out
    assert "99996 (3-4, 6-99999)" in out and len(out) < 2000
    from rankselect.cli.common import ranges

    assert ranges(list(range(0, 100, 2)), limit=3) == "0, 2, 4 ... and 47 more"
    assert ranges([1, 2, 3, 7]) == "1-3, 7"
