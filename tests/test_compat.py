"""The flat layout's module paths still work for one release (rankselect._aliases): imports by
the old paths give the same objects with a DeprecationWarning that names the new path, and
estimators pickled under the old class paths unpickle."""
from __future__ import annotations

import importlib
import pickle
import pickletools
import sys
import warnings

import numpy as np
import pytest

import rankselect as rs
from rankselect._aliases import MOVED, new_paths

#: every public name of the flat layout's modules (rankselect <module>.py before the
#: subpackages), which must stay importable from the same path
OLD_PUBLIC = {
    "groups": ["GroupedData", "OFFSETS_DTYPE", "QueryGroups", "center_by_query"],
    "uninformative": ["constant_within_queries", "zero_features"],
    "datasets": ["EXAMPLE_DIGITS", "EXAMPLE_PARAMS", "EXAMPLE_SPLITS", "GroundTruth", "SyntheticRanking",
                 "example_path", "example_splits", "example_truth", "load_example", "make_ranking", "write_example"],
    "pairwise": ["DEFAULT_MAX_PAIRS", "count_pairs", "preference_pair_matrix", "preference_pairs", "squared_hinge",
                 "squared_hinge_hessp"],
    "rankrls": ["GreedyRankRLS", "RankRLS", "RankRLSPath"],
    "ranksvm": ["RankSVM"],
    "sparse": ["PENALTIES", "SOLVERS", "SparsePath", "SparseRankSVM", "sparse_path"],
    "kernel_approximation": ["Nystroem", "RandomFourierFeatures", "kernel_matrix"],
    "gas": ["GAS", "gas_greedy"],
    "fsmrank": ["FSMRank", "FSMSVM", "pearson_importance", "pearson_similarity"],
    "stability": ["StabilitySelection", "fold_selection_frequencies", "nogueira_stability"],
    "importance": ["FeatureImportance", "feature_importance", "pairwise_accuracy"],
    "kendall": ["VARIANTS", "kendall_similarity"],
    "costs": ["CostQualityPath", "check_budget", "check_costs", "check_costs_and_budget", "cost_quality_path",
              "pareto_front", "read_costs"],
    "inspection": ["PathCurve", "PermutationImportance", "evaluate_path", "fit_ranker", "permutation_importance"],
    "stats": ["Comparison", "EffectSize", "PathLike", "TESTS", "TestResult", "compare", "compare_experiment",
              "docnos_from_comments", "effect_size", "experiment_per_query", "experiment_per_query_rows", "holm",
              "mean_confidence_interval", "paired_test", "write_per_query", "write_trec_qrels", "write_trec_run"],
    "export": ["FORMATS", "export_selection", "write_selection"],
    "experiment": ["Candidate", "ExperimentResult", "METHODS", "MethodFold", "MethodSpec", "SELECTION_METRICS",
                   "default_grid", "load_folds", "parse_method", "run", "single_feature_scores"],
    "data": ["Fold", "PathLike", "RankingData", "load_letor", "load_letor_folds", "save_letor", "split_queries"],
    "metrics": ["RankingScorer", "average_precision", "compute", "err", "evaluate", "make_scorer",
                "mean_average_precision", "mean_ndcg", "ndcg", "precision"],
    "plotting": ["SIMILARITY_LABELS", "feature_curves", "plot_cost_quality", "plot_feature_curves",
                 "plot_regularization_curves", "plot_selection_frequencies", "plot_similarity",
                 "plot_single_feature_scores", "save_experiment_figures"],
    "methods": ["METHODS", "Method", "POW2", "Param", "SELECTORS", "method_table"],
    "exceptions": ["DegenerateDataWarning"],
    "dask": ["GAS", "GreedyRankRLS", "RankRLS", "RankSVM", "SparseRankSVM", "compute", "evaluate",
             "feature_importance", "kendall_similarity", "partition_by_query", "read_letor"],
    "cli": ["EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED", "cli_wording", "main"],
}
#: flat modules that became packages of the same name (no alias needed)
BECAME_PACKAGES = {"data", "metrics", "plotting", "dask", "cli"}
#: modules that did not move
STAYED = {"methods", "exceptions"}


def test_the_alias_table_covers_every_moved_module():
    assert {old for old in MOVED if "." not in old and old != "wrapper"} == set(OLD_PUBLIC) - BECAME_PACKAGES - STAYED


def _forget(old: str) -> None:
    """Undo an earlier import of ``rankselect.<old>`` (so that importing it warns again)."""
    sys.modules.pop(f"rankselect.{old}", None)
    vars(rs).pop(old, None)


@pytest.mark.parametrize("old", sorted(OLD_PUBLIC))
def test_old_module_path_imports_its_names(old):
    if old == "dask":
        pytest.importorskip("distributed")
    moved = old in MOVED
    if moved:
        _forget(old)
        with pytest.warns(DeprecationWarning, match=rf"rankselect\.{old} is deprecated .*removed in 0\.3\.0; "
                                                    rf"use {new_paths(old)[0]}"):
            module = importlib.import_module(f"rankselect.{old}")
        vars(rs).pop(old, None)  # the attribute that the import set: now rankselect.__getattr__ answers
        with pytest.warns(DeprecationWarning, match=rf"rankselect\.{old} is deprecated"):
            assert getattr(rs, old) is module  # ``import rankselect; rankselect.<old>`` as before
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            module = importlib.import_module(f"rankselect.{old}")
            assert getattr(rs, old) is module
    namespace = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        exec(f"from rankselect.{old} import {', '.join(OLD_PUBLIC[old])}", namespace)
    for name in OLD_PUBLIC[old]:
        assert namespace[name] is getattr(module, name), (old, name)


