"""The filters' inputs over feature groups (GAS, NGAS, XGAS, HCAS with ``select_groups=True``).

A filter compares units by their importance and their similarity. Over groups, two rules
(``group_importance=``):

- ``"max"`` (:func:`group_inputs`): a group is worth its best member, ``W_G = max_{j in G}
  w_j`` (with that member's direction), and two groups are as similar as their most similar
  members, ``E(G, H) = max_{i in G, j in H} e_ij``;
- ``"joint"`` (:func:`joint_group_scores`): a group is measured **as a whole**: its own
  ranker, RankRLS on the group's columns (``alpha`` 1), scores every document by the exact
  leave-query-out prediction ``x_i w_{-q(i)}`` (Pahikkala et al. 2010, Theorem 3.1: the model
  trained without the document's query, so a large group gains nothing from fitting its own
  training queries); the group's importance is the importance measure of that score, and
  the similarity of two groups the similarity of their scores, exactly as for two features.

A group is constant when all its members are (its joint score is then constant within every
query too).
"""
from __future__ import annotations

import numpy as np

from .. import _core
from ..data.grouping import GroupedData

__all__ = ["group_inputs", "joint_group_scores", "GROUP_IMPORTANCES", "JOINT_ALPHA"]

#: the rules of a group's importance and similarity (module docstring)
GROUP_IMPORTANCES = ("joint", "max")

#: the ridge parameter of each group's RankRLS ranker (``"joint"``)
JOINT_ALPHA = 1.0


def group_inputs(importance: np.ndarray, similarity: np.ndarray, constant: np.ndarray,
                 members: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The filters' inputs over groups (module docstring): ``W_G = max_{j in G} w_j``,
    ``E(G, H) = max_{i in G, j in H} e_ij`` (``E(G, G) = 1``), a group constant when all its
    members are, and the best member of each group (whose direction the group takes).

    Parameters
    ----------
    importance : ndarray of shape (n_features,)
    similarity : ndarray of shape (n_features, n_features)
    constant : ndarray of bool, shape (n_features,)
    members : list of n_groups arrays of feature indices

    Returns
    -------
    group_importance : ndarray of shape (n_groups,)
    group_similarity : ndarray of shape (n_groups, n_groups)
    group_constant : ndarray of bool, shape (n_groups,)
    best_member : ndarray of int, shape (n_groups,)

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.selection.filter_base import group_inputs
    >>> e = np.array([[1., .2, .7], [.2, 1., .1], [.7, .1, 1.]])
    >>> w, s, c, best = group_inputs(np.array([.3, .5, .4]), e, np.zeros(3, bool), [np.array([0, 1]), np.array([2])])
    >>> w, s, best
    (array([0.5, 0.4]), array([[1. , 0.7],
           [0.7, 1. ]]), array([1, 2]))
    """
    k = len(members)
    best = np.array([m[np.argmax(importance[m])] for m in members], dtype=np.intp)
    w = importance[best].astype(np.float64)
    s = np.ones((k, k))
    for a in range(k):
        for b in range(a + 1, k):
            s[a, b] = s[b, a] = similarity[np.ix_(members[a], members[b])].max()
    return w, s, np.array([constant[m].all() for m in members]), best


def joint_group_scores(data: GroupedData, members: list, alpha: float = JOINT_ALPHA) -> GroupedData:
    """Each group's own ranker as one column (``group_importance="joint"``): the exact
    leave-query-out predictions of RankRLS fitted on the group's columns.

    Parameters
    ----------
    data : GroupedData
        The fit's rows, grouped by query (at least two queries).
    members : list of n_groups arrays of column indices
    alpha : float > 0

    Returns
    -------
    GroupedData
        The same rows and labels with ``X`` of shape (n_samples, n_groups): column ``g`` is
        group ``g``'s leave-query-out score.

    Examples
    --------
    >>> import numpy as np
    >>> import rankselect as rs
    >>> from rankselect.data import GroupedData
    >>> from rankselect.selection.group_inputs import joint_group_scores
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> scores = joint_group_scores(GroupedData.from_arrays(X, y, qid), [np.arange(0, 11), np.arange(11, 22)])
    >>> scores.X.shape
    (583, 2)
    """
    if data.n_queries < 2:
        raise ValueError(f"group_importance='joint' needs at least two queries (leave-query-out), got "
                         f"{data.n_queries} (n_samples={data.X.shape[0]}): use group_importance='max'")
    out = np.empty((data.X.shape[0], len(members)))
    for g, cols in enumerate(members):
        part = data.columns(np.asarray(cols, dtype=np.intp))
        out[:, g] = np.asarray(_core.rankrls_lqo(part.X, part.y, part.offsets, float(alpha)).predictions)
    return data.with_features(out)
