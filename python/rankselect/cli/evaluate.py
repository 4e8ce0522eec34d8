"""``rankselect evaluate FILE --scores SCORES [--convention C[,C]] [--ties stable|pessimistic] [--json]``

Scores a ranking: FILE is a LETOR/SVMlight file (labels and qids; .gz ok), SCORES the
predictions, in either of two formats (detected from the first line):

- one score per line, in the order of FILE's rows: the prediction format of LETOR's
  Eval-Score-4.0.pl, SVMrank's ``svm_rank_classify`` and ``rankselect train --out``;
- RankLib's ``-score`` output, ``qid<TAB>index<TAB>score`` per line, ``index`` the 0-based
  position of the document within its query in FILE.

``--scores -`` reads standard input. Prints MAP, NDCG@1..10, P@1..10, MeanNDCG and ERR,
means over queries, in two conventions side by side unless ``--convention`` names others
(``trec``: trec_eval's linear gain; ``lightgbm``: LightGBM's lambdarank metric): ``exponential``
(gain 2^r - 1, discount 1/log2(i+1), relevant = label > 0, k
truncated to the query; ``standard`` is its old name) and ``letor`` (LETOR 4.0's
Eval-Score-4.0.pl, which produced the papers' tables: no discount at ranks 1-2, NDCG@k = 0
for queries shorter than k, relevant = label >= 1). Ties among equal scores keep file
order (``--ties stable``, as LETOR's script) unless ``--ties pessimistic``. ``--json``
prints the same as a JSON object.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from .. import metrics
from ..data import load_letor
from ..metrics.checks import CURRENT_CONVENTIONS, TIES
from .common import add_convention_argument, conventions_of, plural, reading

#: the conventions printed side by side by default: the default ("exponential") and "letor"
#: (the first and the last of metrics.checks.CURRENT_CONVENTIONS, which lists them all)
SIDE_BY_SIDE = (CURRENT_CONVENTIONS[0], CURRENT_CONVENTIONS[-1])

def add_parser(sub) -> None:
    p = sub.add_parser(
        "evaluate",
        help="IR metrics (MAP, NDCG@k, P@k, MeanNDCG, ERR) of predicted scores, both conventions",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="LETOR/SVMlight file with the true labels and qids (.gz ok)")
    p.add_argument("--scores", required=True, metavar="SCORES",
                   help="predictions: one score per line in FILE's row order, or RankLib's "
                        "qid<TAB>index<TAB>score lines; - reads standard input")
    p.add_argument("--ties", choices=TIES, default=TIES[0],
                   help="order of documents with equal scores (default: stable = file order)")
    add_convention_argument(p, ",".join(SIDE_BY_SIDE), several=True)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(handler=run)


def _score(text: str, path: str, lineno: int, what: str = "one score per line") -> float:
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"{path}, line {lineno}: expected {what}, got {text[:60]!r}") from None
    if not np.isfinite(v):
        raise ValueError(f"{path}, line {lineno}: score is not finite ({text!r})")
    return v


def _lines(path: str):
    """``[(lineno, text)]`` of the non-blank lines (read once: SCORES may be a pipe)."""
    if path == "-":
        return [(i, line.strip()) for i, line in enumerate(sys.stdin, start=1) if line.strip()]
    with open(path, encoding="utf-8") as f:
        return [(lineno, text) for lineno, text in ((i, line.strip()) for i, line in enumerate(f, start=1)) if text]


def read_scores(path: str, lines=None) -> np.ndarray:
    """One float per line (blank lines ignored); ValueError naming the line otherwise."""
    lines = _lines(path) if lines is None else lines
    return np.asarray([_score(text, path, lineno) for lineno, text in lines], dtype=np.float64)


def _is_ranklib(text: str) -> bool:
    fields = text.split()
    if len(fields) != 3:
        return False
    try:
        int(fields[0]), int(fields[1])
    except ValueError:
        return False
    return True


def read_ranklib_scores(path: str, qid, lines=None) -> np.ndarray:
    """Scores of RankLib's ``-score`` output (``qid<TAB>index<TAB>score``, ``index`` the
    0-based position of the document within its query) in the order of the rows of ``qid``.

    Parameters
    ----------
    path : str
    qid : array-like of shape (n_samples,)
        Query ids of the rows of the data file, in file order.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    qid = np.asarray(qid)
    parsed = []
    for lineno, text in (_lines(path) if lines is None else lines):
        fields = text.split()
        if len(fields) != 3:
            raise ValueError(f"{path}, line {lineno}: expected RankLib's qid<TAB>index<TAB>score "
                             f"(as on the first line), got {text[:60]!r}")
        try:
            q, j = int(fields[0]), int(fields[1])
        except ValueError:
            raise ValueError(f"{path}, line {lineno}: qid and index must be integers, got {text[:60]!r}") from None
        parsed.append((lineno, q, j, _score(fields[2], path, lineno, "a score in the third column")))
    # RankLib writes the documents in file order, its index restarting with every run of
    # rows of one qid: take that order when it matches (it also covers split queries)
    if len(parsed) == qid.shape[0] and qid.shape[0]:
        starts = np.r_[True, qid[1:] != qid[:-1]]
        run_start = np.maximum.accumulate(np.where(starts, np.arange(qid.shape[0]), 0))
        in_run = np.arange(qid.shape[0]) - run_start
        if all(q == qid[i] and j == in_run[i] for i, (_, q, j, _) in enumerate(parsed)):
            return np.asarray([v for *_, v in parsed], dtype=np.float64)
    # otherwise (e.g. lines sorted differently) map (qid, position within the query)
    position: dict = {}
    row_of = {}
    for i, q in enumerate(qid.tolist()):
        j = position.get(q, 0)
        position[q] = j + 1
        row_of[(q, j)] = i
    scores = np.full(qid.shape[0], np.nan)
    for lineno, q, j, v in parsed:
        row = row_of.get((q, j))
        if row is None:
            count = position.get(q)
            where = ("that qid is not in the data file" if count is None else
                     f"qid {q} has {plural(count, 'document')} in the data file (index is 0-based)")
            raise ValueError(f"{path}, line {lineno}: no document {j} of qid {q}: {where}")
        if not np.isnan(scores[row]):
            raise ValueError(f"{path}, line {lineno}: document {j} of qid {q} is scored twice")
        scores[row] = v
    missing = np.flatnonzero(np.isnan(scores))
    if missing.size:
        i = int(missing[0])
        raise ValueError(f"{path} scores {qid.shape[0] - missing.size} of the {qid.shape[0]} rows of the data "
                         f"file; the first without a score: data row {i + 1} (qid {qid[i]})")
    return scores


