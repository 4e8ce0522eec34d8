"""The LETOR experiment protocol: select hyperparameters on validation, report test.

For every fold ``FoldK/{train,vali,test}.txt`` of a LETOR layout and every method:

1. fit on ``train`` for every point of the method's hyperparameter grid (regularisation
   alpha / C / lambda, number of features k or t, GAS's c, ...). Work is reused across
   the grid: one greedy RankRLS run per alpha gives every k (``coef_path_``), one RankRLS
   eigendecomposition gives every alpha, one Kendall matrix per fold serves every GAS
   point, regularisation paths are warm started;
2. score every grid point on ``vali`` and keep the best by the selection metric
   (validation MAP by default). Ties are broken by grid order: the first point reached
   wins (grid order = the order of the values in the grid, the parameters nested in the
   order the method lists them, e.g. greedy RankRLS loops alpha outside, k inside);
3. evaluate the chosen model on ``test``: MAP, P@1..10, NDCG@1..10, MeanNDCG (LETOR's
   Eval-Score conventions by default, ``convention="exponential"``, ``"trec"`` or
   ``"lightgbm"`` on request), plus per-query
   AP and NDCG@10 for paired t-tests;
4. keep the path (:class:`PathScores`): for every number of features in use, the grid point
   of best validation score of that size, with the validation and test score of every query
   in the selection metric and in the further ``measures`` (what the report pairs by query),
   and the cross-fitted validation scores that say how optimistic choosing the grid point on
   those queries is.

``rfe`` and ``forward`` take every option of ``rankselect select``; with a ranker other
than the linear one (``"forward:ranker=lightgbm"``) their candidates are that ranker's
models, refitted per size on the training queries (:mod:`rankselect.protocol.loop_paths`).

``ExperimentResult.to_json`` writes ``experiment.json`` (format version
:data:`FORMAT_VERSION`, compact; :mod:`rankselect.protocol.experiment_file`) and
``ExperimentResult.from_json`` reads it back, checked.

Degenerate models never win. A grid point whose validation scores tie within every query
(all-zero weights, or weights only on features that are constant within each query) would
rank every query in file order, which is informative in LETOR files; such points are
skipped and listed in the result (``skipped``).

Usage::

    from rankselect.protocol import run
    res = run("MQ2008", ["greedy-rankrls", "rankrls"])
    res.averages()["rankrls"]["MAP"]
    print(res.to_markdown())
    res.paired_ttest("greedy-rankrls", "rankrls", metric="MAP")

Methods are named as in the CLI (``rankselect experiment``); see :data:`METHODS` and
:func:`default_grid`. A method name may carry fixed options after a colon, e.g.
``"sparse-ranksvm:penalty=log"`` or ``"gas:ranker=ranksvm"``.
"""
from .experiment_file import FORMAT_VERSION
from .fsa_grid import FSA_FRACTIONS, FSAGridResult, fsa_grid, fsa_sizes
from .path_scores import PathScores
from .results import ExperimentResult, MethodFold
from .runner import default_grid, load_folds, parse_method, run
from .scoring import SELECTION_METRICS, single_feature_scores
from .specs import METHODS, Candidate, MethodSpec

__all__ = [
    "run",
    "ExperimentResult",
    "MethodFold",
    "PathScores",
    "FORMAT_VERSION",
    "METHODS",
    "Candidate",
    "MethodSpec",
    "default_grid",
    "parse_method",
    "load_folds",
    "single_feature_scores",
    "SELECTION_METRICS",
    "fsa_grid",
    "fsa_sizes",
    "FSA_FRACTIONS",
    "FSAGridResult",
]
