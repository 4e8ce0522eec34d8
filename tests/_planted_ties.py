"""Problems with planted exact ties for greedy RankRLS (issue 46), shared by the in-memory and
the Dask tests.

``all_tied``: features vary within one query only (every other query is constant within
itself, so its centred rows are zero): the model without that query is zero, and without any
other query that query's residuals are its own centred labels, so every subset has the same
exact LQO value (the sum of the varying query's squared centred labels) and the same ranking
measure. A singleton query and one query of 8 is the smallest case (``reproducer``).

``constant_labels``: labels vary within one query only: held out, that query's model was
trained on labels that teach nothing, so its exact predictions are all 0 (an exact tie of
every document); every other query's labels are constant, so its measure is the same for any
ranking. Every subset then has the same ranking-measure criterion.
"""
from __future__ import annotations

import numpy as np


def reproducer(seed: int = 0):
    """A singleton query plus one query of 8 documents (labels 2, 2, 1 and five 0s, shuffled:
    every subset scores exactly 5.875), 6 random features."""
    rng = np.random.default_rng(seed)
    qid = np.array([0] + [1] * 8)
    y = np.concatenate([[2.0], rng.permutation([2.0, 2, 1, 0, 0, 0, 0, 0])])
    return rng.normal(size=(9, 6)), y, qid


def all_tied(rng, alpha_range=(-3.0, 3.0)):
    """``(X, y, qid, alpha, k)``: the ``all_tied`` family (module docs), alpha log-uniform."""
    nq = int(rng.integers(2, 6))
    sizes = rng.integers(1, 7, nq)
    vary = int(rng.integers(nq))
    sizes[vary] = rng.integers(3, 9)
    qid = np.repeat(np.arange(nq), sizes)
    n = int(rng.integers(3, 9))
    X = np.repeat(rng.normal(size=(nq, n)), sizes, axis=0)
    X[qid == vary] = rng.normal(size=(int(sizes[vary]), n))
    y = rng.integers(0, 4, qid.size).astype(float)
    return X, y, qid, 10 ** rng.uniform(*alpha_range), min(n, 4)


def constant_labels(rng, alpha_range=(-1.0, 3.0)):
    """``(X, y, qid, alpha, k)``: the ``constant_labels`` family (module docs)."""
    nq = int(rng.integers(2, 6))
    sizes = rng.integers(2, 7, nq)
    qid = np.repeat(np.arange(nq), sizes)
    n = int(rng.integers(3, 9))
    X = rng.normal(size=(qid.size, n))
    y = np.repeat(rng.integers(0, 3, nq), sizes).astype(float)
    vary = int(rng.integers(nq))
    y[qid == vary] = rng.integers(0, 4, int(sizes[vary]))
    return X, y, qid, 10 ** rng.uniform(*alpha_range), min(n, 4)


def tied_value(y, qid):
    """The LQO squared error every subset of an ``all_tied`` problem has: the sum of the
    queries' squared centred labels (a constant query's rows predict nothing either)."""
    return float(sum(((y[qid == q] - y[qid == q].mean()) ** 2).sum() for q in np.unique(qid)))