def read_predictions(path: str, qid) -> np.ndarray:
    """The scores in ``path`` (one per line, or RankLib's format) in the data file's row order."""
    lines = _lines(path)
    if lines and _is_ranklib(lines[0][1]):
        return read_ranklib_scores(path, qid, lines)
    return read_scores(path, lines)


def run(args: argparse.Namespace) -> int:
    shown = conventions_of(args.convention, "rankselect evaluate")
    data = load_letor(args.file)
    with reading("--scores", args.scores):
        scores = read_predictions(args.scores, data.qid)
    if scores.shape[0] != data.y.shape[0]:
        raise ValueError(f"{args.scores} has {scores.shape[0]} scores but {args.file} has {data.y.shape[0]} rows")
    tables = {c: metrics.evaluate(data.y, scores, data.qid, convention=c, ties=args.ties) for c in shown}
    n_queries = len(np.unique(data.qid))
    if args.json:
        out = {"file": args.file, "scores": args.scores, "ties": args.ties,
               "n_rows": int(data.y.shape[0]), "n_queries": int(n_queries)}
        out.update({c: {k: float(v) for k, v in t.items()} for c, t in tables.items()})
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    print(f"# {args.file}: {plural(data.y.shape[0], 'row')}, {plural(n_queries, 'query', 'queries')}; "
          f"scores {args.scores}; ties {args.ties}")
    print(f"{'metric':<10}" + "".join(f"{c:>12}" for c in shown))
    for name in tables[shown[0]]:
        print(f"{name:<10}" + "".join(f"{tables[c][name]:>12.4f}" for c in shown))
    return 0
