"""A :class:`~.data.ReportData` from an experiment's output folder
(``rankselect experiment ... --out DIR``: its ``experiment.json``)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Union

import numpy as np

from ..analysis.stats import RULE, RULES
from ..data.letor import load_letor
from ..protocol.loop_paths import LINEAR, ranker_of_label
from ..protocol.path_scores import measure_key
from ..protocol.results import ExperimentResult
from ..selection.wrapper.rankers import make_ranker
from ._data import ReportData, compare_queries, curve_of, plural
from ._decide import choose_method, optimism
from ._features import short
from ._folds import fold_comparisons
from ._inputs import check_inputs
from ._paths import Pooled, consensus, pool, reference_rows, tested_subset
from ._sources import Sources

__all__ = ["load_experiment", "from_experiment", "folder_name"]


def folder_name(path: Union[str, os.PathLike]) -> str:
    """The last name of a folder path as it was written (``/`` or ``\\`` separated: an
    experiment may come from another machine); empty for ``.``, ``..`` or a root. A page
    names the data set by it (``MQ2008``), not by the machine's path.

    Examples
    --------
    >>> from rankselect.report._experiment import folder_name
    >>> folder_name("/work/shared/data/MQ2008/"), folder_name(r"D:\\letor\\MQ2007"), folder_name(".")
    ('MQ2008', 'MQ2007', '')
    """
    parts = [s for s in os.fspath(path).replace("\\", "/").split("/") if s not in ("", ".")]
    return parts[-1] if parts and parts[-1] != ".." and not parts[-1].endswith(":") else ""


def load_experiment(folder: Union[str, os.PathLike]) -> ExperimentResult:
    """The :class:`~rankselect.protocol.ExperimentResult` written to ``folder/experiment.json``.

    The folder is the output of ``rankselect experiment --out folder`` (or of
    ``ExperimentResult.to_json``); the file is read and checked by
    :meth:`~rankselect.protocol.ExperimentResult.from_json` (a damaged one raises one
    ValueError naming the fold, the method and the field).

    Parameters
    ----------
    folder : path
        The folder, or the ``experiment.json`` file itself.

    Returns
    -------
    rankselect.protocol.ExperimentResult
        Features 0-based again, per-query scores as arrays.

    Examples
    --------
    >>> import os, tempfile
    >>> import rankselect as rs
    >>> from rankselect.report import load_experiment
    >>> root = tempfile.mkdtemp()
    >>> for k in range(1, 6):  # a fold layout (here five copies of the shipped example)
    ...     os.makedirs(f"{root}/Fold{k}")
    ...     for split in ("train", "vali", "test"):
    ...         rs.save_letor(f"{root}/Fold{k}/{split}.txt", rs.data.datasets.load_example(split))
    ...
    >>> grid = {"greedy-rankrls": {"alpha": [1.0]}}
    >>> rs.protocol.run(root, ["greedy-rankrls"], grid=grid, progress=False).to_json(f"{root}/experiment.json")
    >>> result = load_experiment(root)
    >>> result.methods, result.folds[0]["greedy-rankrls"].selected_features
    (['greedy-rankrls'], [7, 3, 11, 4, 16])
    """
    path = Path(folder)
    if path.is_dir():
        path = path / "experiment.json"
    if not path.is_file():
        raise ValueError(f"source: no experiment.json in {str(folder)!r} (write one with "
                         "`rankselect experiment DATA_DIR --method M --out DIR`)")
    return ExperimentResult.from_json(path)


def _rankers(res: ExperimentResult, ranker: Optional[str], method: Optional[str]) -> list[str]:
    """The methods the page may decide for: those whose candidates are ``ranker``'s models."""
    of = {m: ranker_of_label(m) for m in res.methods}
    if method is not None and method not in res.methods:
        raise ValueError(f"method {method!r} is not in this experiment (methods: {', '.join(res.methods)})")
    if ranker is None:
        return [method] if method is not None else list(res.methods)
    if ranker not in of.values():
        raise ValueError(f"ranker {ranker!r}: no method of this experiment has it (rankers: "
                         f"{', '.join(f'{m}: {r}' for m, r in of.items())}); run e.g. "
                         f"`rankselect experiment ... --method forward:ranker={ranker}`")
    if method is not None and of[method] != ranker:
        raise ValueError(f"method {method!r} has the ranker {of[method]}, not {ranker}")
    return [method] if method is not None else [m for m in res.methods if of[m] == ranker]


