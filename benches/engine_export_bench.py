"""Engine exports (issue #41): parity, the pitfalls of hand-written exports, and speed.

    python benches/engine_export_bench.py [--data ../shared/data] [--rounds 5]

1. Parity: on MQ2008 Fold1 and OHSUMED Fold1 (a 12-feature greedy RankRLS selection,
   100-tree LightGBM and XGBoost rankers), each engine's files are scored by the ports of the
   engines' code (tests/deploy/engine_ports.py) and compared with the ranker's own
   ``predict``: the largest difference, and the test queries whose order differs (plain
   values, 5 % NaN).
2. Pitfalls: the exports a user would write by hand, scored by the same ports on MQ2008
   Fold1: queries of the test fold whose order differs from the ranker's.
3. Speed: ``export_engine`` for a 1,000-tree model (31 leaves each), per engine, minimum of
   ``--rounds``, CPU time of the process (robust on a loaded machine) and wall time; the anchor
   is ``json.dumps`` of the library's own JSON dump of the model (same run).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "deploy"))
import engine_ports as ports  # noqa: E402 (the tests' ports of the engines' code)

import rankselect as rs  # noqa: E402
from rankselect.deploy import export_engine  # noqa: E402
from rankselect.deploy.floats import lt_float32  # noqa: E402
from rankselect.deploy.trees import forest_of  # noqa: E402

PORTS = {"opensearch": ports.opensearch_scores, "solr": ports.solr_scores,
         "elasticsearch": ports.elasticsearch_scores, "vespa": ports.vespa_scores}
FLOAT32 = ("opensearch", "solr")


def groups(qid):
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    return np.diff(np.r_[starts, len(qid)])


def reordered(got, ref, qid) -> int:
    return sum(not np.array_equal(np.argsort(-got[qid == q], kind="stable"), np.argsort(-ref[qid == q], kind="stable"))
               for q in np.unique(qid))


def fold(data: Path, name: str):
    import lightgbm as lgb
    import xgboost as xgb

    tr = rs.load_letor(data / name / "Fold1" / "train.txt")
    te = rs.load_letor(data / name / "Fold1" / "test.txt", n_features=tr.X.shape[1])
    sel = rs.GreedyRankRLS(n_features_to_select=12).fit(tr.X, tr.y, qid=tr.qid)
    cols = list(sel.selected_features_)
    models = {"lightgbm": lgb.LGBMRanker(n_estimators=100, verbose=-1, random_state=0).fit(
                  tr.X[:, cols], tr.y, group=groups(tr.qid)),
              "xgboost": xgb.XGBRanker(n_estimators=100, tree_method="hist", random_state=0).fit(
                  tr.X[:, cols], tr.y, qid=tr.qid)}
    return sel, cols, te, models


def parity(data: Path) -> None:
    print("| data | ranker | engine | values | max abs diff | max rel diff | queries reordered |")
    print("|---|---|---|---|---|---|---|")
    for name in ("MQ2008", "OHSUMED-LETOR2"):
        sel, cols, te, models = fold(data, name)
        rng = np.random.default_rng(0)
        nan = te.X[:, cols].copy()
        nan[rng.random(nan.shape) < 0.05] = np.nan
        for lib, model in models.items():
            for engine, port in PORTS.items():
                # NaN is the model's missing value here (the rows below compare with predict on NaN)
                files = export_engine(engine, sel, model, non_match="missing").files
                for tag, X in (("plain", te.X[:, cols]), ("5 % NaN", nan)):
                    x = X.astype(np.float32).astype(np.float64) if engine in FLOAT32 else X
                    ref = model.predict(x).astype(np.float64)
                    got = port(files, x).astype(np.float64)
                    d = np.abs(got - ref)
                    print(f"| {name} Fold1 | {lib} | {engine} | {tag} | {d.max():.2g} | "
                          f"{(d / np.maximum(1, np.abs(ref))).max():.2g} | {reordered(got, ref, te.qid)} of "
                          f"{len(np.unique(te.qid))} |")


# ---------------------------------------------------------------------- hand-written exports


def _nested(forest, n, split, leaf):
    if forest.feature[n] < 0:
        return leaf(n)
    return split(n, _nested(forest, int(forest.left[n]), split, leaf),
                 _nested(forest, int(forest.right[n]), split, leaf))


def _own_thresholds(f) -> np.ndarray:
    """The library's own split values: LightGBM's float64 threshold is the IR's; XGBoost's
    float32 split value is the float32 just above the IR's (the OpenSearch conversion)."""
    return f.threshold if f.source == "lightgbm" else lt_float32(f.threshold).astype(np.float64)


