"""Each engine's scoring, ported from its own source code (semantics only, no code copied),
reading the files that ``rankselect.deploy.export_engine`` writes exactly as the engine
parses them. These evaluators are the proof that an export scores a document as the ranker
does; they share nothing with the package's writers.

Sources read (repository, path, commit):

- OpenSearch LTR: opensearch-project/opensearch-learning-to-rank-base
  @ af2d983f16d8fee79a01cdeaa1a6e7aa5b8475e5,
  src/main/java/com/o19s/es/ltr/ranker/dectree/NaiveAdditiveDecisionTree.java (Split.eval: NaN
  -> defaultLeft, else ``threshold > value`` -> left; score: float sum of ``weights[i] * tree``),
  ranker/parser/XGBoostJsonParser.java (split_condition / leaf read with declareFloat; defaultLeft =
  ``missing == yes``; children[0] must be ``yes``), ranker/linear/LinearRanker.java and
  ranker/parser/LinearRankerParser.java (float weights, ``score += w * x`` in float).
- Solr LTR: apache/solr @ b5a11798c0c69d4cea6aac1425e7ac2095f5cb47,
  solr/modules/ltr/src/java/org/apache/solr/ltr/model/MultipleAdditiveTreesModel.java
  (threshold = Float.parseFloat + 1e-6f; scoreNodeWithNullSupport: ``<=`` left, ``>`` right, NaN by
  ``missing``; score: float sum of ``weight * value``);
  model/LinearModel.java @ 19c29c5025090521691c4118563cdcdc036174b3;
  norm/StandardNormalizer.java @ 9f5b2c7c27ed8d6cdcac2fc64c3c3f57ddf2e99d (``(value - avg) / std`` in float;
  skipped for NaN when isNullSameAsZero is false).
- Elasticsearch: elastic/elasticsearch, x-pack/plugin/core/src/main/java/org/elasticsearch/xpack/core/ml/
  inference/trainedmodel/inference/TreeInferenceModel.java @ 00d1fd80ea47f3f66b24286112e8d9a144a6458d
  (InnerNode.compare: missing = not a valid double (NaN, +-inf) -> default_left; else operator(value,
  threshold)), EnsembleInferenceModel.java @ 069442fda2d27d570c1a85af3a2972a33b69db2d, ensemble/WeightedSum.java
  @ 08b9142151263fdfc1b24c52746dd7d9165261b5 (``Arrays.stream(values).sum()``: Java's compensated sum).
- Vespa: vespa-engine/vespa @ 1f79d33dd014ea2f2e9ae4ee7a46da342f5e902c,
  model-integration/src/main/java/ai/vespa/rankingexpression/importer/lightgbm/LightGBMParser.java
  (``if (x < t, l, r)``, ``!(x >= t)`` when default_left; t = Double.parseDouble(threshold text); leaves
  double; sigmoid/exp for some objectives), eval/src/vespa/eval/eval/gbdt.cpp (Optimize::select_best) and
  vm_forest.cpp (float thresholds and leaves when selected); searchlib/src/vespa/searchlib/queryeval/
  first_phase_rescorer.cpp (the first-phase scores of the hits outside rerank-count, rescaled below the
  second-phase scores).
- RankLib: codelibs/ranklib @ 0cc17c81574469ef7d2d7df0e0e387038a55b969,
  src/main/java/ciir/umass/edu/learning/CoorAscent.java (``score += weight[i] * x[features[i]]`` in double).
"""
from __future__ import annotations

import json
import re
from fractions import Fraction

import numpy as np

F32 = np.float32


def java_float(text) -> np.float32:
    """Float.parseFloat: the float32 nearest the decimal (ties to even)."""
    exact = Fraction(str(text))
    f = F32(float(str(text)))
    best = None
    with np.errstate(over="ignore"):
        candidates = (np.nextafter(f, F32(-np.inf)), f, np.nextafter(f, F32(np.inf)))
    for c in candidates:
        if not np.isfinite(c):
            continue
        d = abs(Fraction(float(c)) - exact)
        if best is None or d < best[0] or (d == best[0] and int(c.view(np.uint32)) % 2 == 0):
            best = (d, c)
    return F32(best[1])


