"""The exact leave-query-out criterion by brute force (tests only), and the greedy searches over
units (a unit is a list of columns; a feature is a unit of one) written from it.

``lqo_exact`` deletes each query, re-centres the rest, fits ridge on what is left and scores
the held-out query: the definition of the criterion (Pahikkala et al. 2010, eq. 7), with no
shortcut. The held-out fit is the ridge solution by the singular value decomposition,
``w = V diag(s / (s^2 + alpha)) U^T yc``: its weights on directions the other queries do not
span are ``0`` however small ``alpha`` is (a solve of the normal equations ``Xc^T Xc + alpha I``
turns their rounding into weights of size ``eps ||X||^2 / alpha`` there). ``lqo_fraction`` is
the same definition in exact rational arithmetic (``fractions.Fraction``): the tests check
``lqo_exact`` against it on small problems.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np


def _queries(qid):
    qid = np.asarray(qid)
    return [np.flatnonzero(qid == q) for q in dict.fromkeys(qid.tolist())]


def _center(v, rows_of):
    v = np.array(v, dtype=float, copy=True)
    for rows in rows_of:
        v[rows] -= v[rows].mean(axis=0)
    return v


def ridge_svd(Xc, yc, alpha):
    """Ridge weights ``argmin ||yc - Xc w||^2 + alpha ||w||^2`` through the SVD of ``Xc``."""
    if Xc.shape[0] == 0 or Xc.shape[1] == 0:
        return np.zeros(Xc.shape[1])
    u, s, vt = np.linalg.svd(Xc, full_matrices=False)
    return vt.T @ ((s / (s * s + alpha)) * (u.T @ yc))


def lqo_residuals(X, y, qid, cols, alpha):
    """Query-centred hold-out residuals ``yc_q - Xc_q w_{-q}`` (input order) of RankRLS on
    ``cols``: for each query, the ridge fit on the other queries (each centred on its own)."""
    X = np.asarray(X, dtype=float)[:, list(cols)]
    y = np.asarray(y, dtype=float)
    qs = _queries(qid)
    Xc, yc = _center(X, qs), _center(y, qs)
    res = np.zeros(len(y))
    for rows in qs:
        keep = np.ones(len(y), dtype=bool)
        keep[rows] = False
        w = ridge_svd(Xc[keep], yc[keep], alpha)
        res[rows] = yc[rows] - Xc[rows] @ w
    return res


def lqo_exact(X, y, qid, cols, alpha):
    """The exact LQO squared error (eq. 7) of RankRLS on the columns ``cols``."""
    r = lqo_residuals(X, y, qid, cols, alpha)
    return float(r @ r)


def lqo_fraction(X, y, qid, cols, alpha):
    """:func:`lqo_exact` in exact rational arithmetic (the data's floats as exact fractions;
    the held-out fits by Gauss-Jordan elimination on ``Xc^T Xc + alpha I``)."""
    F = Fraction
    qs = _queries(qid)
    Xf = [[F(float(v)) for v in row] for row in np.asarray(X, dtype=float)[:, list(cols)]]
    yf = [F(float(v)) for v in y]
    a = F(float(alpha))
    t = len(cols)
    for rows in qs:  # centre per query
        n = len(rows)
        for j in range(t):
            mean = sum(Xf[r][j] for r in rows) / n
            for r in rows:
                Xf[r][j] -= mean
        mean = sum(yf[r] for r in rows) / n
        for r in rows:
            yf[r] -= mean
    err = F(0)
    for rows in qs:
        held = set(rows.tolist())
        keep = [r for r in range(len(yf)) if r not in held]
        A = [[sum(Xf[r][i] * Xf[r][j] for r in keep) + (a if i == j else 0) for j in range(t)] for i in range(t)]
        b = [sum(Xf[r][i] * yf[r] for r in keep) for i in range(t)]
        w = _solve_fraction(A, b)
        for r in rows:
            e = yf[r] - sum(Xf[r][j] * w[j] for j in range(t))
            err += e * e
    return err


def _solve_fraction(A, b):
    """``A^-1 b`` for a symmetric positive definite ``A`` of fractions (Gauss-Jordan)."""
    n = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = next(r for r in range(c, n) if M[r][c] != 0)
        M[c], M[p] = M[p], M[c]
        piv = M[c][c]
        M[c] = [v / piv for v in M[c]]
        for r in range(n):
            if r != c and M[r][c] != 0:
                f = M[r][c]
                M[r] = [v - f * pv for v, pv in zip(M[r], M[c])]
    return [M[i][n] for i in range(n)]


def informative_units(X, qid, units):
    """``True`` for the units with a column that varies within some query (the others cannot
    change the model: never candidates). A column varies when two of a query's values differ
    (not by the rounding residue of its centred values)."""
    X = np.asarray(X, dtype=float)
    varies = np.zeros(X.shape[1], dtype=bool)
    for rows in _queries(qid):
        varies |= np.any(X[rows] != X[rows][:1], axis=0)
    return [bool(varies[list(u)].any()) for u in units]


def _lowest_near_best(cands, rel):
    """``(value, unit)`` of the lowest unit whose value is within ``rel`` of the smallest."""
    m = min(v for v, _ in cands)
    return min((c for c in cands if c[0] - m <= rel * max(abs(m), abs(c[0]))), key=lambda c: c[1])


def forward_units(X, y, qid, units, k, alpha, rel_tie=0.0):
    """Forward selection over ``units`` by the exact LQO error: each step adds the unit of the
    smallest error (ties within ``rel_tie`` relative to the lowest unit); uninformative units
    are never candidates and the path stops when only they are left. Returns the unit order,
    the errors and, per step, the candidates' errors ``{unit: error}``."""
    ok = informative_units(X, qid, units)
    chosen, cols, errors, scans = [], [], [], []
    for _ in range(k):
        cand = [u for u in range(len(units)) if u not in chosen and ok[u]]
        if not cand:
            break
        scan = {u: lqo_exact(X, y, qid, cols + list(units[u]), alpha) for u in cand}
        v, u = _lowest_near_best([(v, u) for u, v in scan.items()], rel_tie)
        chosen.append(u)
        cols += list(units[u])
        errors.append(v)
        scans.append(scan)
    return chosen, np.array(errors), scans