def naive_solr(model, names):
    """The library's thresholds copied into a MultipleAdditiveTreesModel (no slack compensation, no missing)."""
    f = forest_of(model)
    own = _own_thresholds(f)
    trees = [{"weight": "1", "root": _nested(
        f, int(r), lambda n, lo, hi: {"feature": names[f.feature[n]], "threshold": repr(float(own[n])),
                                      "left": lo, "right": hi},
        lambda n: {"value": repr(float(f.value[n]))})} for r in f.tree_start]
    model_json = {"class": "org.apache.solr.ltr.model.MultipleAdditiveTreesModel", "features": [
        {"name": s} for s in names], "params": {"trees": trees}}
    return {"model.json": json.dumps(model_json)}


def naive_opensearch(model, names):
    """LightGBM's thresholds copied into model/xgboost+json (its test is <, LightGBM's <=), no missing."""
    f = forest_of(model)

    def split(n, lo, hi):
        return {"nodeid": n, "split": names[f.feature[n]], "split_condition": float(f.threshold[n]),
                "yes": lo["nodeid"], "no": hi["nodeid"], "children": [lo, hi], "depth": 0}

    trees = [_nested(f, int(r), split, lambda n: {"nodeid": n, "leaf": float(f.value[n])}) for r in f.tree_start]
    return {"featureset.json": json.dumps({"featureset": {"features": [{"name": s} for s in names]}}),
            "createmodel.json": json.dumps({"model": {"model": {"type": "model/xgboost+json",
                                                                "definition": json.dumps(trees)}}})}


def eland_xgboost(model, names):
    """eland's XGBoost route: thresholds from trees_to_dataframe (the text dump), 'lt', no
    default_left, and a 0.5 base-score stump."""
    df = model.get_booster().trees_to_dataframe()
    trees = []
    for _, t in df.groupby("Tree", sort=True):
        nodes = []
        for _, row in t.iterrows():
            if row["Feature"] == "Leaf":
                nodes.append({"node_index": int(row["Node"]), "leaf_value": [float(row["Gain"])]})
            else:
                nodes.append({"node_index": int(row["Node"]), "split_feature": int(row["Feature"][1:]),
                              "threshold": float(row["Split"]), "decision_type": "lt",
                              "left_child": int(row["Yes"].split("-")[1]), "right_child": int(row["No"].split("-")[1])})
        trees.append({"tree": {"feature_names": names, "tree_structure": nodes}})
    trees.append({"tree": {"feature_names": names, "tree_structure": [{"node_index": 0, "leaf_value": [0.5]}]}})
    body = {"input": {"field_names": names}, "inference_config": {"learning_to_rank": {"feature_extractors": [
        {"query_extractor": {"feature_name": s, "query": {}}} for s in names]}},
        "definition": {"trained_model": {"ensemble": {"feature_names": names, "trained_models": trees,
                                                      "aggregate_output": {"weighted_sum": {}}}}}}
    return {"model.json": json.dumps(body)}


def naive_vespa_lightgbm(model, names):
    """LightGBM's own dump_model() JSON given to Vespa's lightgbm() (which tests x < t)."""
    dump = model.booster_.dump_model()
    dump["feature_names"] = names
    profile = "rank-profile p {\n" + "".join(f"    function {s}() {{\n        expression: x\n    }}\n" for s in names)
    profile += '    first-phase {\n        expression: lightgbm("m.json")\n    }\n}\n'
    return {"models/m.json": json.dumps(dump), "p.profile": profile}


def _pitfall_rows(sel, models, names, X, qid):
    """(what, naive reorderings, rankselect's reorderings) on the rows X (selection order)."""
    x32 = X.astype(np.float32).astype(np.float64)
    lm, xm = models["lightgbm"], models["xgboost"]

    def ours(engine, model):  # NaN is the model's missing value here (compared with predict on NaN)
        return export_engine(engine, sel, model, non_match="missing").files

    rows = []
    for lib, model in models.items():
        ref32 = model.predict(x32).astype(np.float64)
        rows.append((f"Solr, {lib} thresholds copied (1e-6 slack, <=, no missing)",
                     reordered(ports.solr_scores(naive_solr(model, names), x32).astype(np.float64), ref32, qid),
                     reordered(ports.solr_scores(ours("solr", model), x32).astype(np.float64),
                               ref32, qid)))
    ref32 = lm.predict(x32)
    rows.append(("OpenSearch, LightGBM thresholds copied (< for <=, NaN right)",
                 reordered(ports.opensearch_scores(naive_opensearch(lm, names), x32).astype(np.float64), ref32, qid),
                 reordered(ports.opensearch_scores(ours("opensearch", lm), x32).astype(np.float64),
                           ref32, qid)))
    ref = xm.predict(X).astype(np.float64)
    rows.append(("Elasticsearch, eland's XGBoost route (decimal thresholds, 0.5 base, no default_left)",
                 reordered(ports.elasticsearch_scores(eland_xgboost(xm, names), X), ref, qid),
                 reordered(ports.elasticsearch_scores(ours("elasticsearch", xm), X), ref, qid)))
    rows.append(("Vespa, LightGBM's own dump to lightgbm() (x < t for x <= t)",
                 reordered(ports.vespa_scores(naive_vespa_lightgbm(lm, names), X), lm.predict(X), qid),
                 reordered(ports.vespa_scores(ours("vespa", lm), X), lm.predict(X), qid)))
    return rows