def _walk(n_rows, root, go_left, is_leaf, left, right, leaf_value, dtype):
    """Vectorised descent: each row from ``root`` while its node is a split."""
    node = np.full(n_rows, root)
    while True:
        active = np.flatnonzero(~is_leaf[node])
        if active.size == 0:
            return leaf_value[node].astype(dtype)
        nd = node[active]
        gl = go_left(nd, active)
        node[active] = np.where(gl, left[nd], right[nd])


# ------------------------------------------------------------------------------ OpenSearch


def opensearch_scores(files: dict[str, str], X: np.ndarray) -> np.ndarray:
    """X: the feature values, one column per feature of featureset.json (float32 in the plugin)."""
    names = [f["name"] for f in json.loads(files["featureset.json"])["featureset"]["features"]]
    ordinal = {s: i for i, s in enumerate(names)}
    x = np.asarray(X, dtype=F32)
    model = json.loads(files["createmodel.json"])["model"]["model"]
    definition = json.loads(model["definition"], parse_float=str, parse_int=str)
    if model["type"] == "model/linear":
        w = np.zeros(len(names), dtype=F32)
        for k, v in definition.items():
            w[ordinal[k]] = java_float(v)  # LinearRankerParser: parser.floatValue()
        score = np.zeros(len(x), dtype=F32)
        for i in range(len(names)):
            score = (score + (w[i] * x[:, i]).astype(F32)).astype(F32)
        return score
    assert model["type"] == "model/xgboost+json"
    trees = definition["splits"] if isinstance(definition, dict) else definition
    total = np.zeros(len(x), dtype=F32)
    for t in trees:
        nodes: list = []  # (is_leaf, feature, threshold, default_left, left, right, leaf)
        _os_flatten(t, nodes, ordinal)
        a = _arrays(nodes, F32)
        out = _walk(len(x), 0, _os_test(x, a), a["is_leaf"], a["left"], a["right"], a["leaf"], F32)
        total = (total + (F32(1) * out).astype(F32)).astype(F32)
    return total


def _arrays(nodes: list, dtype) -> dict[str, np.ndarray]:
    keys = ("is_leaf", "feat", "thr", "flag", "left", "right", "leaf")
    out = {k: np.array([n[i] for n in nodes]) for i, k in enumerate(keys)}
    out["thr"], out["leaf"] = out["thr"].astype(dtype), out["leaf"].astype(dtype)
    return out


def _os_flatten(d: dict, nodes: list, ordinal: dict) -> int:
    i = len(nodes)
    nodes.append(None)
    if "leaf" in d:
        nodes[i] = (True, 0, F32(0), False, 0, 0, java_float(d["leaf"]))
        return i
    yes, no = int(d["yes"]), int(d["no"])
    kids = d["children"]  # XGBoostJsonParser.splitHasValidChildren
    assert len(kids) == 2 and int(kids[0]["nodeid"]) == yes and int(kids[1]["nodeid"]) == no
    missing = d.get("missing")
    assert missing is None or int(missing) in (yes, no)
    lo, hi = _os_flatten(kids[0], nodes, ordinal), _os_flatten(kids[1], nodes, ordinal)
    nodes[i] = (False, ordinal[d["split"]], java_float(d["split_condition"]),
                missing is not None and int(missing) == yes, lo, hi, F32(0))
    return i


def _os_test(x, a):
    def go_left(nd, rows):  # Split.eval: NaN -> defaultLeft; else threshold > value -> left
        v = x[rows, a["feat"][nd]]
        return np.where(np.isnan(v), a["flag"][nd], a["thr"][nd] > v)
    return go_left


# ------------------------------------------------------------------------------------ Solr


