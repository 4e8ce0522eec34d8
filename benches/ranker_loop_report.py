"""Tables, target checks and the figure of benches/ranker_loop_bench.py, from its cache.

Per data set, only the folds where every method finished are used (the same queries for
every method). Per (data set, k): the downstream LGBMRanker's test NDCG@10 and MAP, mean
over those folds; a paired randomization test over the queries of those folds against
CatBoost's ``select_features`` with Holm across methods (``rankselect.analysis.stats.compare``);
the selection wall time (mean over folds). Writes the section between the markers of
docs/user_guide/methods/ranker_loop_benchmark.md (included by the user guide's page
ranker_loop.rst) and of benches/RESULTS.md, and docs/figures/ranker_loop.png.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rankselect.analysis import stats

ROOT = Path(__file__).resolve().parents[1]
KS = (5, 10, 15)
LINEAR = ("greedy-rankrls", "gas", "sparse-path")
ORDER = ("all", "lgbm-gain", "sklearn-rfe", "catboost", "greedy-rankrls", "gas", "sparse-path", "rfe",
         "rfe-seeded", "forward-seeded")
BEGIN, END = "<!-- ranker-loop:begin -->", "<!-- ranker-loop:end -->"
COMMAND = ("nice -n 19 python benches/ranker_loop_bench.py --data ../shared/data --deadline 01:08\n"
           "python benches/ranker_loop_bench.py --report")


def load(cache: Path) -> dict:
    """{set: {fold: {method: record}}}"""
    out: dict = {}
    for f in sorted(cache.glob("*/Fold*/*.json")):
        r = json.loads(f.read_text())
        out.setdefault(r["set"], {}).setdefault(r["fold"], {})[r["method"]] = r
    return out


def _cell(rec, k):
    return rec["k"].get(str(k))


def summarise(runs: dict) -> dict:
    """{set: {"folds": [...], "n": n_features, "rows": {k: {method: {...}}}, "fsa": {...}}}"""
    res = {}
    for name, folds in runs.items():
        methods = [m for m in ORDER if all(m in f for f in folds.values())]
        complete = sorted(f for f, recs in folds.items() if all(m in recs for m in ORDER))
        if not complete:
            continue
        n = folds[complete[0]]["all"]["n_features"]
        rows = {}
        for k in KS:
            per_q = {"ndcg10": {}, "ap": {}}
            info = {}
            for m in ORDER:
                recs = [folds[f][m] for f in complete]
                kk = n if m == "all" else k
                cells = [_cell(r, kk) for r in recs]
                if any(c is None for c in cells):
                    continue
                for metric in per_q:
                    per_q[metric][m] = np.concatenate([c[metric] for c in cells])
                info[m] = {"ndcg10": float(np.mean([np.mean(c["ndcg10"]) for c in cells])),
                           "map": float(np.mean([np.mean(c["ap"]) for c in cells])),
                           "seconds": float(np.mean([c["seconds"] for c in cells])),
                           "n_selected": float(np.mean([len(c["features"]) for c in cells]))}
            for metric, key in (("ndcg10", "p_ndcg10"), ("ap", "p_map")):
                cmp = stats.compare(per_q[metric], baseline="catboost", test="randomization", random_state=0,
                                    n_resamples=10000)
                for r in cmp.rows:
                    info[r["method"]][key] = r["pvalue_adjusted"]
                    info[r["method"]][key + "_diff"] = r["mean_diff"]
            rows[k] = info
        fsa = {}
        sizes = sorted({int(s) for f in complete for m in ("rfe",) for s in folds[f][m]["k"]})
        for m in ("all", "lgbm-gain", "greedy-rankrls", "gas", "sparse-path", "rfe"):
            for s in sizes + [n]:
                cells = [_cell(folds[f][m], s) for f in complete]
                if all(c is not None for c in cells):
                    fsa.setdefault(m, {})[s] = float(np.mean([np.mean(c["ndcg10"]) for c in cells]))
        res[name] = {"folds": complete, "n": n, "rows": rows, "fsa": fsa, "methods": methods}
    return res


def targets(res: dict) -> list[str]:
    lines = []
    for name, r in res.items():
        for k, info in r["rows"].items():
            cb, sd = info.get("catboost"), info.get("rfe-seeded")
            if cb is None or sd is None:
                continue
            ge = sd["ndcg10"] >= cb["ndcg10"]
            worse = any(sd[p] <= 0.05 and sd[p + "_diff"] < 0 for p in ("p_ndcg10", "p_map"))
            faster = sd["seconds"] < cb["seconds"]
            lines.append(f"- {name} k={k}, seeded RFE vs CatBoost: NDCG@10 {sd['ndcg10']:.4f} vs {cb['ndcg10']:.4f} "
                         f"({'>=' if ge else '<'}: {'met' if ge else 'NOT met'}); significantly worse: "
                         f"{'yes (NOT met)' if worse else 'no (met)'}; time {sd['seconds']:.1f} s vs "
                         f"{cb['seconds']:.1f} s ({'met' if faster else 'NOT met'})")
            for m in LINEAR:
                li = info[m]
                ratio = cb["seconds"] / max(li["seconds"], 1e-9)
                loss = any(li[p] <= 0.05 and li[p + "_diff"] < 0 for p in ("p_ndcg10", "p_map"))
                lines.append(f"  - {m}: {ratio:.0f}x faster than CatBoost ({'met' if ratio >= 10 else 'NOT met'}), "
                             f"significant loss: {'yes (NOT met)' if loss else 'no (met)'}")
    return lines


def markdown(res: dict) -> str:
    out = []
    for name, r in res.items():
        out.append(f"**{name}** ({r['n']} features; folds {', '.join(map(str, r['folds']))}; test queries of "
                   "those folds pooled for the tests)\n")
        out.append("| method | k | NDCG@10 | p (Holm) | MAP | p (Holm) | selection s |")
        out.append("|---|---|---|---|---|---|---|")
        for k, info in r["rows"].items():
            for m in ORDER:
                if m not in info:
                    continue
                i = info[m]
                pn = "" if m == "catboost" else f"{i['p_ndcg10']:.3g}" + (" *" if i["p_ndcg10"] <= 0.05 else "")
                pm = "" if m == "catboost" else f"{i['p_map']:.3g}" + (" *" if i["p_map"] <= 0.05 else "")
                kk = f"all ({r['n']})" if m == "all" else str(k)
                out.append(f"| {m} | {kk} | {i['ndcg10']:.4f} | {pn} | {i['map']:.4f} | {pm} | {i['seconds']:.2f} |")
        out.append("")
        if r["fsa"]:
            sizes = sorted({s for v in r["fsa"].values() for s in v})
            nf = r["n"]
            kept = ", ".join(f"{s} = {100 * s / nf:.0f} %" for s in sizes)
            out.append(f"k and the FSA grid ({name}): test NDCG@10 by number of features kept ({kept})\n")
            out.append("| method | " + " | ".join(map(str, sizes)) + " |")
            out.append("|---|" + "---|" * len(sizes))
            for m, v in r["fsa"].items():
                out.append(f"| {m} | " + " | ".join(f"{v[s]:.4f}" if s in v else "" for s in sizes) + " |")
            out.append("")
    return "\n".join(out)


def figure(res: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, max(1, len(res)), figsize=(6 * max(1, len(res)), 8), squeeze=False)
    for col, (name, r) in enumerate(res.items()):
        ax, at = axes[0][col], axes[1][col]
        for m in ORDER:
            if m == "all":
                continue
            ks = [k for k in KS if m in r["rows"][k]]
            style = "-o" if m in ("rfe-seeded", "catboost") else "--."
            ax.plot(ks, [r["rows"][k][m]["ndcg10"] for k in ks], style, label=m)
            at.semilogy(ks, [max(r["rows"][k][m]["seconds"], 1e-3) for k in ks], style, label=m)
        ax.axhline(r["rows"][KS[0]]["all"]["ndcg10"], color="gray", lw=0.8, label="all features")
        ax.set_title(f"{name}: downstream LGBMRanker, test NDCG@10 (folds {r['folds']})")
        ax.set_xlabel("k")
        at.set_title(f"{name}: selection wall time (s, log)")
        at.set_xlabel("k")
    axes[0][0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def report(cache: Path) -> None:
    res = summarise(load(cache))
    table, goals = markdown(res), "\n".join(targets(res))
    figure(res, ROOT / "docs" / "figures" / "ranker_loop.png")
    body = (f"Command:\n\n```bash\n{COMMAND}\n```\n\n{table}\n\nTargets of issue 25 (computed from the table; "
            f"`*` = p <= 0.05 after Holm, against CatBoost):\n\n{goals}\n\n"
            "![ranker in the loop](../../figures/ranker_loop.png)\n")
    page = ROOT / "docs" / "user_guide" / "methods" / "ranker_loop_benchmark.md"  # included by ranker_loop.rst
    intro = page.read_text().split(BEGIN)[0] if page.exists() else ""
    outro = page.read_text().split(END)[1] if page.exists() and END in page.read_text() else "\n"
    page.write_text(f"{intro}{BEGIN}\n{body}{END}{outro}")
    results = ROOT / "benches" / "RESULTS.md"
    text = results.read_text()
    section = f"{BEGIN}\n{body.replace('](../../figures/', '](../docs/figures/')}{END}"
    if BEGIN in text:
        text = text.split(BEGIN)[0] + section + text.split(END)[1]
    else:
        text += "\n## Ranker in the loop vs CatBoost's select_features (issue 25)\n\n" + section + "\n"
    results.write_text(text)
    print(table)
    print(goals)