def pitfalls(data: Path) -> None:
    sel, cols, te, models = fold(data, "MQ2008")
    names = [f"feature_{j + 1}" for j in cols]
    X = te.X[:, cols]
    nan = X.copy()
    nan[np.random.default_rng(0).random(X.shape) < 0.05] = np.nan
    plain = _pitfall_rows(sel, models, names, X, te.qid)
    missing = _pitfall_rows(sel, models, names, nan, te.qid)
    print(f"\nMQ2008 Fold1 test: queries (of {len(np.unique(te.qid))}) ordered differently from the ranker's own "
          "predict\n")
    print("| hand-written export | naive | rankselect | naive, 5 % NaN | rankselect, 5 % NaN |")
    print("|---|---|---|---|---|")
    for (what, naive, ours), (_, naive_nan, ours_nan) in zip(plain, missing):
        print(f"| {what} | {naive} | {ours} | {naive_nan} | {ours_nan} |")
    # a feature that does not match: 0 in the LETOR training data, NaN in OpenSearch LTR 3.2+
    xm = models["xgboost"]
    x32 = X.astype(np.float32).astype(np.float64)
    as_nan, ref = np.where(x32 == 0.0, np.nan, x32), xm.predict(x32).astype(np.float64)
    counts = {}
    for m in ("missing", "zero"):
        files = export_engine("opensearch", sel, xm, non_match=m).files
        counts[m] = reordered(ports.opensearch_scores(files, as_nan).astype(np.float64), ref, te.qid)
    print("\nThe test zeros (0 = no match in LETOR data) passed to OpenSearch LTR 3.2+ as NaN (a non-match), "
          "XGBRanker:\n")
    print("| missing value goes | queries reordered |")
    print("|---|---|")
    print(f"| the model's own NaN way (default_left; non_match='missing') | {counts['missing']} |")
    print(f"| the way of 0 (non_match='zero') | {counts['zero']} |")


def speed(rounds: int) -> None:
    import lightgbm as lgb
    import xgboost as xgb

    rng = np.random.default_rng(0)
    X = np.round(rng.random((6000, 12)), 3)
    y = rng.integers(0, 3, 6000)
    qid = np.repeat(np.arange(200), 30)
    models = {"lightgbm": lgb.LGBMRanker(n_estimators=1000, min_child_samples=5, verbose=-1).fit(
                  X, y, group=groups(qid)),
              "xgboost": xgb.XGBRanker(n_estimators=1000, max_depth=5, tree_method="hist").fit(X, y, qid=qid)}
    print(f"\n1,000-tree models, export_engine per engine: CPU seconds (wall seconds), minimum of {rounds}\n")
    print("| ranker | nodes | anchor: the library's own JSON dump | opensearch | solr | elasticsearch | vespa |")
    print("|---|---|---|---|---|---|---|")
    for lib, model in models.items():
        def anchor():
            if lib == "lightgbm":
                return json.dumps(model.booster_.dump_model())
            return json.dumps(model.get_booster().get_dump(dump_format="json"))

        times: dict[str, list[tuple[float, float]]] = {"anchor": [], **{e: [] for e in PORTS}}
        for _ in range(rounds):  # interleaved
            for key in times:
                t, c = time.perf_counter(), time.process_time()
                anchor() if key == "anchor" else export_engine(key, list(range(12)), model)
                times[key].append((time.process_time() - c, time.perf_counter() - t))
        nodes = len(forest_of(model).feature)
        print(f"| {lib} | {nodes} | " + " | ".join(
            f"{min(c for c, _ in times[k]):.2f} ({min(w for _, w in times[k]):.2f})" for k in times) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--only", choices=["parity", "pitfalls", "speed"])
    args = ap.parse_args()
    data = Path(args.data)
    if args.only in (None, "parity"):
        parity(data)
    if args.only in (None, "pitfalls"):
        pitfalls(data)
    if args.only in (None, "speed"):
        speed(args.rounds)


if __name__ == "__main__":
    main()
