"""Results of the LETOR protocol: per method and fold (:class:`MethodFold`), their averages,
paired t-tests, and the JSON / Markdown / plain-text reports."""
from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union, cast

import numpy as np
from scipy import stats

from .._validation import shown
from ..analysis.stats import compare_experiment
from ..analysis.stats.compare import markdown_cell
from ..selection.stability import fold_selection_frequencies
from .experiment_file import (
    FORMAT,
    FORMAT_VERSION,
    check_result_dict,
    curve_columns,
    dumps,
    method_fold_fields,
    path_dict,
    version_of,
)
from .path_scores import PathScores
from .scoring import CUTOFFS, TEST_KEYS


@dataclass
class MethodFold:
    """The outcome of one method on one fold.

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
    >>> fold = result.folds[0]["greedy-rankrls"]
    >>> type(fold).__name__, fold.params
    ('MethodFold', {'alpha': 1.0, 'k': 5})
    """

    method: str
    fold: str
    params: dict[str, Any]
    validation_score: float
    test: dict[str, float]
    selected_features: list[int]  # 0-based; reports print them 1-based
    n_features: int
    sparsity_ratio: float
    fit_time: float
    per_query: dict[str, np.ndarray]
    test_qids: np.ndarray
    n_candidates: int
    skipped: list[dict[str, Any]]
    curve: list[dict[str, Any]]  # per grid point: params, n_features (in use), vali/test MAP and NDCG@10
    path: Optional[PathScores] = None  # per size in use: its best grid point's per-query scores

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "fold": self.fold,
            "params": _jsonable(self.params),
            "validation_score": self.validation_score,
            "test": self.test,
            "selected_features": [j + 1 for j in self.selected_features],
            "n_features": self.n_features,
            "sparsity_ratio": self.sparsity_ratio,
            "fit_time": self.fit_time,
            "per_query": {k: v.tolist() for k, v in self.per_query.items()},
            "test_qids": self.test_qids.tolist(),
            "n_candidates": self.n_candidates,
            "skipped": _jsonable(self.skipped),
            "curve": _jsonable(self.curve),
            **({} if self.path is None else {"path": _jsonable(path_dict(self.path))}),
        }


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


def _fmt_param(v) -> str:
    if isinstance(v, float) and v > 0 and float(np.log2(v)).is_integer() and abs(np.log2(v)) <= 30 and v != 1.0:
        return f"2^{int(np.log2(v))}"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


