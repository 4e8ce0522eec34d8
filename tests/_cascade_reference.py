"""A naive reference of the cascade grid (``_core.cascade_grid_per_query``): each query's
composed ranking built from Python sorts, measured by :func:`rankselect.metrics.compute`.
Shared by the tests and by ``benches/cascade_bench.py`` (the NumPy grid it is timed against)."""
from __future__ import annotations

import numpy as np

from rankselect.metrics import compute


def composed_positions(s1, s2, window, labels=None):
    """One query's documents' positions (0 = first) in the cascade's ranking: phase 1's top
    ``window`` (by ``s1`` descending, ties in row order) ordered by ``s2`` (ties in phase-1
    order), then the rest in phase-1 order. With ``labels`` (pessimistic ties), equal scores
    put lower labels first, then as above."""
    n = len(s1)
    lab = np.zeros(n) if labels is None else labels
    order1 = sorted(range(n), key=lambda i: (-s1[i], lab[i], i))
    if s2 is None:
        ranking = order1
    else:
        top = order1[:window]
        ranking = sorted(top, key=lambda i: (-s2[i], lab[i], top.index(i))) + order1[window:]
    pos = np.empty(n)
    pos[ranking] = np.arange(n)
    return pos


def reference_grid(spec, y, offsets, scores1, scores2, phase1, windows):
    """``(single, cascade)`` as the core returns them (``scores1`` (n1, m), ``scores2`` (n2, m):
    one row per ranker), from :func:`composed_positions`."""
    measure, convention, ties = spec
    offsets = np.asarray(offsets, dtype=np.intp)
    qid = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    n_q = len(offsets) - 1

    def values(s2_col, a, window):
        neg = np.empty(len(y))
        for q in range(n_q):
            lo, hi = offsets[q], offsets[q + 1]
            s2 = None if s2_col is None else s2_col[lo:hi]
            neg[lo:hi] = -composed_positions(scores1[a, lo:hi], s2, window,
                                             y[lo:hi] if ties == "pessimistic" else None)
        return compute(measure, y, neg, qid, convention=convention, per_query=True)

    single = np.column_stack([values(None, a, None) for a in range(scores1.shape[0])]) if n_q else \
        np.zeros((0, scores1.shape[0]))
    cascade = np.zeros((n_q, scores2.shape[0]))
    for c in range(scores2.shape[0]):
        cascade[:, c] = values(scores2[c], int(phase1[c]), int(windows[c]))
    return single, cascade
