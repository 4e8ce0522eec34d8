"""Brute-force NumPy references for RankRLS and greedy RankRLS (tests only)."""
import numpy as np


def center(v, qid):
    v = np.array(v, dtype=float, copy=True)
    for q in np.unique(qid):
        rows = qid == q
        v[rows] -= v[rows].mean(axis=0)
    return v


def ridge(Xc, yc, alpha):
    n = Xc.shape[1]
    return np.linalg.solve(Xc.T @ Xc + alpha * np.eye(n), Xc.T @ yc)


def lqo(X, y, qid, alpha):
    """Delete each query, re-centre the rest, solve from scratch, predict the held-out query.

    Returns (error, predictions): error = sum over queries of squared query-centred hold-out
    residuals; predictions = raw scores X_q w_{-q} in input order.
    """
    pred = np.zeros(len(y))
    err = 0.0
    for q in np.unique(qid):
        out = qid == q
        keep = ~out
        w = ridge(center(X[keep], qid[keep]), center(y[keep], qid[keep]), alpha)
        pred[out] = X[out] @ w
        res = center(y[out] - pred[out], qid[out])
        err += float(res @ res)
    return err, pred


def constant_within_queries(X, qid):
    """Boolean mask of the features constant within every query (zero centred column)."""
    X = np.asarray(X, dtype=float)
    const = np.ones(X.shape[1], dtype=bool)
    for q in np.unique(qid):
        Xq = X[qid == q]
        const &= np.all(Xq == Xq[0], axis=0)
    return const


def greedy(X, y, qid, k, alpha, rel_tie=1e-10):
    """Brute-force greedy forward selection by LQO error; near-ties to the lowest index.
    Features constant within every query cannot change the model and are never candidates;
    the path stops when only such features are left (so it may have fewer than k steps)."""
    n = X.shape[1]
    const = constant_within_queries(X, qid)
    selected, errors, path = [], [], []
    for _ in range(k):
        cand = [j for j in range(n) if j not in selected and not const[j]]
        if not cand:
            break
        errs = np.array([lqo(X[:, selected + [j]], y, qid, alpha)[0] for j in cand])
        best = errs.min()
        j = cand[int(np.flatnonzero(errs <= best + rel_tie * abs(best))[0])]
        selected.append(j)
        errors.append(float(errs[cand.index(j)]))
        w = np.zeros(n)
        w[selected] = ridge(center(X[:, selected], qid), center(y, qid), alpha)
        path.append(w)
    return selected, np.array(errors), np.array(path).reshape(len(path), n)


def group_greedy(X, y, qid, groups, k, alpha):
    """Forward selection over groups (lists of columns) that refits RankRLS and computes the
    exact LQO error from scratch for every candidate group; ties to the lowest group index.
    Returns (group order, errors, weights of every prefix)."""
    n = X.shape[1]
    chosen, feats, errors, path = [], [], [], []
    for _ in range(k):
        cand = [g for g in range(len(groups)) if g not in chosen]
        errs = np.array([lqo(X[:, feats + list(groups[g])], y, qid, alpha)[0] for g in cand])
        g = cand[int(np.argmin(errs))]
        chosen.append(g)
        feats += list(groups[g])
        errors.append(float(errs.min()))
        w = np.zeros(n)
        w[feats] = ridge(center(X[:, feats], qid), center(y, qid), alpha)
        path.append(w)
    return chosen, np.array(errors), np.array(path).reshape(len(path), n)


def load_mq2008(fold, part="train"):
    """(X, y, qid) of MQ2008 FoldN/part.txt, or skip when the shared data is absent."""
    from conftest import shared_path

    path = shared_path("MQ2008", f"Fold{fold}", f"{part}.txt")
    try:
        from rankselect.data import load_letor
    except ImportError:  # the data layer lives on another branch until merged
        from sklearn.datasets import load_svmlight_file

        X, y, qid = load_svmlight_file(str(path), query_id=True, n_features=46)
        return np.asarray(X.todense()), y, qid
    d = load_letor(path)
    return np.asarray(d.X), np.asarray(d.y), np.asarray(d.qid)
