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
- :func:`size_choice`: the best and the one-standard-error number of features from per-query
  scores, on paired differences to the best size (or, ``rule="holm"``, the smallest size not
  significantly worse than the best after Holm's correction).
- :func:`write_trec_run`, :func:`write_trec_qrels`, :func:`write_per_query`.

Modules: :mod:`~rankselect.analysis.stats.paired` (tests, intervals, effect sizes),
:mod:`~rankselect.analysis.stats.compare` (tables against a baseline),
:mod:`~rankselect.analysis.stats.trec` (export).
"""
from .compare import Comparison, compare, compare_experiment, experiment_per_query
from .paired import TESTS, EffectSize, TestResult, effect_size, holm, mean_confidence_interval, paired_test
from .sizes import HOLM_RULE, RULE, RULE_REFERENCE, RULES, SizeChoice, size_choice
from .trec import (
    PathLike,
    docnos_from_comments,
    experiment_per_query_rows,
    write_per_query,
    write_trec_qrels,
    write_trec_run,
)

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
    "experiment_per_query",
    "docnos_from_comments",
    "write_trec_run",
    "write_trec_qrels",
    "write_per_query",
    "experiment_per_query_rows",
    "PathLike",
    "SizeChoice",
    "size_choice",
    "RULE",
    "RULE_REFERENCE",
    "RULES",
    "HOLM_RULE",
]
