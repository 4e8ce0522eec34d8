"""Every method against a baseline: paired tests, Holm's correction and effect sizes as one
table (:func:`compare`), also on a LETOR protocol run (:func:`compare_experiment`)."""
from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import numpy.typing as npt

from ..._validation import as_generator, check_vector, shown
from .paired import effect_size, holm, paired_test

__all__ = ["Comparison", "compare", "experiment_per_query", "compare_experiment", "markdown_cell"]


@dataclass
class Comparison:
    """Every method against ``baseline``: one row (dict) per method in ``rows`` with
    ``method, mean, baseline_mean, mean_diff, diff_ci, d_z, d_z_ci, statistic, pvalue,
    pvalue_adjusted, significant``.

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.analysis import stats
    >>> rng = np.random.default_rng(0)
    >>> base = rng.uniform(size=40)
    >>> cmp = stats.compare({"base": base, "new": base + 0.05}, baseline="base", random_state=0)
    >>> type(cmp).__name__
    'Comparison'
    >>> print(cmp.to_markdown().splitlines()[0])
    randomization test against base, 40 queries, alpha 0.05
    """

    baseline: str
    test: str
    correction: Optional[str]
    alpha: float
    n_queries: int
    rows: list[dict[str, Any]]

    def to_markdown(self, digits: int = 4) -> str:
        """The table in Markdown (``*`` marks a significant difference after correction)."""
        f = f"{{:.{digits}f}}"
        adj = "p (Holm)" if self.correction == "holm" else "p"
        lines = [f"{self.test} test against {markdown_cell(self.baseline)}, {self.n_queries} queries, "
                 f"alpha {self.alpha:g}", "",
                 f"| method | mean | diff [CI] | d_z [CI] | p | {adj} |", "|---|---|---|---|---|---|"]
        for r in self.rows:
            mark = " *" if r["significant"] else ""
            lines.append(
                f"| {markdown_cell(r['method'])} | {f.format(r['mean'])} | {f.format(r['mean_diff'])} "
                f"[{f.format(r['diff_ci'][0])}, {f.format(r['diff_ci'][1])}] | {r['d_z']:.2f} "
                f"[{r['d_z_ci'][0]:.2f}, {r['d_z_ci'][1]:.2f}] | {r['pvalue']:.3g} | "
                f"{r['pvalue_adjusted']:.3g}{mark} |")
        return "\n".join(lines)


def markdown_cell(text) -> str:
    """``text`` as one Markdown table cell: ``|`` (and ``\\``) escaped, line breaks as spaces.

    Examples
    --------
    >>> from rankselect.analysis.stats.compare import markdown_cell
    >>> markdown_cell("gas:importance=p@10|map")
    'gas:importance=p@10\\\\|map'
    """
    return " ".join(str(text).replace("\\", "\\\\").replace("|", "\\|").split())


def compare(per_query: Mapping[str, npt.ArrayLike], baseline: str, *, test: str = "randomization",
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

    Examples
    --------
    >>> import numpy as np
    >>> from rankselect.analysis import stats
    >>> rng = np.random.default_rng(0)
    >>> base = rng.uniform(size=40)
    >>> per_query = {"base": base, "better": base + rng.normal(0.05, 0.02, 40), "same": base + rng.normal(0, 0.02, 40)}
    >>> result = stats.compare(per_query, baseline="base", test="randomization", random_state=0)
    >>> [(row["method"], bool(row["significant"])) for row in result.rows]
    [('better', True), ('same', False)]
    """
    if baseline not in per_query:
        raise ValueError(f"baseline {baseline!r} is not among the methods ({', '.join(per_query)})")
    if correction not in ("holm", None):
        raise ValueError(f"correction must be 'holm' or None, got {correction!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be a number in (0, 1), got {alpha!r}")
    gen = as_generator(random_state)
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


def check_experiment(result) -> None:
    """TypeError unless ``result`` is a LETOR protocol run (``methods`` and ``folds``)."""
    if not (hasattr(result, "methods") and hasattr(result, "folds")):
        raise TypeError(f"result must be the ExperimentResult of rankselect.protocol.run, got "
                        f"{type(result).__name__}")


def experiment_per_query(result, metric: str = "MAP") -> dict[str, np.ndarray]:
    """Per-query test scores of every method of a LETOR protocol run, folds concatenated
    (``metric``: ``"MAP"`` (per-query AP) or ``"NDCG@10"``). Returns ``{method: (q,)}``.

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # a fold layout (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> grid = {"rankrls": {"alpha": [1.0]}, "greedy-rankrls": {"alpha": [1.0]}}
    >>> result = rs.protocol.run(root, ["rankrls", "greedy-rankrls"], grid=grid, progress=False)
    >>> per_query = rs.analysis.stats.experiment_per_query(result, metric="MAP")
    >>> {name: v.shape for name, v in per_query.items()}
    {'rankrls': (75,), 'greedy-rankrls': (75,)}
    """
    key = _EXPERIMENT_KEYS.get(str(metric).lower())
    if key is None:
        raise ValueError(f"metric must be 'MAP' or 'NDCG@10', got {shown(metric)}")
    check_experiment(result)
    return {m: np.concatenate([f[m].per_query[key] for f in result.folds]) for m in result.methods}


def compare_experiment(result, baseline: str, metric: str = "MAP", **kwargs) -> Comparison:
    """:func:`compare` on a :class:`rankselect.protocol.ExperimentResult`: the per-query
    test scores of every fold pooled (each test query once).

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # a fold layout (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> grid = {"rankrls": {"alpha": [1.0]}, "greedy-rankrls": {"alpha": [1.0]}}
    >>> result = rs.protocol.run(root, ["rankrls", "greedy-rankrls"], grid=grid, progress=False)
    >>> table = rs.analysis.stats.compare_experiment(result, baseline="rankrls", metric="MAP", random_state=0)
    >>> type(table).__name__
    'Comparison'
    """
    return compare(experiment_per_query(result, metric), baseline, **kwargs)
