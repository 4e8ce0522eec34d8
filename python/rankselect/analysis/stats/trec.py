"""Export of runs, qrels and per-query results in the formats IR tools read: TREC run and
qrels files (ranx, trec_eval, pytrec_eval) and tab-separated per-query values."""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Union

import numpy as np

from ..._validation import check_qid, check_vector, shown
from ...data.grouping import QueryGroups

__all__ = [
    "PathLike",
    "docnos_from_comments",
    "write_trec_run",
    "write_trec_qrels",
    "write_per_query",
    "experiment_per_query_rows",
]

PathLike = Union[str, "os.PathLike[str]"]


def docnos_from_comments(comments: Sequence[str]) -> list[str]:
    """Document ids from LETOR comments (``docid = GX000-00-0000000 inc = ...``): the token
    after ``docid =``. Raises ValueError naming the row when a comment has none.

    Examples
    --------
    >>> from rankselect.analysis import stats
    >>> stats.docnos_from_comments(["docid = GX001-23 inc = 1", "docid = GX002-11 inc = 0.5"])
    ['GX001-23', 'GX002-11']
    """
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


def _docnos(docnos, m: int) -> list[str]:
    if docnos is None:
        return [f"d{i}" for i in range(m)]
    docnos = [str(d) for d in docnos]
    if len(docnos) != m:
        raise ValueError(f"docnos has {len(docnos)} entries but there are {m} rows")
    for i, d in enumerate(docnos):
        _check_field(d, f"docnos[{i}]")
    return docnos


def _check_field(value, what: str) -> str:
    """``value`` as one field of a TREC / TSV line: a non-empty string without whitespace
    (space, tab, newline) or other control characters (NUL makes trec_eval drop the rest of
    the line), else ValueError naming ``what``."""
    s = str(value)
    if not s or any(ch.isspace() or not ch.isprintable() for ch in s):
        raise ValueError(f"{what} = {s!r} must be a non-empty string without whitespace or control characters")
    return s


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

    Examples
    --------
    >>> import tempfile
    >>> from rankselect.analysis import stats
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = stats.write_trec_run(f"{folder}/run.txt", qid=[1, 1, 2], scores=[0.2, 0.9, 0.5])
    ...     print(path.read_text())
    1 Q0 d1 1 0.9 rankselect
    1 Q0 d0 2 0.2 rankselect
    2 Q0 d2 1 0.5 rankselect
    """
    qid = check_qid(qid)
    scores = check_vector(scores, "scores", n=qid.shape[0])
    docs = _docnos(docnos, qid.shape[0])
    if not isinstance(run_name, str):
        raise TypeError(f"run_name must be a string, got {type(run_name).__name__}")
    _check_field(run_name, "run_name")
    g = QueryGroups.from_qid(qid)
    lines: list[str] = []
    for q in range(g.n_queries):
        rows = g.perm[g.offsets[q]:g.offsets[q + 1]]
        seen = set()
        for d in rows:
            if docs[d] in seen:
                raise ValueError(f"docno {shown(docs[d])} appears twice in query {g.ids[q]}")
            seen.add(docs[d])
        ranked = rows[np.argsort(-scores[rows], kind="stable")]
        lines.extend(f"{g.ids[q]} Q0 {docs[r]} {i + 1} {float(scores[r])!r} {run_name}" for i, r in enumerate(ranked))
    p = Path(path)
    p.write_text("\n".join(lines) + "\n")
    return p


def write_trec_qrels(path: PathLike, qid, y, docnos=None) -> Path:
    """Write TREC qrels: ``qid 0 docno label`` (integer labels), queries in order of first
    appearance, documents in input order. Loads in ranx (``ranx.Qrels.from_file(path,
    kind="trec")``), trec_eval and pytrec_eval; use the same ``docnos`` as the run.

    Examples
    --------
    >>> import tempfile
    >>> from rankselect.analysis import stats
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = stats.write_trec_qrels(f"{folder}/qrels.txt", qid=[1, 1, 2], y=[0, 2, 1])
    ...     print(path.read_text())
    1 0 d0 0
    1 0 d1 2
    2 0 d2 1
    """
    qid = check_qid(qid)
    y = check_vector(y, "y", n=qid.shape[0])
    if (y != np.round(y)).any() or (y < 0).any():
        i = int(np.flatnonzero((y != np.round(y)) | (y < 0))[0])
        raise ValueError(f"qrels labels must be integers >= 0; row {i} has {shown(y[i])}")
    docs = _docnos(docnos, qid.shape[0])
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

    Examples
    --------
    >>> import tempfile
    >>> from rankselect.analysis import stats
    >>> per_query = {"run": {"ndcg_cut_10": [0.5, 1.0]}}
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = stats.write_per_query(f"{folder}/per_query.tsv", per_query, query_ids=[1, 2])
    ...     print(path.read_text())
    run  measure  qid  value
    run  ndcg_cut_10  1  0.5
    run  ndcg_cut_10  2  1.0
    run  ndcg_cut_10  all  0.75
    """
    if not isinstance(per_query, Mapping) or not all(isinstance(v, Mapping) for v in per_query.values()):
        raise TypeError("per_query must be a dict run -> dict measure -> per-query values")
    qids = np.asarray(query_ids)
    if qids.ndim != 1:
        raise ValueError(f"query_ids must be 1-D, got shape {qids.shape}")
    lines = ["run\tmeasure\tqid\tvalue"]
    qid_text = [_check_field(q, "a query id") for q in qids.tolist()]
    for run, measures in per_query.items():
        _check_field(run, "the run name")
        for measure, values in measures.items():
            _check_field(measure, f"the measure name of run {run!r}")
            v = check_vector(values, f"per_query[{run!r}][{measure!r}]")
            if v.shape[0] != qids.shape[0]:
                raise ValueError(f"per_query[{run!r}][{measure!r}] has {v.shape[0]} values for {qids.shape[0]} qids")
            lines.extend(f"{run}\t{measure}\t{q}\t{x!r}" for q, x in zip(qid_text, v.tolist()))
            lines.append(f"{run}\t{measure}\tall\t{float(v.mean())!r}")
    p = Path(path)
    p.write_text("\n".join(lines) + "\n")
    return p


def experiment_per_query_rows(result) -> tuple[dict[str, dict[str, np.ndarray]], np.ndarray]:
    """Per-query test scores of a LETOR protocol run, folds concatenated, ready for
    :func:`write_per_query`: returns ``({method: {"AP": (q,), "NDCG@10": (q,)}}, qids (q,))``.

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
    >>> per, query_ids = rs.analysis.stats.experiment_per_query_rows(result)
    >>> sorted(per), sorted(per["rankrls"]), query_ids.shape
    (['greedy-rankrls', 'rankrls'], ['AP', 'NDCG@10'], (75,))
    """
    if not (hasattr(result, "methods") and hasattr(result, "folds")):
        raise TypeError(f"result must be the ExperimentResult of rankselect.protocol.run, got "
                        f"{type(result).__name__}")
    per = {m: {k: np.concatenate([f[m].per_query[k] for f in result.folds]) for k in ("AP", "NDCG@10")}
           for m in result.methods}
    qids = np.concatenate([result.folds[i][result.methods[0]].test_qids for i in range(len(result.folds))])
    return per, qids
