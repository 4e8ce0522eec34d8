"""IR-grade comparison of rankers: per-query paired tests, multiple-comparison correction,
effect sizes with confidence intervals, and export of runs, qrels and per-query results in
the formats IR tools read (TREC run / qrels files load in ranx, trec_eval, pytrec_eval).

Queries are the sampling unit: every test pairs the two systems' scores of the same query
(Smucker, Allan & Carterette 2007 recommend the randomization test; Wilcoxon and the t-test
are the usual alternatives).

- :func:`paired_test`: ``"randomization"`` (Fisher's sign-flip test of the mean difference,
  exact when ``2**n_queries <= n_resamples``, :func:`scipy.stats.permutation_test`),
  ``"wilcoxon"`` (:func:`scipy.stats.wilcoxon`), ``"t"`` (:func:`scipy.stats.ttest_rel`).
- :func:`holm`: Holm-Bonferroni adjusted p-values across the comparisons of a family.
- :func:`effect_size`: mean difference with a t-interval, and the standardised mean
  difference of paired data ``d_z = mean(d) / sd(d)`` with a BCa bootstrap interval.
- :func:`compare`: all of the above, every method against a baseline, as a table;
  :func:`compare_experiment` does it on a LETOR protocol run (per-query test scores of every
  fold pooled).
- :func:`write_trec_run`, :func:`write_trec_qrels`, :func:`write_per_query`.
"""
from __future__ import annotations

import inspect
import numbers
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from ._validation import check_qid, check_vector

__all__ = [
    "TESTS",
    "TestResult",
    "paired_test",
    "holm",
    "EffectSize",
    "effect_size",
    "mean_confidence_interval",
    "Comparison",
    "compare",
    "compare_experiment",
    "docnos_from_comments",
    "write_trec_run",
    "write_trec_qrels",
    "write_per_query",
]

TESTS = ("randomization", "wilcoxon", "t")
_ALTERNATIVES = ("two-sided", "greater", "less")


def _generator(random_state) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or (isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)):
        return np.random.default_rng(None if random_state is None else int(random_state))
    raise TypeError(f"random_state must be None, an int or a numpy Generator, got {random_state!r}")


def _rng_kw(func, gen: np.random.Generator) -> dict:
    """scipy >= 1.15 calls the generator ``rng``; older versions ``random_state``."""
    return {"rng": gen} if "rng" in inspect.signature(func).parameters else {"random_state": gen}


def _pair(a, b):
    a = check_vector(a, "a")
    b = check_vector(b, "b")
    if a.shape != b.shape:
        raise ValueError(f"a and b must hold the same queries: {a.shape[0]} and {b.shape[0]} values")
    if a.shape[0] < 2:
        raise ValueError(f"a paired test needs at least two queries, got {a.shape[0]}")
    return a, b


@dataclass(frozen=True)
class TestResult:
    """``statistic`` and ``pvalue`` of a paired test over ``n`` queries."""

    __test__ = False  # not a pytest class

    test: str
    statistic: float
    pvalue: float
    n: int
    alternative: str


