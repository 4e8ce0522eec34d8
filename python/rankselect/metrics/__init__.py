"""IR metrics of a ranking, per query and averaged over queries (computed in Rust).

Every function takes labels ``y`` (m,), ``scores`` (m,) and ``qid`` (m,). Queries are
defined by ``qid`` (rows need not be sorted or contiguous; rows keep their input order
inside a query), ranked by ``scores`` descending, and each metric returns the mean over
queries, or with ``per_query=True`` an array of shape (n_queries,) with the queries in
order of first appearance (as :class:`rankselect.QueryGroups`).

Notation: ``r_i`` is the label at rank ``i`` (1-based), ``n`` the number of documents of
the query, ``g(r)`` the gain: ``2**r - 1`` (exponential) or ``r`` (linear).

Conventions (``convention=``), named by what they compute or whose evaluation they equal
-----------------------------------------------------------------------------------------
``"exponential"`` (default, also spelled ``"standard"``, its old name: same numbers)
    ``DCG@k = sum_{i <= min(k, n)} g(r_i) / log2(i + 1)`` with the exponential gain
    ``g(r) = 2**r - 1`` (Burges et al. 2005); ``NDCG@k = DCG@k / IDCG@k``
    with ``IDCG@k`` the DCG@k of the labels sorted descending; ``k`` is truncated to the
    query length (``k=None`` means ``k = n``); relevant means ``r > 0``; a query without
    relevant documents scores 0.
``"trec"`` (exactly trec_eval's / pytrec_eval's ``ndcg_cut_k``, ``map``, ``P_k``)
    as ``"exponential"`` but with the linear gain ``g(r) = r`` (trec_eval's), and relevant
    means ``r >= 1`` (trec_eval's relevance level 1). trec_eval orders equal scores by
    document id in reverse lexical order: with document ids that decrease in input order
    that is ``ties="stable"``.
``"lightgbm"`` (exactly LightGBM's ``ndcg`` metric, ``label_gain`` ``2**r - 1``)
    as ``"exponential"``, but a query without relevant documents scores 1, as LightGBM
    counts it.
``"letor"`` (exactly LETOR 4.0's ``Eval-Score-4.0.pl``, which produced the papers' tables)
    ``DCG@k = g(r_1) + g(r_2) + sum_{3 <= i <= k} g(r_i) / log2(i)`` (no discount at ranks
    1 and 2); ``NDCG@k = 0`` when the query has fewer than ``k`` documents; queries
    without relevant documents count as 0; relevant means ``r >= 1``.

In every convention ``P@k = (# relevant in the top min(k, n)) / k`` (missing positions
count as non-relevant), ``AP = (1/R) sum_{i: r_i relevant} P@i`` with ``R`` the number of
relevant documents of the query (0 when ``R = 0``), ``MeanNDCG`` (LETOR) is the mean of
NDCG@1..n per query, and ``ERR@k = sum_{i <= min(k, n)} (1/i) R_i prod_{j < i} (1 - R_j)``
with ``R_i = g(r_i) / 2**max_grade`` (Chapelle et al. 2009; LETOR's script has no ERR, so
every convention gives the same ERR, with the exponential gain).

Ties (``ties=``)
----------------
``"stable"`` (default): documents with equal scores keep their input order, as LETOR's
script does (note that LETOR files are not in random order, so a constant scorer is not a
random one). ``"pessimistic"``: lower labels first among equal scores.

Outside LETOR 4.0 data (labels other than 0, 1, 2) the Perl script would give gain 0 and
no relevance to other labels; here ``g(r) = 2**r - 1`` for every label ``r >= 0``.
"""
from .measures import average_precision, compute, err, evaluate, mean_average_precision, mean_ndcg, ndcg, precision
from .scorer import (
    RankingScorer,
    _RankingMeasure,  # noqa: F401  (scorers pickled before the subpackage layout find it here)
    make_scorer,
)

__all__ = [
    "ndcg",
    "precision",
    "average_precision",
    "mean_average_precision",
    "mean_ndcg",
    "err",
    "compute",
    "evaluate",
    "make_scorer",
    "RankingScorer",
]
