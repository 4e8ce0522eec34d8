"""The estimator contract shared by every estimator and selector (rankselect._base):
qid routing, scorers, column names, degenerate data, refused inputs, small pickles."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.exceptions import DataConversionWarning
from sklearn.feature_selection import SequentialFeatureSelector
from sklearn.inspection import permutation_importance
from sklearn.model_selection import GridSearchCV, GroupKFold, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags

import rankselect as rs
from rankselect import metrics
from rankselect.exceptions import DegenerateDataWarning
from rankselect.metrics import make_scorer

RANKERS = [
    lambda: rs.RankRLS(),
    lambda: rs.GreedyRankRLS(n_features_to_select=2),
    lambda: rs.RankSVM(),
    lambda: rs.RankSVM(kernel="nystroem", n_components=10, random_state=0),
    lambda: rs.SparseRankSVM(),
    lambda: rs.FSMRank(),
    lambda: rs.FSMSVM(n_features_to_select=2),
]
SUPERVISED = RANKERS + [lambda: rs.GAS(n_features_to_select=2)]
SELECTORS = [
    lambda: rs.GreedyRankRLS(n_features_to_select=2),
    lambda: rs.GAS(n_features_to_select=2),
    lambda: rs.SparseRankSVM(C=10.0),
    lambda: rs.FSMRank(lambda2=0.001),
    lambda: rs.FSMSVM(n_features_to_select=2, lambda2=0.001),
]
KERNEL_MAPS = [lambda: rs.Nystroem(n_components=5, random_state=0),
               lambda: rs.RandomFourierFeatures(n_components=5, random_state=0)]
ALL = SUPERVISED + KERNEL_MAPS


def _id(make):
    return repr(make())


def data(seed=0, n_queries=12, docs=6, n=5):
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries) * 3 + 1, docs)
    X = rng.normal(size=(qid.size, n))
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=qid.size) + 1), 0, 2)
    return X, y, qid


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


# -- qid routing --------------------------------------------------------------------------
@pytest.mark.parametrize("make", SUPERVISED, ids=_id)
def test_fit_requests_qid(make):
    routing = make().get_metadata_routing()
    assert routing.fit.requests["qid"] is True
    if hasattr(make(), "score"):
        assert routing.score.requests["qid"] is True


def test_readme_pipeline_routes_qid_without_set_fit_request(routing):
    from rankselect import GreedyRankRLS, RankSVM

    X, y, qid = data()
    pipe = Pipeline([("sel", GreedyRankRLS(n_features_to_select=5)), ("rank", RankSVM())]).fit(X, y, qid=qid)
    sel = GreedyRankRLS(n_features_to_select=5).fit(X, y, qid=qid)
    ref = RankSVM().fit(X[:, sel.get_support()], y, qid=qid)
    np.testing.assert_allclose(pipe.predict(X), ref.predict(X[:, sel.get_support()]))
    assert pipe.score(X, y, qid=qid) == pytest.approx(metrics.ndcg(y, pipe.predict(X), qid, k=10))


@pytest.mark.parametrize("make", KERNEL_MAPS, ids=_id)
def test_kernel_maps_leave_qid_to_the_ranker(make, routing):
    X, y, qid = data(1)
    pipe = Pipeline([("map", make()), ("rank", rs.RankSVM())]).fit(X, y, qid=qid)
    assert pipe.predict(X).shape == (X.shape[0],)


# -- score and scorers --------------------------------------------------------------------
@pytest.mark.parametrize("make", RANKERS, ids=_id)
def test_score_is_mean_ndcg_at_10(make):
    X, y, qid = data(2)
    est = make().fit(X, y, qid=qid)
    assert est.score(X, y, qid) == pytest.approx(metrics.ndcg(y, est.predict(X), qid, k=10))
    with pytest.raises(ValueError, match="qid is required"):
        est.score(X, y)


def test_make_scorer_measures_and_conventions():
    X, y, qid = data(3)
    est = rs.RankRLS().fit(X, y, qid=qid)
    s = est.predict(X)
    for measure in ("ndcg@10", "map", "p@10", "meanndcg", "err@10", "NDCG"):
        want = metrics.compute(measure, y, s, qid, convention="letor", ties="pessimistic")
        with sklearn.config_context(enable_metadata_routing=True):
            got = make_scorer(measure, convention="letor", ties="pessimistic")(est, X, y, qid=qid)
        assert got == pytest.approx(want)
    with pytest.raises(ValueError):
        make_scorer("ndcg@0")
    with pytest.raises(ValueError, match="convention"):
        make_scorer("map", convention="trec_eval")
    scorer = make_scorer("map")
    assert scorer.get_metadata_routing().score.requests["qid"] is True
    with pytest.raises(ValueError, match="got no qid"):
        scorer(est, X, y)
    bound = pickle.loads(pickle.dumps(make_scorer("map", qid=qid)))  # picklable, for n_jobs
    assert bound(est, X, y) == pytest.approx(metrics.mean_average_precision(y, est.predict(X), qid))


def test_readme_grid_search_with_group_kfold(routing):
    X, y, qid = data(4, n_queries=15)
    search = GridSearchCV(
        Pipeline([("sel", rs.GreedyRankRLS()), ("rank", rs.RankSVM())]),
        {"sel__n_features_to_select": [1, 3]},
        cv=GroupKFold(n_splits=3),
        scoring=make_scorer("ndcg@10"),
    ).fit(X, y, qid=qid, groups=qid)
    # the split scores are NDCG@10 on the held-out queries, recomputed here
    test_qids = [np.unique(qid[test]) for _, test in GroupKFold(n_splits=3).split(X, y, groups=qid)]
    k = search.best_params_["sel__n_features_to_select"]
    scores = []
    for held in test_qids:
        tr, te = ~np.isin(qid, held), np.isin(qid, held)
        pipe = Pipeline([("sel", rs.GreedyRankRLS(n_features_to_select=k)), ("rank", rs.RankSVM())])
        pipe.fit(X[tr], y[tr], qid=qid[tr])
        scores.append(metrics.ndcg(y[te], pipe.predict(X[te]), qid[te], k=10))
    assert search.best_score_ == pytest.approx(np.mean(scores))


def test_default_scoring_is_the_rankers_score(routing):
    X, y, qid = data(15, n_queries=15)
    cv = GroupKFold(n_splits=3)
    search = GridSearchCV(rs.RankSVM(), {"C": [0.1, 1.0]}, cv=cv).fit(X, y, qid=qid, groups=qid)
    explicit = GridSearchCV(rs.RankSVM(), {"C": [0.1, 1.0]}, cv=cv, scoring=make_scorer("ndcg@10"))
    explicit.fit(X, y, qid=qid, groups=qid)
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], explicit.cv_results_["mean_test_score"])


def test_scorer_in_cross_validate_sfs_and_permutation_importance(routing):
    X, y, qid = data(5, n_queries=15)
    cv = cross_validate(rs.RankSVM(), X, y, params={"qid": qid, "groups": qid}, cv=GroupKFold(3),
                        scoring=make_scorer("map"))
    assert cv["test_score"].shape == (3,) and np.all((0 <= cv["test_score"]) & (cv["test_score"] <= 1))
    sfs = SequentialFeatureSelector(rs.RankRLS(), n_features_to_select=2, cv=GroupKFold(3),
                                    scoring=make_scorer("ndcg@10")).fit(X, y, qid=qid, groups=qid)
    assert sfs.get_support().sum() == 2 and sfs.get_support()[0]
    est = rs.RankRLS().fit(X, y, qid=qid)
    # permutation_importance passes no metadata: bind the query ids to the scorer
    imp = permutation_importance(est, X, y, scoring=make_scorer("ndcg@10", qid=qid), n_repeats=3,
                                 random_state=0)
    assert imp.importances_mean.argmax() == 0


# -- column names -------------------------------------------------------------------------
@pytest.mark.parametrize("make", SELECTORS, ids=_id)
def test_dataframe_column_names_round_trip(make):
    X, y, qid = data(6)
    cols = ["bm25", "tfidf", "pagerank", "length", "clicks"]
    df = pd.DataFrame(X, columns=cols)
    est = make().fit(df, y, qid=qid)
    np.testing.assert_array_equal(est.feature_names_in_, cols)
    names = est.get_feature_names_out()
    np.testing.assert_array_equal(names, np.asarray(cols)[est.get_support()])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "X does not have valid feature names"
        out = est.set_output(transform="pandas").transform(df)
        if hasattr(est, "predict"):
            est.predict(df)
    assert list(out.columns) == list(names)
    with pytest.raises(ValueError, match="feature names"):
        est.transform(df[cols[::-1]])


@pytest.mark.parametrize("make", KERNEL_MAPS, ids=_id)
def test_kernel_maps_keep_input_names_and_output_pandas(make):
    X, _, _ = data(7)
    df = pd.DataFrame(X, columns=list("abcde"))
    est = make().set_output(transform="pandas").fit(df)
    np.testing.assert_array_equal(est.feature_names_in_, list("abcde"))
    out = est.transform(df)
    assert list(out.columns) == list(est.get_feature_names_out()) and out.shape == (X.shape[0], 5)


# -- degenerate data: one warning class ---------------------------------------------------
def _degenerate(kind):
    X, y, qid = data(8)
    if kind == "no preference pair":
        y = np.ones_like(y)
    else:  # no informative feature: every feature constant inside every query
        X = np.repeat(np.random.default_rng(0).normal(size=(12, X.shape[1])), 6, axis=0)
    return X, y, qid


@pytest.mark.parametrize("kind", ["no preference pair", "no informative feature"])
@pytest.mark.parametrize("make", SUPERVISED, ids=_id)
def test_degenerate_data_warns_with_the_one_class(make, kind):
    X, y, qid = _degenerate(kind)
    with pytest.warns(DegenerateDataWarning, match=kind):
        est = make().fit(X, y, qid=qid)
    if hasattr(est, "coef_") and not isinstance(est, rs.GreedyRankRLS):
        np.testing.assert_allclose(est.coef_, 0.0, atol=1e-12,
                                   err_msg="no pair / no informative feature: nothing is learnt")
    if hasattr(est, "predict"):
        assert np.isfinite(est.predict(X)).all()
    assert issubclass(DegenerateDataWarning, UserWarning)


def test_informative_data_do_not_warn():
    X, y, qid = data(9)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DegenerateDataWarning)
        for make in SUPERVISED:
            make().fit(X, y, qid=qid)


# -- refused and converted inputs ---------------------------------------------------------
@pytest.mark.parametrize("make", ALL, ids=_id)
def test_refused_inputs_name_the_argument(make):
    X, y, qid = data(10)
    supervised = get_tags(make()).target_tags.required

    def fit(X_, y_=y, qid_=qid):
        return make().fit(X_, y_, qid=qid_)

    with pytest.raises(ValueError, match="^X: Complex data not supported"):
        fit(X + 1j)
    with pytest.raises(ValueError, match=r"^X: .*0 feature"):
        fit(X[:, :0])
    with pytest.raises(ValueError, match=r"^X: .*0 sample"):
        fit(X[:0], y[:0], qid[:0])
    with pytest.raises(ValueError, match=r"X contains NaN or infinity \(row 3, column 1"):
        Xn = X.copy()
        Xn[3, 1] = np.nan
        fit(Xn)
    with pytest.raises(TypeError, match="X must be numeric"):
        fit(np.full(X.shape, "a", dtype=object))
    if supervised:
        with pytest.raises(ValueError, match="^y: Complex data not supported"):
            fit(X, y + 1j)
        with pytest.raises(ValueError, match="y has 71 entries but X has 72 rows"):
            fit(X, y[:-1])
        with pytest.raises(ValueError, match="qid has 71 entries but X has 72 rows"):
            fit(X, y, qid[:-1])
        with pytest.raises(ValueError, match="qid is required"):
            fit(X, y, None)
        with pytest.raises(ValueError, match="requires y to be passed"):
            fit(X, None)
    est = fit(X)
    with pytest.raises(ValueError, match="X has 4 features, but .* is expecting 5"):
        (est.transform if hasattr(est, "transform") else est.predict)(X[:, :4])


@pytest.mark.parametrize("make", SUPERVISED, ids=_id)
def test_converted_inputs_as_scikit_learn(make):
    X, y, qid = data(11)
    ref = make().fit(X, y, qid=qid)
    with pytest.warns(DataConversionWarning):
        col = make().fit(X, y[:, None], qid=qid)
    obj = make().fit(X.astype(object), y.astype(object), qid=qid)
    sparse = make().fit(sp.csr_matrix(X), y, qid=qid)
    for est in (col, obj, sparse):
        for attr in ("coef_", "selected_features_"):
            if hasattr(ref, attr):
                np.testing.assert_allclose(getattr(est, attr), getattr(ref, attr))
    assert get_tags(ref).input_tags.sparse and get_tags(ref).target_tags.required
    assert get_tags(ref).estimator_type is None  # a ranker: neither classifier nor regressor
    if hasattr(ref, "predict"):
        np.testing.assert_allclose(sparse.predict(sp.csr_matrix(X)), ref.predict(X))


# -- RankRLS keeps only what prediction needs ---------------------------------------------
def test_pickled_rankrls_is_small_and_lqo_predict_takes_the_data_again():
    rng = np.random.default_rng(12)
    qid = np.repeat(np.arange(400), 10)
    X = rng.normal(size=(qid.size, 40))
    y = rng.integers(0, 3, size=qid.size).astype(float)
    est = rs.RankRLS(alpha=[0.5, 1.0, 2.0]).fit(X, y, qid=qid)
    blob = pickle.dumps(est)
    assert X.nbytes == 1_280_000 and len(blob) < 4_000, len(blob)
    back = pickle.loads(blob)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    np.testing.assert_array_equal(back.lqo_predict(X, y, qid), est.lqo_predict(X, y, qid))
    with pytest.raises(ValueError, match="lqo_predict needs the training data"):
        est.lqo_predict(X, y[::-1].copy(), qid)


def test_gas_positional_as_in_the_readme():
    X, y, qid = data(13)
    a = rs.GAS(2, 0.5).fit(X, y, qid=qid)
    b = rs.GAS(n_features_to_select=2, c=0.5).fit(X, y, qid=qid)
    np.testing.assert_array_equal(a.selected_features_, b.selected_features_)


def test_fsmsvm_reports_iterations():
    X, y, qid = data(14)
    est = rs.FSMSVM(n_features_to_select=2, max_iter=7, lambda2=0.001).fit(X, y, qid=qid)
    assert est.n_iter_ == est.fsmrank_.n_iter_ and 1 <= est.n_iter_ <= 7


def test_metrics_all_is_the_public_api():
    assert "make_scorer" in metrics.__all__
    assert not {"Dict", "np", "numbers", "Optional"} & set(metrics.__all__)
    for name in metrics.__all__:
        assert callable(getattr(metrics, name))
    with pytest.raises(ValueError, match="scores has 2 entries but y has 3 entries"):
        metrics.ndcg([1, 0, 1], [0.1, 0.2], [1, 1, 1])


# -- the Dask estimators: the in-memory contract, plus client ------------------------------
DASK = [("GreedyRankRLS", dict(n_features_to_select=2)), ("RankRLS", {}), ("RankSVM", {}),
        ("SparseRankSVM", {}), ("GAS", dict(n_features_to_select=2))]
BAD_PARAMS = [("GAS", dict(c=-1)), ("SparseRankSVM", dict(C=-1)), ("SparseRankSVM", dict(penalty="l2")),
              ("SparseRankSVM", dict(weights=[1.0] * 4)), ("RankSVM", dict(C=0)), ("RankSVM", dict(kernel="rbf")),
              ("RankRLS", dict(alpha=-1.0)), ("GreedyRankRLS", dict(n_features_to_select=0)),
              ("GreedyRankRLS", dict(n_features_to_select=6)), ("GreedyRankRLS", dict(criterion="ndcg@0")),
              ("GreedyRankRLS", dict(feature_costs=[1.0, -1.0, 1.0, 1.0, 1.0])), ("GAS", dict(budget=-1.0)),
              ("GAS", dict(n_features_to_select=6)), ("GAS", dict(importance="nope"))]


@pytest.fixture(scope="module")
def dask_client(shared_dask_client):
    pytest.importorskip("dask.array")
    return shared_dask_client  # the session's in-process cluster (tests/conftest.py)


def _dask(X, y, qid, parts=2):
    import rankselect.dask as rd

    return rd.partition_by_query(X, y, qid, n_partitions=parts)


def _fitted(est):
    """The fitted attributes, less a Dask selector's facts about its cluster (``n_rebuilds_``)."""
    cluster_only = getattr(est, "_cluster_attributes", ())
    return {k: v for k, v in vars(est).items() if k.endswith("_") and not k.startswith("_") and k not in cluster_only}


