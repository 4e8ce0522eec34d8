"""RankNystroem / RankRandomFourier: the one-liner RankSVM(kernel=...) and the pipeline route."""
import numpy as np
import pytest
import sklearn
from sklearn.pipeline import make_pipeline

from rankselect import Nystroem, RandomFourierFeatures, RankSVM


def _ranking(seed=0, n_queries=12, per_query=15, d=5):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_queries * per_query, d))
    qid = np.repeat(np.arange(n_queries), per_query)
    y = np.digitize(np.sin(X[:, 0] * 2) + X[:, 1] ** 2 + 0.1 * rng.normal(size=len(X)), [0.3, 1.2])
    return X, y.astype(float), qid


@pytest.mark.parametrize("kernel,cls", [("nystroem", Nystroem), ("rff", RandomFourierFeatures)])
def test_one_liner_equals_explicit_map_and_pipeline(kernel, cls):
    X, y, qid = _ranking()
    one = RankSVM(C=0.5, kernel=kernel, n_components=40, gamma=0.3, random_state=1).fit(X, y, qid=qid)
    kmap = (cls("rbf", gamma=0.3, n_components=40, random_state=1) if cls is Nystroem
            else cls(gamma=0.3, n_components=40, random_state=1))
    Z = kmap.fit_transform(X)
    lin = RankSVM(C=0.5).fit(Z, y, qid=qid)
    np.testing.assert_allclose(one.coef_, lin.coef_, rtol=1e-12, atol=1e-12)
    Xt, _, _ = _ranking(seed=1)
    np.testing.assert_allclose(one.predict(Xt), lin.predict(kmap.transform(Xt)), atol=1e-10)
    assert one.coef_.shape == (40,)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = make_pipeline(kmap, RankSVM(C=0.5).set_fit_request(qid=True)).fit(X, y, qid=qid)
        np.testing.assert_allclose(pipe.predict(Xt), one.predict(Xt), atol=1e-10)


def test_kernel_ranker_fits_nonlinear_signal_better_than_linear():
    X, y, qid = _ranking(n_queries=30)
    lin = RankSVM(C=1.0).fit(X, y, qid=qid)
    ker = RankSVM(C=1.0, kernel="nystroem", n_components=100, gamma=0.5, random_state=0).fit(X, y, qid=qid)
    # training pairwise objective per pair is lower with the RBF map (nonlinear labels)
    assert ker.objective_ < lin.objective_


def test_bad_kernel():
    X, y, qid = _ranking()
    with pytest.raises(ValueError, match="kernel"):
        RankSVM(kernel="poly").fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="gamma"):
        RankSVM(kernel="rff", gamma=-1.0).fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="n_components"):
        RankSVM(kernel="nystroem", n_components=0).fit(X, y, qid=qid)