def solr_scores(files: dict[str, str], X: np.ndarray) -> np.ndarray:
    """X: one column per feature of the model's ``features`` list (float32 in Solr)."""
    model = json.loads(files["model.json"], parse_float=str, parse_int=str)
    feats = model["features"]
    index = {f["name"]: i for i, f in enumerate(feats)}
    x = np.asarray(X, dtype=F32).copy()
    params = model.get("params", {})
    null_same_as_zero = params.get("isNullSameAsZero", True) not in (False, "false")
    for i, f in enumerate(feats):  # normalizeFeaturesInPlace
        norm = f.get("norm")
        if norm is None:
            continue
        assert norm["class"] == "org.apache.solr.ltr.norm.StandardNormalizer"
        avg, std = java_float(norm["params"].get("avg", "0")), java_float(norm["params"].get("std", "1"))
        assert std > 0
        col = x[:, i]
        scaled = ((col - avg).astype(F32) / std).astype(F32)
        x[:, i] = np.where(np.isnan(col), col, scaled) if not null_same_as_zero else scaled
    if model["class"] == "org.apache.solr.ltr.model.LinearModel":
        w = np.array([java_float(params["weights"][f["name"]]) for f in feats], dtype=F32)
        score = np.zeros(len(x), dtype=F32)
        for i in range(len(feats)):
            score = (score + (x[:, i] * w[i]).astype(F32)).astype(F32)
        return score
    assert model["class"] == "org.apache.solr.ltr.model.MultipleAdditiveTreesModel"
    total = np.zeros(len(x), dtype=F32)
    for tree in params["trees"]:
        weight = java_float(tree["weight"])
        nodes: list = []
        _solr_flatten(tree["root"], nodes, index)
        assert all(n[1] >= 0 for n in nodes if not n[0]), "a tree feature is not in the model's features"
        if not null_same_as_zero:  # a null 'missing' would throw in the switch
            assert all(n[3] in ("left", "right") for n in nodes if not n[0]), "a split without missing"
        a = _arrays([n[:3] + (n[3] == "left",) + n[4:] for n in nodes], F32)
        out = _walk(len(x), 0, _solr_test(x, a, null_same_as_zero), a["is_leaf"], a["left"], a["right"], a["leaf"],
                    F32)
        total = (total + (weight * out).astype(F32)).astype(F32)
    return total


def _solr_flatten(d: dict, nodes: list, index: dict) -> int:
    i = len(nodes)
    nodes.append(None)
    if "feature" not in d:
        nodes[i] = (True, 0, F32(0), "right", 0, 0, java_float(d.get("value", "0")))
        return i
    lo, hi = _solr_flatten(d["left"], nodes, index), _solr_flatten(d["right"], nodes, index)
    thr = (java_float(d["threshold"]) + F32(1e-6)).astype(F32)  # setThreshold: + NODE_SPLIT_SLACK
    nodes[i] = (False, index.get(d["feature"], -1), thr, d.get("missing"), lo, hi, F32(0))
    return i


def _solr_test(x, a, null_same_as_zero: bool):
    def go_left(nd, rows):  # scoreNode / scoreNodeWithNullSupport
        v = x[rows, a["feat"][nd]]
        if null_same_as_zero:
            return v <= a["thr"][nd]
        return np.where(np.isnan(v), a["flag"][nd], v <= a["thr"][nd])
    return go_left


# --------------------------------------------------------------------------- Elasticsearch


def java_double_sum(values: np.ndarray) -> np.ndarray:
    """``DoubleStream.sum()`` over axis 0 (Collectors.sumWithCompensation, computeFinalSum; JDK 17+)."""
    s = np.zeros(values.shape[1])
    c = np.zeros(values.shape[1])
    simple = np.zeros(values.shape[1])
    for v in values:
        tmp = v - c
        velvel = s + tmp
        c = (velvel - s) - tmp
        s = velvel
        simple = simple + v
    out = s - c
    return np.where(np.isnan(out) & np.isinf(simple), simple, out)


_OPS = {"lt": np.less, "lte": np.less_equal, "gt": np.greater, "gte": np.greater_equal}


def elasticsearch_scores(files: dict[str, str], X: np.ndarray) -> np.ndarray:
    """X: one column per ``input.field_names`` entry (float64 in the inference)."""
    body = json.loads(files["model.json"])
    fields = body["input"]["field_names"]
    extract = [e["query_extractor"]["feature_name"] for e in body["inference_config"]["learning_to_rank"]
               ["feature_extractors"]]
    assert extract == fields
    x = np.asarray(X, dtype=np.float64)
    ens = body["definition"]["trained_model"]["ensemble"]
    assert "weights" not in ens["aggregate_output"]["weighted_sum"]
    values = [_es_tree(model["tree"], x, fields) for model in ens["trained_models"]]
    return java_double_sum(np.array(values))


