"""The logged features of each document in one search engine response, as the engines
document their shapes (used by :func:`rankselect.data.read_engine_log`).

Each reader takes the ``response`` object of one query and returns ``(doc id, {feature
name: value or None})`` per document in the response's order; ``None`` marks a feature the
engine logged as not matching (its value is then the reader's ``missing``). A name the
document does not log at all is missing too (:func:`rankselect.data.read_engine_log`
decides what that means per engine).

- ``"opensearch"``: OpenSearch LTR / the o19s Elasticsearch LTR plugin, a search with
  ``ext.ltr_log``: each hit (``hits.hits``) has its ``_id`` and ``fields._ltrlog`` (or
  ``_ltrlog``): a list of ``{log name: [{"name": ..., "value": ...}, ...]}``, one entry per
  feature of the set in its order; an entry without ``value`` did not match (with
  ``missing_as_zero`` the plugin logs 0 instead); the ``extra_logging`` entry is skipped; a
  hit without a log (the ``sltr`` query did not match it) has every feature missing.
- ``"solr"``: Solr LTR, ``fl=id,[features store=...]``: each document (``response.docs``)
  has its unique key (``id``) and ``[features]``, ``name=value,name=value,...`` (the dense
  format lists every feature of the store, a non-matching one at its ``defaultValue``,
  0 unless set; the sparse format leaves out the zeros: absent means 0 there).
- ``"vespa"``: each hit (``root.children``) has ``fields.matchfeatures`` (or
  ``fields.summaryfeatures``, without Vespa's own ``vespa.*`` entries; a function appears as
  ``rankingExpression(name)`` in older versions) and its id (``fields.documentid`` or
  ``id``, ``id:<namespace>:<type>::<user id>``); with the set's names given, a function
  named as the export names it (:func:`vespa_identifier`) is read as its feature.
- ``"elasticsearch"``: Elasticsearch's own learning to rank, logged as eland's
  ``FeatureLogger`` does: a search whose ``should`` clauses are the extractors' queries named
  by feature, run with ``include_named_queries_score=true``: each hit has its ``_id`` and
  ``matched_queries``, ``{feature name: score}`` of the queries that matched (a feature
  absent did not match; eland gives it NaN); or ``FeatureLogger.extract_features``'s own
  result, ``{doc id: [value per feature]}`` (NaN for no match), which needs the names.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Optional

__all__ = ["ENGINE_LOGS", "VESPA_RESERVED", "documents", "vespa_identifier"]

#: the engines whose logs :func:`documents` reads
ENGINE_LOGS = ("opensearch", "solr", "vespa", "elasticsearch")

Doc = tuple[str, dict[str, Optional[float]]]


class LogError(ValueError):
    """What is wrong with one response (the caller adds the line and the qid)."""


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LogError(f"{what}: the value {value!r} is not a number")
    return float(value)


def _doc_id(value: Any, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise LogError(f"{what}: no document id (got {value!r})")
    return str(value)


def _get(obj: Any, path: str, what: str) -> Any:
    for key in path.split("."):
        if not isinstance(obj, Mapping) or key not in obj:
            raise LogError(f"{what}: no {path}")
        obj = obj[key]
    return obj


def _list(obj: Any, path: str) -> list:
    found = _get(obj, path, "the response")
    if not isinstance(found, list):
        raise LogError(f"the response's {path} is not a list")
    return found


def _opensearch(response: Any, log_name: Optional[str], id_field: str) -> list[Doc]:
    out: list[Doc] = []
    hits = _list(response, "hits.hits")
    logged = [isinstance(h, Mapping) and (isinstance(h.get("fields"), Mapping) and "_ltrlog" in h["fields"]
                                          or "_ltrlog" in h) for h in hits]
    if hits and not any(logged):
        raise LogError("no hit has fields._ltrlog (was the query run with ext.ltr_log?)")
    for i, hit in enumerate(hits):
        what = f"hit {i}"
        doc = _doc_id(hit.get(id_field) if isinstance(hit, Mapping) else None, what)
        what = f"hit {i} ({id_field} {doc!r})"
        if not logged[i]:  # the sltr query did not match the document: every feature is missing
            out.append((doc, {}))
            continue
        fields = hit.get("fields") if isinstance(hit.get("fields"), Mapping) else {}
        logs = fields.get("_ltrlog", hit.get("_ltrlog"))
        if not isinstance(logs, list) or not logs:
            raise LogError(f"{what}: no fields._ltrlog (was the query run with ext.ltr_log?)")
        named: dict[str, Any] = {}
        for log in logs:
            if not isinstance(log, Mapping):
                raise LogError(f"{what}: _ltrlog holds {log!r}, not {{log name: entries}}")
            named.update(log)
        if log_name is None:
            if len(named) != 1:
                raise LogError(f"{what}: _ltrlog holds the logs {sorted(named)}: give log_name")
            (entries,) = named.values()
        elif log_name in named:
            entries = named[log_name]
        else:
            raise LogError(f"{what}: no log named {log_name!r} in _ltrlog (it has {sorted(named)})")
        values: dict[str, Optional[float]] = {}
        for e in entries if isinstance(entries, list) else [None]:
            if not isinstance(e, Mapping) or not isinstance(e.get("name"), str):
                raise LogError(f"{what}: a log entry {e!r} is not {{'name': ..., 'value': ...}}")
            if e["name"] == "extra_logging" and isinstance(e.get("value"), Mapping):
                continue  # the plugin's extra logging (script features), not a feature value
            if e["name"] in values:
                raise LogError(f"{what}: feature {e['name']!r} logged twice")
            values[e["name"]] = _number(e["value"], f"{what}, feature {e['name']!r}") if "value" in e else None
        out.append((doc, values))
    return out


def solr_pairs(text: str) -> list[str]:
    """The ``name=value`` parts of Solr's ``[features]`` text (``a=1.0,b=2.0``): split at the
    commas, a piece without ``=`` joined to the next, so that a name holding commas (with no
    ``=`` before its last comma: what the Solr export lets through) reads back whole.

    Examples
    --------
    >>> from rankselect.data.engine_responses import solr_pairs
    >>> solr_pairs("tf(title,body)=2.0,bm25=1.5")
    ['tf(title,body)=2.0', 'bm25=1.5']
    """
    out: list[str] = []
    pending: Optional[str] = None
    for piece in text.split(",") if text else []:
        pending = piece if pending is None else f"{pending},{piece}"
        if "=" in piece:
            out.append(pending)
            pending = None
    if pending is not None:
        out.append(pending)  # no "=": the caller says it is not name=value
    return out


def _solr(response: Any, id_field: str) -> list[Doc]:
    out = []
    for i, d in enumerate(_list(response, "response.docs")):
        doc = _doc_id(d.get(id_field) if isinstance(d, Mapping) else None, f"document {i} (field {id_field!r})")
        what = f"document {i} ({id_field} {doc!r})"
        text = d.get("[features]")
        if not isinstance(text, str):
            raise LogError(f"{what}: no [features] string (was fl=...,[features ...] asked for?)")
        values: dict[str, Optional[float]] = {}
        for part in solr_pairs(text):
            name, sep, value = part.rpartition("=")
            if not sep or not name:
                raise LogError(f"{what}: [features] part {part!r} is not name=value")
            try:
                v = float(value)
            except ValueError:
                raise LogError(f"{what}: [features] value {value!r} of {name!r} is not a number") from None
            if name in values:
                raise LogError(f"{what}: feature {name!r} logged twice")
            values[name] = v
        out.append((doc, values))
    return out


#: words that Vespa's ranking-expression language reads as a constant (``true`` is 1,
#: ``false`` 0) or as one of its functions, not as a function of the rank profile
VESPA_RESERVED = frozenset("""true false if in f map reduce join merge rename concat tensor range diag random
    l1_normalize l2_normalize euclidean_distance cosine_similarity matmul softmax xw_plus_b argmax argmin
    cell_cast expand top filter_subspaces map_subspaces split cell_order partial avg count max median min prod sum
    acos asin atan ceil cos cosh elu exp fabs floor isNan log log10 relu round sigmoid sign sin sinh square sqrt
    tan tanh erf abs atan2 fmod ldexp pow bit hamming mod nan inf""".split())
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def vespa_identifier(name: str) -> str:
    """The function name of feature ``name`` in the rank profile that ``rankselect export``
    writes (and so in Vespa's match features): other characters become ``_``, a leading
    digit gets a ``_``, a word of the expression language (:data:`VESPA_RESERVED`) a
    ``_feature`` suffix.

    Examples
    --------
    >>> from rankselect.data.engine_responses import vespa_identifier
    >>> vespa_identifier("LMIR.JM (url)"), vespa_identifier("true"), vespa_identifier("3gram")
    ('LMIR_JM__url_', 'true_feature', '_3gram')
    """
    s = re.sub(r"[^A-Za-z0-9_]", "_", name)
    s = s if _IDENT.match(s) else "_" + s
    return s + "_feature" if s in VESPA_RESERVED else s


def _vespa_name(key: str) -> str:
    if key.startswith("rankingExpression(") and key.endswith(")"):
        return key[len("rankingExpression("):-1]
    return key


def _vespa(response: Any, feature_names: Optional[list[str]]) -> list[Doc]:
    root = _get(response, "root", "the response")
    children = root.get("children", []) if isinstance(root, Mapping) else None
    if not isinstance(children, list):
        raise LogError("the response's root.children is not a list")
    # the profile's functions are the set's names as identifiers: back to the names
    given = set(feature_names or [])
    back = {vespa_identifier(s): s for s in given}
    out = []
    for i, hit in enumerate(children):
        fields = hit.get("fields") if isinstance(hit, Mapping) else None
        if not isinstance(fields, Mapping):
            raise LogError(f"hit {i}: no fields")
        doc = _doc_id(fields.get("documentid", hit.get("id")), f"hit {i} (fields.documentid or id)")
        what = f"hit {i} ({doc!r})"
        logged = fields.get("matchfeatures", fields.get("summaryfeatures"))
        if not isinstance(logged, Mapping):
            raise LogError(f"{what}: no fields.matchfeatures / summaryfeatures (does the rank profile list "
                           "match-features?)")
        values: dict[str, Optional[float]] = {}
        for key, value in logged.items():
            if key.startswith("vespa."):
                continue
            if isinstance(value, Mapping):
                raise LogError(f"{what}: feature {key!r} is a tensor, not a number")
            name = _vespa_name(key)
            values[name if name in given else back.get(name, name)] = _number(
                value, f"{what}, feature {key!r}")
        out.append((doc, values))
    return out


def _elasticsearch(response: Any, id_field: str) -> list[Doc]:
    out = []
    for i, hit in enumerate(_list(response, "hits.hits")):
        doc = _doc_id(hit.get(id_field) if isinstance(hit, Mapping) else None, f"hit {i}")
        what = f"hit {i} ({id_field} {doc!r})"
        matched = hit.get("matched_queries", {})
        if isinstance(matched, list):
            raise LogError(f"{what}: matched_queries is a list of names: run the search with "
                           "include_named_queries_score=true for the scores")
        if not isinstance(matched, Mapping):
            raise LogError(f"{what}: matched_queries is {matched!r}")
        values: dict[str, Optional[float]] = {str(k): _number(v, f"{what}, feature {k!r}") for k, v in matched.items()}
        out.append((doc, values))
    return out


def eland_rows(response: Mapping, names: list[str]) -> list[Doc]:
    """eland's ``{doc id: [value per feature]}`` with the features' ``names``."""
    out = []
    for doc, row in response.items():
        if not isinstance(row, list) or len(row) != len(names):
            raise LogError(f"document {doc!r}: {row!r} is not a list of {len(names)} values (one per feature)")
        vals = [_number(v, f"document {doc!r}") for v in row]
        out.append((str(doc), {s: (None if math.isnan(v) else v) for s, v in zip(names, vals)}))
    return out


def documents(engine: str, response: Any, *, log_name: Optional[str] = None, id_field: Optional[str] = None,
              feature_names: Optional[list[str]] = None) -> list[Doc]:
    """``(doc id, {name: value or None})`` of each document of ``response`` (module docstring).

    Examples
    --------
    >>> from rankselect.data.engine_responses import documents
    >>> documents("solr", {"response": {"docs": [{"id": "d1", "[features]": "bm25=1.5,pagerank=0.0"}]}})
    [('d1', {'bm25': 1.5, 'pagerank': 0.0})]
    """
    if engine == "opensearch":
        return _opensearch(response, log_name, id_field or "_id")
    if engine == "solr":
        return _solr(response, id_field or "id")
    if engine == "vespa":
        return _vespa(response, feature_names)
    if engine == "elasticsearch":
        if isinstance(response, Mapping) and "hits" not in response:
            if feature_names is None:
                raise LogError("eland's extract_features result has no names: give feature_names (the "
                               "extractors' order)")
            return eland_rows(response, feature_names)
        return _elasticsearch(response, id_field or "_id")
    raise ValueError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINE_LOGS)}")