def test_old_paths_give_the_new_objects():
    from rankselect.models.rankrls import RankRLS
    from rankselect.selection.gas import GAS
    from rankselect.selection.greedy_rankrls import GreedyRankRLS
    from rankselect.selection.similarity import kendall_similarity

    with pytest.warns(DeprecationWarning):
        import rankselect.gas
        import rankselect.kendall
        import rankselect.rankrls

        assert rankselect.gas.GAS is GAS is rs.GAS
        assert rankselect.rankrls.RankRLS is RankRLS and rankselect.rankrls.GreedyRankRLS is GreedyRankRLS
        assert rankselect.kendall.kendall_similarity is kendall_similarity
        assert rs.experiment is rs.protocol and rs.datasets is rs.data.datasets


#: module of each class now -> its module in the flat layout
NEW_TO_OLD = {
    "rankselect.models.rankrls": "rankselect.rankrls",
    "rankselect.selection.greedy_rankrls": "rankselect.rankrls",
    "rankselect.models.ranksvm": "rankselect.ranksvm",
    "rankselect.models.kernel_approximation": "rankselect.kernel_approximation",
    "rankselect.selection.sparse_ranksvm": "rankselect.sparse",
    "rankselect.selection.gas": "rankselect.gas",
    "rankselect.selection.fsmrank": "rankselect.fsmrank",
    "rankselect.selection.stability": "rankselect.stability",
    "rankselect.selection.importance": "rankselect.importance",
}


def _with_old_class_paths(obj) -> bytes:
    """``obj`` pickled as the flat layout pickled it: every class by its old module path."""
    data = pickle.dumps(obj, protocol=2)  # classes as GLOBAL opcodes: b"c<module>\n<name>\n"
    for new, old in NEW_TO_OLD.items():
        data = data.replace(b"c" + new.encode() + b"\n", b"c" + old.encode() + b"\n")
    return data


def _globals(data: bytes):
    return {arg for op, arg, _ in pickletools.genops(data) if op.name == "GLOBAL"}


@pytest.fixture(scope="module")
def example():
    return rs.data.datasets.load_example("train")


ESTIMATORS = {
    "RankRLS": lambda: rs.RankRLS(alpha=[0.5, 1.0]),
    "GreedyRankRLS": lambda: rs.GreedyRankRLS(n_features_to_select=4),
    "GAS": lambda: rs.GAS(4, 0.1),
    "RankSVM+Nystroem": lambda: rs.RankSVM(kernel="nystroem", n_components=20, random_state=0),
    "SparseRankSVM": lambda: rs.SparseRankSVM(C=0.5),
    "FSMRank": lambda: rs.FSMRank(),
    "FSMSVM": lambda: rs.FSMSVM(n_features_to_select=3),
    "StabilitySelection": lambda: rs.StabilitySelection(rs.GAS(3), n_resamples=3, random_state=0),
    "RandomFourierFeatures": lambda: rs.RandomFourierFeatures(n_components=10, random_state=0),
}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_estimator_pickled_under_the_old_class_path_unpickles(name, example):
    X, y, qid = example
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = ESTIMATORS[name]().fit(X, y, qid=qid)
    data = _with_old_class_paths(est)
    names = _globals(data)
    assert any(g.startswith(tuple(f"{old} " for old in NEW_TO_OLD.values())) for g in names), names
    assert not any(g.startswith(tuple(f"{new} " for new in NEW_TO_OLD)) for g in names), names
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the old path warns on its first import
        back = pickle.loads(data)
    assert type(back) is type(est)
    out = (lambda e: e.predict(X)) if hasattr(est, "predict") else (lambda e: e.transform(X))
    np.testing.assert_array_equal(out(back), out(est))


def test_results_pickled_under_the_old_class_path_unpickle(example):
    X, y, qid = example
    for obj in (rs.RankRLS().path(X, y, qid, alphas=[1.0, 2.0]), rs.sparse_path(X, y, qid, Cs=[0.1, 1.0]),
                rs.feature_importance(X, y, qid)):
        data = _with_old_class_paths(obj)
        assert not any(g.startswith(tuple(f"{new} " for new in NEW_TO_OLD)) for g in _globals(data))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            back = pickle.loads(data)
        assert type(back) is type(obj)
        for a, b in zip(vars(back).values() if hasattr(back, "__dict__") else back,
                        vars(obj).values() if hasattr(obj, "__dict__") else obj):
            np.testing.assert_array_equal(a, b)


# -- the version in a pickle (issue 40) ------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_pickle_records_the_version_and_loads_without_a_warning(name, example):
    X, y, qid = example
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = ESTIMATORS[name]().fit(X, y, qid=qid)
    assert est.__getstate__()["_rankselect_version"] == rs.__version__
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same version: no warning
        back = pickle.loads(pickle.dumps(est))
    assert "_rankselect_version" not in vars(back)  # not an attribute of the estimator


@pytest.mark.parametrize("made_by", ["0.0.1", None])
def test_a_pickle_of_another_version_warns_and_still_loads(example, made_by):
    from rankselect.exceptions import InconsistentVersionWarning

    X, y, qid = example
    est = rs.GreedyRankRLS(n_features_to_select=3).fit(X, y, qid=qid)
    state = est.__getstate__()
    if made_by is None:  # a pickle made before the version was recorded
        del state["_rankselect_version"]
    else:
        state["_rankselect_version"] = made_by
    back = rs.GreedyRankRLS.__new__(rs.GreedyRankRLS)
    with pytest.warns(InconsistentVersionWarning, match="unpickling GreedyRankRLS made by rankselect") as caught:
        back.__setstate__(state)
    w = caught[0].message
    assert (w.estimator_name, w.original_version, w.current_version) == ("GreedyRankRLS", made_by, rs.__version__)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