@pytest.mark.parametrize("name", [n for n, _ in DASK])
def test_dask_signature_is_the_in_memory_one_plus_client(name):
    import inspect

    rd = pytest.importorskip("rankselect.dask")
    mem, dis = getattr(rs, name), getattr(rd, name)
    assert issubclass(dis, mem)
    params = list(inspect.signature(dis).parameters.values())
    assert params[:-1] == list(inspect.signature(mem).parameters.values())
    client = params[-1]
    assert (client.name, client.kind, client.default) == ("client", inspect.Parameter.KEYWORD_ONLY, None)
    assert inspect.signature(dis.fit) == inspect.signature(mem.fit)


@pytest.mark.parametrize("name, params", BAD_PARAMS, ids=repr)
def test_dask_validation_is_the_in_memory_one(dask_client, name, params):
    import rankselect.dask as rd

    X, y, qid = data(16, n=5)
    with pytest.raises((ValueError, TypeError)) as mem:
        getattr(rs, name)(**params).fit(X, y, qid=qid)
    with pytest.raises(type(mem.value)) as dis:
        getattr(rd, name)(**params).fit(*_dask(X, y, qid))
    assert str(dis.value) == str(mem.value)


@pytest.mark.parametrize("kind", ["no preference pair", "no informative feature", None])
@pytest.mark.parametrize("name, params", DASK, ids=repr)
def test_dask_warnings_and_fitted_attributes_are_the_in_memory_ones(dask_client, name, params, kind):
    import rankselect.dask as rd

    X, y, qid = _degenerate(kind) if kind else data(17)
    with warnings.catch_warnings(record=True) as mem_w:
        warnings.simplefilter("always")
        mem = getattr(rs, name)(**params).fit(X, y, qid=qid)
    with warnings.catch_warnings(record=True) as dis_w:
        warnings.simplefilter("always")
        dis = getattr(rd, name)(**params).fit(*_dask(X, y, qid))
    messages = [[str(w.message) for w in ws if w.category is DegenerateDataWarning] for ws in (mem_w, dis_w)]
    assert messages[0] == messages[1] and bool(messages[0]) == bool(kind)
    assert _fitted(dis).keys() == _fitted(mem).keys()
    for key, value in _fitted(mem).items():
        if isinstance(value, (float, np.ndarray)) and np.asarray(value).dtype.kind == "f":
            np.testing.assert_allclose(getattr(dis, key), value, rtol=1e-10, atol=1e-12, err_msg=key)
        else:
            np.testing.assert_array_equal(getattr(dis, key), value, err_msg=key)