def _es_tree(tree: dict, x: np.ndarray, fields: list) -> np.ndarray:
    col = [fields.index(s) for s in tree["feature_names"]]
    nodes = sorted(tree["tree_structure"], key=lambda n: n["node_index"])
    assert [n["node_index"] for n in nodes] == list(range(len(nodes)))
    is_leaf = np.array([n.get("left_child", -1) < 0 for n in nodes])
    feat = np.array([col[n["split_feature"]] if not leaf else 0 for n, leaf in zip(nodes, is_leaf)])
    thr = np.array([n.get("threshold", np.nan) for n in nodes], dtype=np.float64)
    op = np.array([list(_OPS).index(n.get("decision_type", "lte")) for n in nodes])
    dl = np.array([n.get("default_left", False) for n in nodes])
    left = np.array([n.get("left_child", 0) for n in nodes])
    right = np.array([n.get("right_child", 0) for n in nodes])
    leaf = np.array([(n["leaf_value"][0] if isinstance(n["leaf_value"], list) else n["leaf_value"])
                     if lf else 0.0 for n, lf in zip(nodes, is_leaf)])

    def go_left(nd, rows):  # InnerNode.compare: not a valid double -> default_left
        v = x[rows, feat[nd]]
        test = np.choose(op[nd], [fn(v, thr[nd]) for fn in _OPS.values()])
        return np.where(~np.isfinite(v), dl[nd], test)

    return _walk(len(x), 0, go_left, is_leaf, left, right, leaf, np.float64)


# ----------------------------------------------------------------------------------- Vespa

_NUM = r"-?\d[\d.]*(?:[eE][+-]?\d+)?"


def _lightgbm_forest(model: dict, x: np.ndarray, columns: dict[str, int]) -> np.ndarray:
    names = model["feature_names"]
    forests = [t["tree_structure"] for t in model["tree_info"]]
    stats = []  # Optimize::select_best: tree sizes (leaves) and average leaf depth
    for root in forests:
        leaves, depth_sum, stack = 0, 0, [(root, 0)]
        while stack:
            d, k = stack.pop()
            if "leaf_value" in d:
                leaves, depth_sum = leaves + 1, depth_sum + k
            else:
                stack += [(d["left_child"], k + 1), (d["right_child"], k + 1)]
        stats.append((leaves, depth_sum / leaves))
    vm = (max(s[0] for s in stats) > 12 and sum(s[1] for s in stats) > 2500.0) or sum(s[0] for s in stats) > 25000
    total = np.zeros(len(x))
    for root in forests:
        nodes: list = []
        _vespa_flatten(root, nodes, columns, names, vm)
        a = _arrays(nodes, np.float64)
        total = total + _walk(len(x), 0, _vespa_test(x, a), a["is_leaf"], a["left"], a["right"], a["leaf"],
                              np.float64)
    objective = model.get("objective", "regression")
    if objective.startswith("binary") or objective == "cross_entropy":
        return 1.0 / (1.0 + np.exp(-total))
    if objective in ("poisson", "gamma", "tweedie"):
        return np.exp(total)
    return total


def _vespa_flatten(d: dict, nodes: list, columns: dict, names: list, vm: bool) -> int:
    i = len(nodes)
    nodes.append(None)
    if "leaf_value" in d:
        v = float(d["leaf_value"])
        nodes[i] = (True, 0, 0.0, False, 0, 0, float(F32(v)) if vm else v)  # VMForest: float leaves
        return i
    assert d.get("decision_type", "<=") != "=="
    lo = _vespa_flatten(d["left_child"], nodes, columns, names, vm)
    hi = _vespa_flatten(d["right_child"], nodes, columns, names, vm)
    t = float(str(d["threshold"]))  # Double.parseDouble of the JSON number's text
    nodes[i] = (False, columns[names[d["split_feature"]]], float(F32(t)) if vm else t,
                bool(d.get("default_left", False)), lo, hi, 0.0)
    return i