def sffs_units(X, y, qid, units, k, alpha, tie=1e-8):
    """Sequential floating forward selection over ``units`` (Pudil et al. 1994) as
    ``GreedyRankRLS(floating=True)`` documents it, with every value from :func:`lqo_exact`:
    the best new addition, then removals while the smaller subset beats the best of its size
    by more than a relative ``tie``; no subset twice; ties (within ``tie``) to the lowest unit.
    Returns the best subset (units, in order of entry) and its error for every size."""
    ok = informative_units(X, qid, units)

    def crit(s):
        return lqo_exact(X, y, qid, [c for u in s for c in units[u]], alpha)

    best: dict = {}
    visited = set()
    cur: list = []
    while len(cur) < k:
        cands = [(crit(cur + [u]), u) for u in range(len(units))
                 if u not in cur and ok[u] and frozenset(cur + [u]) not in visited]
        if not cands:
            break
        v, b = _lowest_near_best(cands, tie)
        cur = cur + [b]
        visited.add(frozenset(cur))
        if len(cur) not in best or v < best[len(cur)][0]:
            best[len(cur)] = (v, list(cur))
        while len(cur) > 1:
            v, j = _lowest_near_best([(crit([f for f in cur if f != j]), j) for j in sorted(cur)], tie)
            smaller = [f for f in cur if f != j]
            bv = best[len(smaller)][0]
            if not (bv - v > tie * max(abs(bv), abs(v))) or frozenset(smaller) in visited:
                break
            visited.add(frozenset(smaller))
            cur = smaller
            best[len(cur)] = (v, list(cur))
    sizes = sorted(best)
    return [best[s][1] for s in sizes], np.array([best[s][0] for s in sizes])


def random_problem(rng, *, wide=None):
    """A small random ranking problem ``(X, y, qid)`` with the hard cases of an exact selector
    drawn at random: singleton queries, wide data (more columns than rows), duplicated and
    nearly collinear columns, a column that is an exact combination of two others, columns
    constant within every query (or everywhere), a column non-zero in one query only, columns
    of very different scales, integer grades or real labels."""
    n_queries = int(rng.integers(2, 7))
    sizes = rng.integers(1, 7, size=n_queries)
    if rng.random() < 0.3:
        sizes[rng.integers(n_queries)] = 1  # a singleton query
    m = int(sizes.sum())
    if wide is None:
        wide = rng.random() < 0.3
    n = int(rng.integers(m + 1, m + 6)) if wide else int(rng.integers(1, 9))
    qid = np.repeat(np.arange(n_queries) * 3 + 5, sizes)
    X = rng.normal(size=(m, n))
    if rng.random() < 0.3:
        X *= 10.0 ** rng.uniform(-3, 3, size=n)  # very different scales
    if n >= 2:
        for _ in range(int(rng.integers(0, 3))):
            i, j = rng.choice(n, size=2, replace=False)
            kind = rng.integers(5)
            if kind == 0:
                X[:, j] = X[:, i]  # duplicate
            elif kind == 1:
                X[:, j] = X[:, i] + 10.0 ** rng.uniform(-7, -1) * rng.normal(size=m)  # nearly collinear
            elif kind == 2:
                X[:, j] = 2.0 * X[:, i] - 0.5 * X[:, (i + 1) % n] if n > 2 else -X[:, i]  # exact combination
            elif kind == 3:
                X[:, j] = np.repeat(rng.normal(size=n_queries), sizes)  # constant within every query
            else:
                X[:, j] = 0.0
                q = rng.integers(n_queries)
                X[qid == qid[np.cumsum(sizes)[q] - 1], j] = rng.normal(size=sizes[q])  # one query only
    if rng.random() < 0.1:
        X[:, rng.integers(n)] = 3.0  # constant everywhere
    if rng.random() < 0.5:
        y = rng.integers(0, 4, size=m).astype(float)
    else:
        y = X[:, : min(n, 3)] @ rng.normal(size=min(n, 3)) + 0.3 * rng.normal(size=m)
    return X, y, qid


def wide_problem(rng):
    """A wide problem: :func:`random_problem`'s data (and hard cases) widened to 2 to 4 times
    more columns than rows, with duplicated, rescaled and combined columns among the new ones."""
    X, y, qid = random_problem(rng, wide=True)
    m, n = X.shape
    extra = [X[:, rng.integers(n)] * 10.0 ** rng.uniform(-2, 2) if rng.random() < 0.2 else rng.normal(size=m)
             for _ in range(int(rng.integers(m, 3 * m)))]
    return np.column_stack([X] + extra), y, qid


def random_units(rng, n):
    """A random partition of the ``n`` columns into units of 1 to 4 columns."""
    cols = rng.permutation(n)
    units, i = [], 0
    while i < n:
        b = int(rng.integers(1, 5))
        units.append(sorted(cols[i:i + b].tolist()))
        i += b
    return units
