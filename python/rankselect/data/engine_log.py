"""Features logged by a search engine, with their judgments, as ranking data:
:func:`read_engine_log`, and :func:`read_qrels` (TREC judgments).

A deployed model must be trained on the values the engine computes (its BM25, its field
statistics, its float32 scores), not on a benchmark's normalised ones: log the features of
the judged documents with the logging query that ``rankselect export`` writes, one JSON
object per query, and read them back here.
"""
from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from typing import Optional, Union

import numpy as np

from .engine_responses import ENGINE_LOGS, LogError, documents
from .letor import RankingData

__all__ = ["read_engine_log", "read_qrels", "UNJUDGED"]

#: what :func:`read_engine_log` does with a logged document that has no judgment
UNJUDGED = ("drop", "zero")
Judgments = dict[str, dict[str, float]]


def read_qrels(path: Union[str, os.PathLike[str]]) -> Judgments:
    """A TREC qrels file (``qid iteration docid relevance`` per line; blank lines and lines
    starting with ``#`` skipped) as ``{qid: {docid: relevance}}``.

    Examples
    --------
    >>> import os, tempfile
    >>> from rankselect.data import read_qrels
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> _ = open(path, "w").write("q1 0 doc-a 2\\nq1 0 doc-b 0\\n")
    >>> read_qrels(path)
    {'q1': {'doc-a': 2.0, 'doc-b': 0.0}}
    """
    out: Judgments = {}
    with open(os.fspath(path), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if len(parts) != 4:
                raise ValueError(f"{os.fspath(path)} line {n}: {len(parts)} columns, a qrels line has 4 "
                                 "(qid iteration docid relevance)")
            qid, _, doc, rel = parts
            try:
                label = float(rel)
            except ValueError:
                raise ValueError(f"{os.fspath(path)} line {n}: relevance {rel!r} is not a number") from None
            if not math.isfinite(label):
                raise ValueError(f"{os.fspath(path)} line {n}: relevance {rel!r} is not finite")
            known = out.setdefault(qid, {})
            if doc in known and known[doc] != label:
                raise ValueError(f"{os.fspath(path)} line {n}: qid {qid} document {doc!r} judged twice "
                                 f"({known[doc]:g} and {label:g})")
            known[doc] = label
    return out


def _judgments(judgments) -> Judgments:
    if isinstance(judgments, Mapping):
        return {str(q): {str(d): float(v) for d, v in docs.items()} for q, docs in judgments.items()}
    return read_qrels(judgments)


def _label(judged: Mapping[str, float], doc: str) -> Optional[float]:
    """The judgment of ``doc``; Vespa's ``id:ns:type::user-id`` also by its user id."""
    if doc in judged:
        return judged[doc]
    if "::" in doc:
        return judged.get(doc.rsplit("::", 1)[1])
    return None


def _qid_numbers(qids: list[str]) -> tuple[list[int], bool]:
    """Integer qids: the logged ones when all are integers, else 1, 2, ... in order."""
    try:
        ints = [int(q) for q in qids]
        if all(str(i) == q.strip() for i, q in zip(ints, qids)):
            return ints, False
    except ValueError:
        pass
    order: dict[str, int] = {}
    return [order.setdefault(q, len(order) + 1) for q in qids], True


def read_engine_log(path: Union[str, os.PathLike[str]], engine: str, judgments, *, unjudged: str = "drop",
                    feature_names: Optional[Sequence[str]] = None, missing: float = float("nan"),
                    log_name: Optional[str] = None, id_field: Optional[str] = None) -> RankingData:
    """The features a search engine logged, with their judgments, as :class:`RankingData`.

    Parameters
    ----------
    path : str or path-like
        JSON Lines, one object per query: ``{"qid": ..., "response": <the engine's search
        response>}`` (the response to the logging query of ``rankselect export``).
    engine : {"opensearch", "solr", "vespa", "elasticsearch"}
        The response's shape (:mod:`rankselect.data.engine_responses`): ``"opensearch"`` also
        serves the o19s Elasticsearch LTR plugin; ``"elasticsearch"`` is Elasticsearch's own
        learning to rank logged as eland's ``FeatureLogger`` does.
    judgments : str, path-like or mapping
        A TREC qrels file, or ``{qid: {doc id: relevance}}``; documents are matched by id
        (OpenSearch / Elasticsearch ``_id``, Solr ``id``, Vespa ``documentid`` or its user id).
    unjudged : {"drop", "zero"}
        A logged document without a judgment is dropped, or labelled 0.
    feature_names : sequence of str, optional
        The feature set's names in its order (default: the order the log lists them in;
        required for Elasticsearch, whose log names only the features that matched).
    missing : float
        The value of a feature the engine logged as not matching: an OpenSearch entry
        without ``value``, a feature absent from Elasticsearch's ``matched_queries``, NaN in
        eland's rows, a name absent from a Vespa hit. Default NaN. Solr logs no such thing:
        a non-matching feature has its ``defaultValue`` (0 unless set), and a feature absent
        from a sparse ``[features]`` string is 0, as Solr means it.
    log_name : str, optional
        OpenSearch: the log to read when ``_ltrlog`` holds several.
    id_field : str, optional
        The document id's field (default ``_id``, Solr ``id``).

    Returns
    -------
    RankingData
        Rows in the log's order (queries by line, documents as the engine returned them),
        ``feature_names``, integer ``qid`` (the logged ones, or 1, 2, ... in order when they
        are not integers), ``comments`` ``"docid = <id>"`` (and ``qid = <logged>`` when
        renumbered). A ValueError names the line and the qid of anything malformed.

    Examples
    --------
    >>> import json, os, tempfile
    >>> from rankselect.data import read_engine_log
    >>> d = tempfile.mkdtemp()
    >>> hit = lambda i, bm25: {"_id": i, "fields": {"_ltrlog": [{"log_entry": [
    ...     {"name": "title bm25", "value": bm25}, {"name": "pagerank"}]}]}}
    >>> with open(os.path.join(d, "log.jsonl"), "w") as f:
    ...     print(json.dumps({"qid": 7, "response": {"hits": {"hits": [hit("a", 2.5), hit("b", 0.5)]}}}), file=f)
    >>> with open(os.path.join(d, "qrels.txt"), "w") as f:
    ...     print("7 0 a 2\\n7 0 b 0", file=f)
    >>> data = read_engine_log(os.path.join(d, "log.jsonl"), "opensearch", os.path.join(d, "qrels.txt"))
    >>> data.feature_names, data.X.tolist(), data.y.tolist(), data.qid.tolist()
    (['title bm25', 'pagerank'], [[2.5, nan], [0.5, nan]], [2.0, 0.0], [7, 7])
    """
    if engine not in ENGINE_LOGS:
        raise ValueError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINE_LOGS)}")
    if unjudged not in UNJUDGED:
        raise ValueError(f"unjudged must be one of {', '.join(UNJUDGED)}, got {unjudged!r}")
    names = None if feature_names is None else [str(s) for s in feature_names]
    if names is not None and len(set(names)) != len(names):
        raise ValueError("feature_names repeats a name")
    if engine == "elasticsearch" and names is None:
        raise ValueError("engine 'elasticsearch': give feature_names (the model's feature_extractors in order, "
                         "model.json's input.field_names): its log names only the features that matched")
    judged = _judgments(judgments)
    rows: list[dict[str, Optional[float]]] = []
    labels: list[float] = []
    qids: list[str] = []
    docs: list[str] = []
    seen: dict[str, int] = {}
    fname = os.fspath(path)
    with open(fname, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{fname} line {n}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{where}: not JSON ({exc.msg} at column {exc.colno})") from None
            except RecursionError:
                raise ValueError(f"{where}: the JSON nests too deeply to be read") from None
            if not isinstance(obj, dict) or "qid" not in obj or "response" not in obj:
                raise ValueError(f"{where}: not an object {{\"qid\": ..., \"response\": ...}}")
            q = obj["qid"]
            if isinstance(q, bool) or not isinstance(q, (str, int)) or not str(q).strip():
                raise ValueError(f"{where}: qid {q!r} is not a string or an integer")
            q = str(q)
            where = f"{where} (qid {q})"
            if q in seen:
                raise ValueError(f"{where}: the query is on line {seen[q]} already")
            seen[q] = n
            try:
                found = documents(engine, obj["response"], log_name=log_name, id_field=id_field,
                                  feature_names=names)
            except LogError as exc:
                raise ValueError(f"{where}: {exc}") from None
            known = judged.get(q, {})
            ids: set[str] = set()
            for doc, values in found:
                if doc in ids:
                    raise ValueError(f"{where}: document {doc!r} is logged twice")
                ids.add(doc)
                label = _label(known, doc)
                if label is None:
                    if unjudged == "drop":
                        continue
                    label = 0.0
                if names is not None:
                    extra = [s for s in values if s not in set(names)]
                    if extra:
                        raise ValueError(f"{where}: document {doc!r} logs {extra[0]!r}, not in feature_names")
                rows.append(values)
                labels.append(label)
                qids.append(q)
                docs.append(doc)
    if not rows:
        raise ValueError(f"{fname}: no judged document in the log (were the judgments' qids and document ids the "
                         "log's?)")
    if names is None:
        order: dict[str, None] = {}
        for values in rows:
            order.update(dict.fromkeys(values))
        names = list(order)
    if not names:
        raise ValueError(f"{fname}: the log holds no feature")
    absent = 0.0 if engine == "solr" else missing
    col = {s: j for j, s in enumerate(names)}
    X = np.full((len(rows), len(names)), absent, dtype=np.float64)
    for i, values in enumerate(rows):
        for s, v in values.items():
            X[i, col[s]] = missing if v is None else v
    qnum, renumbered = _qid_numbers(qids)
    comments = [f"docid = {d if d.isprintable() else json.dumps(d)}" + (f" qid = {q}" if renumbered else "")
                for d, q in zip(docs, qids)]
    return RankingData(X, np.asarray(labels), np.asarray(qnum, dtype=np.int64), comments, names)