def _vespa_test(x, a):
    def go_left(nd, rows):  # if (x < t, ...) or if (!(x >= t), ...) when default_left
        v = x[rows, a["feat"][nd]]
        return np.where(a["flag"][nd], ~(v >= a["thr"][nd]), v < a["thr"][nd])
    return go_left


def vespa_scores(files: dict[str, str], X: np.ndarray, phase: str = "last") -> np.ndarray:
    """X: one column per ``function`` of the profile that the model reads (float64 features).
    ``phase``: ``"first"``, ``"second"`` or ``"last"`` (the second-phase expression when there
    is one: a re-ranked hit's score)."""
    profile = next(v for k, v in files.items() if k.endswith(".profile"))
    funcs = dict(re.findall(r"function (\w+)\(\) \{\s*expression: ([^\n]+)\n", profile))
    second = re.search(r"second-phase \{\s*(?:rerank-count: \d+\s*)?expression: ([^\n]+)\n", profile)
    first_phase = re.search(r"first-phase \{\s*expression: ([^\n]+)\n", profile)
    first = first_phase.group(1) if phase == "first" or (phase == "last" and not second) else second.group(1)
    feature_funcs = [f for f, e in funcs.items() if not e.startswith("lightgbm(")]
    columns = {f: i for i, f in enumerate(feature_funcs)}
    x = np.asarray(X, dtype=np.float64)

    def value(term: str) -> np.ndarray:
        m = re.fullmatch(r'lightgbm\("([^"]+)"\)', term)
        if m:
            return _lightgbm_forest(json.loads(files["models/" + m.group(1)], parse_float=str), x, columns)
        if term in columns:
            return x[:, columns[term]]
        if term in funcs:
            return value(funcs[term].strip())
        m = re.fullmatch(rf"({_NUM}) \* (\w+)", term)
        if m:
            return float(m.group(1)) * value(m.group(2))
        return np.full(len(x), float(term))

    total = None
    pattern = rf'(^|[+-] )\s*(lightgbm\("[^"]+"\)|{_NUM} \* \w+|{_NUM}|\w+)'
    for sign, term in re.findall(pattern, first):
        v = value(term)
        v = -v if sign.strip() == "-" else v
        total = v if total is None else total + v
    return total


def vespa_cascade_scores(files: dict[str, str], X: np.ndarray, qid: np.ndarray) -> np.ndarray:
    """The final scores of a profile with ``second-phase { rerank-count: N }``, one content node:
    per query the N best hits by first-phase score (ties: lower row, as a lower docid) get the
    second-phase score; if the lowest first-phase score among them exceeds their lowest
    second-phase score, every other hit's first-phase score becomes ``score * scale - adjust``
    (``FirstPhaseRescorer``, searchlib/src/vespa/searchlib/queryeval/first_phase_rescorer.cpp:
    ranges clamped to at least 1, ``scale = second range / first range``, ``adjust = first.low *
    scale - second.low``)."""
    profile = next(v for k, v in files.items() if k.endswith(".profile"))
    n = int(re.search(r"rerank-count: (\d+)", profile).group(1))
    s1, s2 = vespa_scores(files, X, "first"), vespa_scores(files, X, "second")
    out = s1.astype(np.float64).copy()
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        order = rows[np.argsort(-s1[rows], kind="stable")]
        top, rest = order[:n], order[n:]
        out[top] = s2[top]
        f_lo, f_hi, s_lo, s_hi = s1[top].min(), s1[top].max(), s2[top].min(), s2[top].max()
        if f_lo > s_lo and rest.size:
            scale = max(s_hi - s_lo, 1.0) / max(f_hi - f_lo, 1.0)
            out[rest] = s1[rest] * scale - (f_lo * scale - s_lo)
    return out


# --------------------------------------------------------------------------------- RankLib


def ranklib_scores(files: dict[str, str], X: np.ndarray) -> np.ndarray:
    """X: one column per feature of featureset.json, RankLib's feature i is column i - 1."""
    line = next(s.strip() for s in files["model.txt"].splitlines() if s.strip() and not s.startswith("##"))
    pairs = [p.split(":") for p in line.split()]
    x = np.asarray(X, dtype=F32)
    score = np.zeros(len(x))
    for k, w in pairs:
        score = score + float(w) * x[:, int(k) - 1].astype(np.float64)
    return score