def paired_test(a, b, test: str = "randomization", *, alternative: str = "two-sided",
                n_resamples: int = 10000, random_state=None) -> TestResult:
    """Paired test of per-query scores ``a`` against ``b`` (same queries, same order).

    H0: the two systems are exchangeable on every query. ``alternative="greater"``: ``a``
    scores higher. ``"randomization"``: statistic ``mean(a - b)``, p-value from random sign
    flips of the differences (all ``2**n`` flips when ``2**n <= n_resamples``);
    ``"wilcoxon"``: signed-rank statistic (zero differences dropped, scipy's default);
    ``"t"``: paired t statistic. Identical inputs give statistic 0 and p-value 1.

    Parameters
    ----------
    a, b : array-like of shape (n_queries,)
    test : {"randomization", "wilcoxon", "t"}
    alternative : {"two-sided", "greater", "less"}
    n_resamples : int
        Sign flips of the randomization test.
    random_state : None, int or numpy Generator

    Returns
    -------
    TestResult
    """
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}, got {test!r}")
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}")
    a, b = _pair(a, b)
    n = int(a.shape[0])
    if np.array_equal(a, b):
        return TestResult(test, 0.0, 1.0, n, alternative)
    from scipy import stats

    if test == "t":
        r = stats.ttest_rel(a, b, alternative=alternative)
    elif test == "wilcoxon":
        r = stats.wilcoxon(a, b, alternative=alternative)
    else:
        if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or n_resamples < 1:
            raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
        r = stats.permutation_test(
            (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
            vectorized=True, n_resamples=int(n_resamples), alternative=alternative,
            **_rng_kw(stats.permutation_test, _generator(random_state)))
    return TestResult(test, float(r.statistic), float(r.pvalue), n, alternative)


def holm(pvalues) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (Holm 1979), in the input order.

    With ``p_(1) <= ... <= p_(m)`` sorted: ``adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``.
    Rejecting where ``adj <= alpha`` controls the family-wise error rate at ``alpha``.
    """
    p = check_vector(pvalues, "pvalues")
    if ((p < 0) | (p > 1)).any():
        raise ValueError("pvalues must lie in [0, 1]")
    m = p.shape[0]
    order = np.argsort(p, kind="stable")
    adj_sorted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adj_sorted
    return out


def mean_confidence_interval(values, confidence: float = 0.95, method: str = "t", *,
                             n_resamples: int = 2000, random_state=None):
    """Confidence interval of the mean of per-query ``values`` (n_queries,).

    ``method="t"``: Student's t-interval ``mean +- t_{(1+confidence)/2, n-1} s / sqrt(n)``;
    ``"bootstrap"``: the BCa bootstrap over queries (:func:`scipy.stats.bootstrap`,
    ``n_resamples`` resamples). Returns ``(low, high)``; ``(mean, mean)`` when all values
    are equal.
    """
    from scipy import stats

    d = np.asarray(values, dtype=np.float64)
    if d.ndim != 1 or d.size < 2:
        raise ValueError(f"need at least two per-query values for a confidence interval, got shape {d.shape}")
    if method not in ("t", "bootstrap"):
        raise ValueError(f"ci must be one of ('t', 'bootstrap'), got {method!r}")
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    mean = float(d.mean())
    if np.all(d == d[0]):
        return mean, mean
    if method == "t":
        half = float(stats.t.ppf((1 + confidence) / 2, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size))
        return mean - half, mean + half
    res = stats.bootstrap((d,), np.mean, confidence_level=confidence, n_resamples=int(n_resamples),
                          method="BCa", **_rng_kw(stats.bootstrap, _generator(random_state)))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


@dataclass(frozen=True)
class EffectSize:
    """Effect of ``a`` over ``b``: ``mean_diff`` with its interval ``diff_ci``, and the
    paired standardised mean difference ``d_z`` with its interval ``d_z_ci``."""

    mean_diff: float
    diff_ci: tuple
    d_z: float
    d_z_ci: tuple
    confidence: float


def _dz(d, axis=-1):
    sd = np.std(d, axis=axis, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, np.mean(d, axis=axis) / np.where(sd > 0, sd, 1.0), 0.0)


def effect_size(a, b, *, confidence: float = 0.95, n_resamples: int = 2000, random_state=None) -> EffectSize:
    """Paired effect size of ``a`` over ``b`` (per-query scores of the same queries).

    ``mean_diff = mean(d)``, ``d = a - b``, with the t-interval of the mean; ``d_z =
    mean(d) / sd(d)`` (Cohen's d for paired samples, ``sd`` with ``ddof=1``; 0 when all
    differences are equal) with a BCa bootstrap interval over queries.
    """
    a, b = _pair(a, b)
    d = a - b
    diff_ci = mean_confidence_interval(d, confidence, "t")
    dz = float(_dz(d))
    if np.all(d == d[0]):
        dz_ci = (dz, dz)
    else:
        from scipy import stats

        res = stats.bootstrap((d,), _dz, confidence_level=confidence, n_resamples=int(n_resamples),
                              method="BCa", **_rng_kw(stats.bootstrap, _generator(random_state)))
        dz_ci = (float(res.confidence_interval.low), float(res.confidence_interval.high))
    return EffectSize(float(d.mean()), diff_ci, dz, dz_ci, float(confidence))


@dataclass
class Comparison:
    """Every method against ``baseline``: one row (dict) per method in ``rows`` with
    ``method, mean, baseline_mean, mean_diff, diff_ci, d_z, d_z_ci, statistic, pvalue,
    pvalue_adjusted, significant``."""

    baseline: str
    test: str
    correction: Optional[str]
    alpha: float
    n_queries: int
    rows: List[Dict[str, object]]

    def to_markdown(self, digits: int = 4) -> str:
        """The table in Markdown (``*`` marks a significant difference after correction)."""
        f = f"{{:.{digits}f}}"
        adj = "p (Holm)" if self.correction == "holm" else "p"
        lines = [f"{self.test} test against {self.baseline}, {self.n_queries} queries, alpha {self.alpha:g}", "",
                 f"| method | mean | diff [CI] | d_z [CI] | p | {adj} |", "|---|---|---|---|---|---|"]
        for r in self.rows:
            mark = " *" if r["significant"] else ""
            lines.append(
                f"| {r['method']} | {f.format(r['mean'])} | {f.format(r['mean_diff'])} "
                f"[{f.format(r['diff_ci'][0])}, {f.format(r['diff_ci'][1])}] | {r['d_z']:.2f} "
                f"[{r['d_z_ci'][0]:.2f}, {r['d_z_ci'][1]:.2f}] | {r['pvalue']:.3g} | {r['pvalue_adjusted']:.3g}{mark} |")
        return "\n".join(lines)


def compare(per_query: Mapping[str, Sequence[float]], baseline: str, *, test: str = "randomization",
            correction: Optional[str] = "holm", alpha: float = 0.05, alternative: str = "two-sided",
            confidence: float = 0.95, n_resamples: int = 10000, random_state=None) -> Comparison:
    """Compare every method's per-query scores with ``baseline``'s.

    Parameters
    ----------
    per_query : dict method -> array of shape (n_queries,)
        Per-query scores of the same queries in the same order (e.g.
        ``metrics.ndcg(..., per_query=True)`` of each model on one test set).
    baseline : str
        Key of ``per_query`` the others are compared with.
    test : {"randomization", "wilcoxon", "t"}
    correction : {"holm", None}
        Holm-Bonferroni across the ``len(per_query) - 1`` comparisons, or none.
    alpha : float
        Significance level applied to the (adjusted) p-values.
    alternative, confidence, n_resamples, random_state
        See :func:`paired_test` and :func:`effect_size`.

    Returns
    -------
    Comparison
    """
    if baseline not in per_query:
        raise ValueError(f"baseline {baseline!r} is not among the methods ({', '.join(per_query)})")
    if correction not in ("holm", None):
        raise ValueError(f"correction must be 'holm' or None, got {correction!r}")
    gen = _generator(random_state)
    base = check_vector(per_query[baseline], f"per_query[{baseline!r}]")
    rows = []
    for name, values in per_query.items():
        if name == baseline:
            continue
        a = check_vector(values, f"per_query[{name!r}]")
        t = paired_test(a, base, test, alternative=alternative, n_resamples=n_resamples, random_state=gen)
        e = effect_size(a, base, confidence=confidence, random_state=gen)
        rows.append({"method": name, "mean": float(a.mean()), "baseline_mean": float(base.mean()),
                     "mean_diff": e.mean_diff, "diff_ci": e.diff_ci, "d_z": e.d_z, "d_z_ci": e.d_z_ci,
                     "statistic": t.statistic, "pvalue": t.pvalue})
    p = np.array([r["pvalue"] for r in rows])
    adjusted = holm(p) if (correction == "holm" and p.size) else p
    for r, q in zip(rows, adjusted):
        r["pvalue_adjusted"] = float(q)
        r["significant"] = bool(q <= alpha)
    return Comparison(baseline, test, correction, float(alpha), int(base.shape[0]), rows)


_EXPERIMENT_KEYS = {"map": "AP", "ap": "AP", "ndcg@10": "NDCG@10"}


def experiment_per_query(result, metric: str = "MAP") -> Dict[str, np.ndarray]:
    """Per-query test scores of every method of a LETOR protocol run, folds concatenated
    (``metric``: ``"MAP"`` (per-query AP) or ``"NDCG@10"``). Returns ``{method: (q,)}``."""
    key = _EXPERIMENT_KEYS.get(str(metric).lower())
    if key is None:
        raise ValueError(f"metric must be 'MAP' or 'NDCG@10', got {metric!r}")
    return {m: np.concatenate([f[m].per_query[key] for f in result.folds]) for m in result.methods}


def compare_experiment(result, baseline: str, metric: str = "MAP", **kwargs) -> Comparison:
    """:func:`compare` on a :class:`rankselect.experiment.ExperimentResult`: the per-query
    test scores of every fold pooled (each test query once)."""
    return compare(experiment_per_query(result, metric), baseline, **kwargs)


# ------------------------------------------------------------------------------ export

PathLike = Union[str, "os.PathLike[str]"]


def docnos_from_comments(comments: Sequence[str]) -> List[str]:
    """Document ids from LETOR comments (``docid = GX000-00-0000000 inc = ...``): the token
    after ``docid =``. Raises ValueError naming the row when a comment has none."""
    out = []
    for i, c in enumerate(comments):
        tokens = str(c).replace("=", " = ").split()
        try:
            j = tokens.index("docid")
            if tokens[j + 1] != "=":
                raise ValueError
            out.append(tokens[j + 2])
        except (ValueError, IndexError):
            raise ValueError(f"row {i}: no 'docid = ...' in the comment {c!r}") from None
    return out


def _docnos(docnos, m: int) -> List[str]:
    if docnos is None:
        return [f"d{i}" for i in range(m)]
    docnos = [str(d) for d in docnos]
    if len(docnos) != m:
        raise ValueError(f"docnos has {len(docnos)} entries but there are {m} rows")
    for i, d in enumerate(docnos):
        if not d or any(ch.isspace() for ch in d):
            raise ValueError(f"docnos[{i}] = {d!r} must be a non-empty string without whitespace")
    return docnos


def write_trec_run(path: PathLike, qid, scores, docnos=None, *, run_name: str = "rankselect") -> Path:
    """Write a TREC run file: ``qid Q0 docno rank score run_name``, one line per document.

    Documents are ranked per query by ``scores`` descending, ties in input order (rank
    1-based). The file loads in ranx (``ranx.Run.from_file(path, kind="trec")``), trec_eval
    and pytrec_eval. Note that trec_eval re-sorts by score and breaks ties by docno, so
    tied scores may be evaluated in another order than rankselect's ``ties="stable"``.

    Parameters
    ----------
    path : path of the file to write
    qid : array-like of shape (m,)
    scores : array-like of shape (m,)
    docnos : sequence of str of shape (m,), optional
        Document ids (default ``"d<row>"``, the 0-based input row; use
        :func:`docnos_from_comments` for LETOR's ``docid``); unique within a query.
    run_name : str
    """
    qid = check_qid(qid)
    scores = check_vector(scores, "scores", n=qid.shape[0])
    docs = _docnos(docnos, qid.shape[0])
    if not run_name or any(ch.isspace() for ch in run_name):
        raise ValueError(f"run_name must be a non-empty string without whitespace, got {run_name!r}")
    from .groups import QueryGroups

    g = QueryGroups.from_qid(qid)
    lines = []
    for q in range(g.n_queries):
        rows = g.perm[g.offsets[q]:g.offsets[q + 1]]
        seen = set()
        for d in rows:
            if docs[d] in seen:
                raise ValueError(f"docno {docs[d]!r} appears twice in query {g.ids[q]}")
            seen.add(docs[d])
        ranked = rows[np.argsort(-scores[rows], kind="stable")]
        lines.extend(f"{g.ids[q]} Q0 {docs[r]} {i + 1} {float(scores[r])!r} {run_name}" for i, r in enumerate(ranked))
    p = Path(path)
    p.write_text("\n".join(lines) + "\n")
    return p


def write_trec_qrels(path: PathLike, qid, y, docnos=None) -> Path:
    """Write TREC qrels: ``qid 0 docno label`` (integer labels), queries in order of first
    appearance, documents in input order. Loads in ranx (``ranx.Qrels.from_file(path,
    kind="trec")``), trec_eval and pytrec_eval; use the same ``docnos`` as the run."""
    qid = check_qid(qid)
    y = check_vector(y, "y", n=qid.shape[0])
    if (y != np.round(y)).any() or (y < 0).any():
        i = int(np.flatnonzero((y != np.round(y)) | (y < 0))[0])
        raise ValueError(f"qrels labels must be integers >= 0; row {i} has {y[i]!r}")
    docs = _docnos(docnos, qid.shape[0])
    from .groups import QueryGroups

    g = QueryGroups.from_qid(qid)
    lines = [f"{g.ids[q]} 0 {docs[r]} {int(y[r])}" for q in range(g.n_queries)
             for r in g.perm[g.offsets[q]:g.offsets[q + 1]]]
    p = Path(path)
    p.write_text("\n".join(lines) + "\n")
    return p


def write_per_query(path: PathLike, per_query: Mapping[str, Mapping[str, Sequence[float]]], query_ids) -> Path:
    """Write per-query results as tab-separated ``run  measure  qid  value`` lines (the
    columns of ``trec_eval -q`` with the run name first), with a header line; each run and
    measure also gets an ``all`` line with the mean. Reads with ``pandas.read_csv(path,
    sep="\\t")``.

    Parameters
    ----------
    per_query : dict run -> dict measure -> array of shape (n_queries,)
    query_ids : array-like of shape (n_queries,)
        The qid of each position (e.g. :attr:`PermutationImportance.query_ids` or a
        :class:`~rankselect.QueryGroups`' ``ids``).
    """
    qids = np.asarray(query_ids)
    lines = ["run\tmeasure\tqid\tvalue"]
    for run, measures in per_query.items():
        if any(ch.isspace() for ch in str(run)):
            raise ValueError(f"run name {run!r} must not contain whitespace")
        for measure, values in measures.items():
            v = check_vector(values, f"per_query[{run!r}][{measure!r}]")
            if v.shape[0] != qids.shape[0]:
                raise ValueError(f"per_query[{run!r}][{measure!r}] has {v.shape[0]} values for {qids.shape[0]} qids")
            lines.extend(f"{run}\t{measure}\t{q}\t{x!r}" for q, x in zip(qids.tolist(), v.tolist()))
            lines.append(f"{run}\t{measure}\tall\t{float(v.mean())!r}")
    p = Path(path)
    p.write_text("\n".join(lines) + "\n")
    return p


def experiment_per_query_rows(result) -> Dict[str, Dict[str, np.ndarray]]:
    """Per-query test scores of a LETOR protocol run, folds concatenated, ready for
    :func:`write_per_query`: returns ``({method: {"AP": (q,), "NDCG@10": (q,)}}, qids (q,))``."""
    per = {m: {k: np.concatenate([f[m].per_query[k] for f in result.folds]) for k in ("AP", "NDCG@10")}
           for m in result.methods}
    qids = np.concatenate([result.folds[i][result.methods[0]].test_qids for i in range(len(result.folds))])
    return per, qids