def from_experiment(folder: Union[str, os.PathLike], *, method: Optional[str] = None, data_dir=None,
                    feature_names=None, feature_costs=None, feature_groups=None, group_costs=None,
                    title: Optional[str] = None, random_state: int = 0, progress: bool = True,
                    measure: Optional[str] = None, ranker: Optional[str] = None, rule: str = RULE,
                    nested: bool = False) -> ReportData:
    """Collect a report of an experiment folder (see :func:`~rankselect.report.build_report`)."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}, got {rule!r}")
    res = load_experiment(folder)
    mkey = measure_key(measure if measure is not None else res.metric)
    deciding = _rankers(res, ranker, method)
    n = res.n_features
    inputs = check_inputs(n, feature_names=feature_names, feature_costs=feature_costs,
                          feature_groups=feature_groups, group_costs=group_costs)
    missing = [m for m in res.methods if any(f[m].path is None for f in res.folds)]
    if missing:
        raise ValueError(f"{folder}: the experiment.json has no per-query scores of the path of "
                         f"{', '.join(missing)} (format version 1, written before rankselect kept them): "
                         "rerun `rankselect experiment ... --out DIR` to report it")
    data_name = folder_name(res.data_dir)
    run = Path(folder).resolve()
    run = run.parent if run.is_file() else run
    d = ReportData(title=title or (f"Feature selection on {data_name}" if data_name else "Feature selection"),
                   source=f"experiment folder {run.name}", measure=mkey, feature_names=inputs.names,
                   method="", curves=[], marks={}, subsets={}, default_k=1, stability={}, stability_over="",
                   costs=inputs.costs, groups=inputs.groups, group_costs=inputs.group_costs, rule=rule,
                   ranker=ranker)
    pooled = {m: pool(res, m, mkey) for m in res.methods}
    choices, cost_at = {}, {}
    for m, p in pooled.items():
        if not p.sizes:
            d.notes.setdefault("quality", "")
            d.notes["quality"] += f"{m}: no number of features is reached in every fold. "
            continue
        if nested and p.nested is None:
            raise ValueError(f"nested: the experiment.json has no cross-fitted scores of {m} (written before format "
                             "version 3): rerun `rankselect experiment ... --out DIR`")
        vcurve, c = curve_of(m, "validation", p.sizes, p.nested if nested else p.vali, folds=p.fold_means,
                             rule=rule)
        tcurve, _ = curve_of(m, "test", p.sizes, p.test, reference=c.best)
        for cv in (vcurve, tcurve):
            cv.cost = [float(np.mean([d.cost_of(s) for s in p.subsets[k]])) for k in p.sizes]
            if inputs.groups is not None:
                cv.n_groups = [float(max(len(d.groups_of(s)) for s in p.subsets[k])) for k in p.sizes]
        d.curves += [vcurve, tcurve]
        d.marks[m] = {"best": c.best, rule: c.chosen}
        choices[m] = c
        cost_at[m] = vcurve.cost[p.sizes.index(c.chosen)]
        for i, k in enumerate(p.sizes):
            d.pareto.append({"method": m, "k": k, "cost": vcurve.cost[i], "vali": vcurve.score[i],
                             "test": tcurve.score[i], "n_groups": None if vcurve.n_groups is None else
                             vcurve.n_groups[i]})
    if len(deciding) == 1 and deciding[0] not in d.marks:
        raise ValueError(f"method {deciding[0]!r}: no number of features is reached in every fold; nothing to report")
    d.method, said = choose_method(pooled, choices, cost_at, deciding)
    d.explanations += said
    chosen = pooled[d.method]
    k = d.marks[d.method][rule]
    d.optimism = optimism(chosen, choices[d.method])
    if nested:
        d.validation = "validation (cross-fitted: nested selection)"
        d.explanations.append(
            "Nested selection: every size is compared on its cross-fitted validation scores (each half of the "
            "validation queries scored by the setting chosen on the other half), not on the scores of the setting "
            "chosen on the same queries.")
    screening = [m for m in res.methods if ranker is not None and ranker_of_label(m) != ranker]
    if screening:
        d.notes["quality"] = d.notes.get("quality", "") + (
            f"The decision is for the {ranker} ranker; the other paths ({', '.join(screening)}: "
            f"{', '.join(sorted({ranker_of_label(m) for m in screening}))} models) are a cheap screening view.")
    names = [f[d.method].fold for f in res.folds]
    picks = {s: tested_subset(chosen.subsets[s], n) for s in chosen.sizes}
    d.subsets = {s: cols for s, (_, cols) in picks.items()}  # a subset that was tested: one fold's own
    i = picks[k][0]
    same = sum(sorted(x) == sorted(picks[k][1]) for x in chosen.subsets[k])
    with_it = [nm for nm, x in zip(names, chosen.subsets[k]) if sorted(x) == sorted(picks[k][1])]
    d.handoff = {"subset_of": names[i], "tested_on": f"the test queries of {', '.join(with_it)}",
                 "folds_with_this_subset": with_it,
                 "consensus": sorted(consensus(chosen.subsets[k], n, k)),
                 "sentence": ("The subset handed off is the one every fold selected at this size: it was tested on "
                              "every fold's test queries." if same == len(names) else
                              f"The folds selected different subsets of this size: the subset handed off is "
                              f"{names[i]}'s (the one of features the folds select most often; {same} of the "
                              f"{len(names)} folds selected it), tested on the test queries of "
                              f"{'those folds' if same > 1 else names[i]}; the per-fold comparisons below test "
                              f"each fold's own subset.")}
    d.default_k = k
    _queries(d, res, pooled)
    _explain(d, res)
    d.settings = {"data": res.data_dir, "experiment folder": str(run), "methods": ", ".join(res.methods),
                  "folds": str(len(res.folds)),
                  "selection metric": f"validation {res.metric} ({res.convention} conventions)",
                  "measure of the decision": f"{mkey} ({res.convention} conventions)",
                  "ranker of the decision": ranker or "any (every method's own)",
                  "queries": f"{len(chosen.vali_qids)} validation, {len(chosen.test_qids)} test (folds pooled)",
                  **{f"grid of {m}": "; ".join(f"{q}: {len(v)} values" for q, v in g.items())
                     for m, g in res.grids.items()},
                  "feature costs": "given" if inputs.costs is not None else "none (cost = number of features)",
                  "feature groups": repr(inputs.groups) if inputs.groups is not None else "none",
                  **({"group costs": short(inputs.group_costs)} if inputs.group_costs is not None else {})}
    fold1 = _first_fold(folder, data_dir if data_dir is not None else res.data_dir)
    loop, model, why = ranker_of_label(d.method), None, ""
    if loop != LINEAR:
        try:
            model = make_ranker(loop, 0)
        except (ImportError, ValueError) as exc:  # a label from elsewhere, or a library not installed here
            why = f"the ranker of {d.method} cannot be refitted here: {exc}"
    d.sources = Sources("experiment", measure=d.measure, random_state=random_state, progress=progress,
                        ranker=model, experiment=res, pooled=pooled, extra={"ranker_missing": why} if why else {})
    if fold1 is None:
        d.sources.missing = f"the data folder {res.data_dir!r} was not found (pass data_dir= or --data)"
        return d
    if title is None and not data_name:  # written as "." or "..": the folder found
        d.title = f"Feature selection on {fold1.parent.resolve().name}"
    d.sources.train, d.sources.test = (load_letor(fold1 / f"{s}.txt", n_features=n) for s in ("train", "test"))
    d.sources.split = f"test of {fold1.name}"
    d.settings["redundancy and importance"] = f"{fold1.name} of {fold1.parent}"
    return d


def _queries(d: ReportData, res: ExperimentResult, pooled: dict[str, Pooled]) -> None:
    """The chosen subset's size against all features, per test query (folds pooled), and the
    other methods at their own chosen sizes against the same reference."""
    try:
        reference = reference_rows(res, d.method, d.measure)
    except ValueError as exc:
        d.notes["per-query"] = str(exc)
        return
    ref, label = reference.pooled, reference.label
    p = pooled[d.method]
    k, b = d.marks[d.method][d.rule], d.marks[d.method]["best"]
    if p.fold_test is not None:
        d.folds = fold_comparisons([f[d.method].fold for f in res.folds], p.fold_test[k], reference.rows,
                                   reference.sources, p.fold_test[b], b, k)
    for m in [d.method] + [m for m in res.methods if m != d.method]:
        if m not in d.marks or len(pooled[m].sizes) < 2 or ranker_of_label(m) != ranker_of_label(d.method):
            continue
        k = d.marks[m][d.rule]
        row = pooled[m].test[pooled[m].sizes.index(k)]
        cmp = compare_queries(pooled[m].test_qids, row, ref, d.measure, "test",
                              f"{m} at {plural(k, 'feature')} (each fold's own subset)", label)
        if m == d.method:
            d.per_query = cmp
        else:
            d.others.append(cmp)
    if d.per_query is None:
        d.notes["per-query"] = (f"{d.method} has one size only ({plural(pooled[d.method].sizes[-1], 'feature')}): "
                                "there is no smaller subset to compare with all features")


def _explain(d: ReportData, res: ExperimentResult) -> None:
    """Why the page's size differs from the experiment table's."""
    table = res.averages()[d.method]["n_features"]
    k = d.marks[d.method][d.rule]
    if abs(table - k) > 1e-9:
        d.explanations.append(
            f"The experiment's table gives {d.method} {plural(round(table, 1), 'feature')}: the mean size of each "
            f"fold's own best grid point on validation. This page chooses one size for every fold: the "
            f"{d.rule} size of the folds' validation queries pooled.")
    o = d.optimism
    settings = ", ".join(q for q in res.grids.get(d.method, {}) if q != "k") or "none"
    if o is not None and o["largest"] == 0:
        d.explanations.append(
            f"The validation scores are not made optimistic by a grid: every size of {d.method} has one setting "
            f"(grid: {settings}), so nothing is chosen on the validation queries but the size.")
    elif o is not None:
        c = o["chosen"]
        d.explanations.append(
            f"The validation scores are optimistic: each size's setting ({settings}) is chosen on the validation "
            f"queries that score it. Cross-fitted on halves of those queries, the chosen size scores "
            f"{c['nested_score']:.4f} instead of {c['validation_score']:.4f} ({d.measure}; optimism "
            f"{c['optimism']:+.4f}, at most {o['largest']:+.4f} over the sizes). The test scores are not.")


def _first_fold(folder, data_dir) -> Optional[Path]:
    for base in (Path(data_dir), Path(folder).parent / data_dir, Path(folder) / data_dir):
        if (base / "Fold1" / "train.txt").is_file() and (base / "Fold1" / "test.txt").is_file():
            return base / "Fold1"
    return None