@dataclass
class ExperimentResult:
    """Per-fold results (``folds[i][method]`` -> :class:`MethodFold`) and their summaries.

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
    >>> type(result).__name__, len(result.folds)
    ('ExperimentResult', 5)
    """

    data_dir: str
    methods: list[str]
    metric: str
    convention: str
    grids: dict[str, dict[str, list[Any]]]
    folds: list[dict[str, MethodFold]]
    n_features: int

    def averages(self) -> dict[str, dict[str, float]]:
        """Test-set means over the folds: ``{method: {"MAP", "NDCG@10", "P@10", "MeanNDCG",
        "n_features", ...all P@k / NDCG@k..., "sparsity_ratio", "fit_time"}}``."""
        out = {}
        for m in self.methods:
            rows = [f[m] for f in self.folds]
            avg = {k: float(np.mean([r.test[k] for r in rows])) for k in TEST_KEYS}
            avg["n_features"] = float(np.mean([r.n_features for r in rows]))
            avg["sparsity_ratio"] = float(np.mean([r.sparsity_ratio for r in rows]))
            avg["fit_time"] = float(np.sum([r.fit_time for r in rows]))
            out[m] = avg
        return out

    def paired_ttest(self, method_a: str, method_b: str, metric: str = "MAP",
                     alternative: str = "greater") -> dict[str, float]:
        """One-sided paired t-test over per-query test scores pooled across the folds.

        ``metric`` is "MAP" (per-query AP) or "NDCG@10". H1 (``alternative="greater"``):
        ``method_a`` scores higher than ``method_b``. Uses ``scipy.stats.ttest_rel``.
        Returns ``{"statistic", "pvalue", "n_queries", "mean_a", "mean_b"}``.
        """
        name = metric.upper() if metric.lower() != "ndcg@10" else "NDCG@10"
        key = {"MAP": "AP", "AP": "AP", "NDCG@10": "NDCG@10"}.get(name)
        if key is None:
            raise ValueError(f"metric must be 'MAP' or 'NDCG@10', got {shown(metric)}")
        for m in (method_a, method_b):
            if m not in self.methods:
                raise ValueError(f"method {m!r} is not in this result (methods: {', '.join(self.methods)})")
        a = np.concatenate([f[method_a].per_query[key] for f in self.folds])
        b = np.concatenate([f[method_b].per_query[key] for f in self.folds])
        if np.array_equal(a, b):
            stat, p = 0.0, 1.0 if alternative != "less" else 1.0
        else:
            r = stats.ttest_rel(a, b, alternative=alternative)
            stat, p = float(r.statistic), float(r.pvalue)
        return {"statistic": stat, "pvalue": p, "n_queries": int(a.size), "mean_a": float(a.mean()),
                "mean_b": float(b.mean())}

    # -- output
    def to_dict(self) -> dict[str, Any]:
        """The result as plain data (features 1-based as in the files; ``curve``: one dict per
        grid point); :meth:`from_dict` reads it back."""
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "data_dir": self.data_dir,
            "methods": self.methods,
            "metric": self.metric,
            "convention": self.convention,
            "n_features": self.n_features,
            "grids": _jsonable(self.grids),
            "averages": self.averages(),
            "folds": [{m: r.to_dict() for m, r in f.items()} for f in self.folds],
        }

    def to_json(self, path: Union[str, os.PathLike]) -> None:
        """Write :meth:`to_dict` as compact JSON, each grid point's curve as columns
        (:mod:`~rankselect.protocol.experiment_file`, format version 3); :meth:`from_json`
        reads it back."""
        d = self.to_dict()
        for f in d["folds"]:
            for r in f.values():
                r["curve"] = curve_columns(r["curve"])
        Path(path).write_text(dumps(d))

    @classmethod
    def from_dict(cls, d: Any, source: str = "experiment.json") -> ExperimentResult:
        """The result of :meth:`to_dict` (or of a file of :meth:`to_json`, format version 1,
        2 or 3), checked: a damaged one raises one ValueError naming ``source``, the fold, the
        method and the field.

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
        >>> result = rs.protocol.run(root, ["rankrls"], grid={"rankrls": {"alpha": [1.0]}}, progress=False)
        >>> again = rs.protocol.ExperimentResult.from_dict(result.to_dict())
        >>> again.averages() == result.averages()
        True
        """
        version_of(d, source)
        check_result_dict(d, source)
        n = int(d["n_features"])
        folds = []
        for i, f in enumerate(d["folds"]):
            folds.append({m: MethodFold(**method_fold_fields(f[m], f"{source}: fold {i + 1}, method {m}", n))
                          for m in d["methods"]})
        return cls(data_dir=str(d["data_dir"]), methods=list(d["methods"]), metric=d["metric"],
                   convention=d["convention"], grids=d["grids"], folds=folds, n_features=n)

    @classmethod
    def from_json(cls, path: Union[str, os.PathLike]) -> ExperimentResult:
        """Read a file written by :meth:`to_json` (format version 1, 2 or 3; see :meth:`from_dict`).

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
        >>> result = rs.protocol.run(root, ["greedy-rankrls"], grid={"greedy-rankrls": {"alpha": [1.0]}},
        ...                          progress=False)
        >>> result.to_json(f"{root}/experiment.json")
        >>> again = rs.protocol.ExperimentResult.from_json(f"{root}/experiment.json")
        >>> again.folds[0]["greedy-rankrls"].selected_features == result.folds[0]["greedy-rankrls"].selected_features
        True
        """
        source = os.fspath(path)
        try:
            d = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}: not an experiment.json written by rankselect (not JSON: {exc})") from None
        except UnicodeDecodeError as exc:
            raise ValueError(f"{source}: not an experiment.json written by rankselect (not UTF-8 text: {exc.reason} "
                             f"at byte {exc.start})") from None
        return cls.from_dict(d, source)

    def table(self) -> str:
        """The averaged test table as plain text (what the CLI prints)."""
        avg = self.averages()
        w = max(8, *(len(m) for m in self.methods))
        head = f"{'method':<{w}}  {'MAP':>7} {'P@10':>7} {'NDCG@10':>7} {'MeanNDCG':>8} {'#feat':>6} {'fit s':>7}"
        lines = [head]
        for m in self.methods:
            a = avg[m]
            lines.append(f"{m:<{w}}  {a['MAP']:7.4f} {a['P@10']:7.4f} {a['NDCG@10']:7.4f} {a['MeanNDCG']:8.4f} "
                         f"{a['n_features']:6.1f} {a['fit_time']:7.1f}")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """A Markdown report: averages, per-fold tables (as the greedy RankRLS paper's
        Tables 7-10), P@k / NDCG@k, chosen hyperparameters and selected features per fold
        (as its Tables 1-2; features 1-based), skipped degenerate grid points, t-tests."""
        avg = self.averages()
        names = [cast(MethodFold, f.get(self.methods[0])).fold for f in self.folds]
        cell = markdown_cell  # every name and value a user chose, as one table cell (a "|" escaped)
        L = [f"# Experiment on `{self.data_dir}`", "",
             f"Selection by validation {self.metric}; {self.convention} evaluation conventions; "
             f"{len(self.folds)} folds; test-set means over the folds.", "",
             "## Averages", "",
             "| method | MAP | P@10 | NDCG@10 | MeanNDCG | #features | sparsity ratio | fit time (s) |",
             "|---|---|---|---|---|---|---|---|"]
        for m in self.methods:
            a = avg[m]
            L.append(f"| {cell(m)} | {a['MAP']:.4f} | {a['P@10']:.4f} | {a['NDCG@10']:.4f} | {a['MeanNDCG']:.4f} | "
                     f"{a['n_features']:.1f} | {a['sparsity_ratio']:.2f} | {a['fit_time']:.1f} |")
        for key in ("MAP", "P@10", "MeanNDCG", "NDCG@10"):
            L += ["", f"## {key} per fold (test)", "", "| fold | " + " | ".join(map(cell, self.methods)) + " |",
                  "|---" * (len(self.methods) + 1) + "|"]
            for name, f in zip(names, self.folds):
                L.append(f"| {cell(name)} | " + " | ".join(f"{f[m].test[key]:.4f}" for m in self.methods) + " |")
            L.append("| avg | " + " | ".join(f"{avg[m][key]:.4f}" for m in self.methods) + " |")
        L += ["", "## P@k and NDCG@k (test, averaged)", "",
              "| method | " + " | ".join(f"P@{k}" for k in CUTOFFS) + " |", "|---" * (len(CUTOFFS) + 1) + "|"]
        for m in self.methods:
            L.append(f"| {cell(m)} | " + " | ".join(f"{avg[m][f'P@{k}']:.4f}" for k in CUTOFFS) + " |")
        L += ["", "| method | " + " | ".join(f"NDCG@{k}" for k in CUTOFFS) + " |", "|---" * (len(CUTOFFS) + 1) + "|"]
        for m in self.methods:
            L.append(f"| {cell(m)} | " + " | ".join(f"{avg[m][f'NDCG@{k}']:.4f}" for k in CUTOFFS) + " |")
        L += ["", "## Chosen hyperparameters and selected features (1-based, in selection order)", ""]
        for m in self.methods:
            rows = [f[m] for f in self.folds]
            L += [f"### {m}", "", "| | " + " | ".join(map(cell, names)) + " |", "|---" * (len(names) + 1) + "|"]
            for p in rows[0].params:
                L.append(f"| {cell(p)} | " + " | ".join(cell(_fmt_param(r.params.get(p))) for r in rows) + " |")
            L.append(f"| validation {cell(self.metric)} | "
                     + " | ".join(f"{r.validation_score:.4f}" for r in rows) + " |")
            L.append("| #features | " + " | ".join(str(r.n_features) for r in rows) + " |")
            depth = min(10, max(len(r.selected_features) for r in rows))
            for i in range(depth):
                L.append(f"| selected {i + 1} | " + " | ".join(
                    str(r.selected_features[i] + 1) if i < len(r.selected_features) else "" for r in rows) + " |")
            if any(len(r.selected_features) > 10 for r in rows):
                L.append("")
                L.append("(only the first 10 selected features are shown)")
            L.append("")
        skipped = [(f[m].fold, m, s) for f in self.folds for m in self.methods for s in f[m].skipped]
        L += ["## Skipped degenerate grid points", ""]
        if skipped:
            L += ["Validation scores tied within every query (the model would rank by file order):", ""]
            L += [f"- {fold} {m}: " + ", ".join(f"{k}={_fmt_param(v)}" for k, v in s.items()) for fold, m, s in skipped]
        else:
            L.append("None.")
        if len(self.methods) > 1:
            L += ["", "## Paired t-tests (one-sided, per query, pooled over the test folds)", "",
                  "| A | B | metric | mean A | mean B | t | p (A > B) |", "|---|---|---|---|---|---|---|"]
            for first, second in itertools.combinations(self.methods, 2):
                for key in ("MAP", "NDCG@10"):
                    t = self.paired_ttest(first, second, key)
                    if t["mean_a"] < t["mean_b"]:
                        a2, b2 = second, first
                        t = self.paired_ttest(a2, b2, key)
                    else:
                        a2, b2 = first, second
                    measure = "AP" if key == "MAP" else key
                    L.append(f"| {cell(a2)} | {cell(b2)} | {measure} | {t['mean_a']:.4f} | {t['mean_b']:.4f} | "
                             f"{t['statistic']:.3f} | {t['pvalue']:.3g} |")
        if len(self.methods) > 1:
            L += ["", f"## Paired tests against {self.methods[0]} (per query, pooled over the test folds; "
                  "two-sided, Holm-Bonferroni across methods; effect sizes with 95% CIs)", ""]
            for key in ("MAP", "NDCG@10"):
                for test in ("randomization", "wilcoxon"):
                    cmp = compare_experiment(self, self.methods[0], key, test=test, random_state=0)
                    L += [f"{key}: " + cmp.to_markdown(), ""]
        L += ["", "## Selection frequency across folds (features 1-based; those chosen in at least one fold)", "",
              "| method | feature: fraction of folds |", "|---|---|"]
        for m, freq in fold_selection_frequencies(self).items():
            order = np.argsort(-freq, kind="stable")
            L.append(f"| {cell(m)} | " + ", ".join(f"{j + 1}: {freq[j]:.1f}" for j in order if freq[j] > 0) + " |")
        L += ["", "## Grids", ""]
        for m in self.methods:
            g = self.grids[m]
            L.append(f"- {m}: " + "; ".join(f"{p} = {_fmt_grid(v)}" for p, v in g.items()))
        return "\n".join(L) + "\n"


def _fmt_grid(vals: list[Any]) -> str:
    integers = all(isinstance(v, (int, np.integer)) for v in vals)
    if len(vals) > 6 and integers and list(vals) == list(range(vals[0], vals[0] + len(vals))):
        return f"{vals[0]}..{vals[-1]}"
    s = [_fmt_param(v) for v in vals]
    return "{" + ", ".join(s[:3] + ["..."] + s[-2:] if len(s) > 8 else s) + "}"


