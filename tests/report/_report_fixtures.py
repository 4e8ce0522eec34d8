"""What the report tests share: a tiny experiment on the shipped example (five copies of it
as folds) and the report of it, built once per session under pytest's temporary folder
(both test modules wrap these in fixtures; the module-level cache keeps it to one build)."""
from __future__ import annotations

from pathlib import Path

import rankselect as rs

_BUILT: dict[str, Path] = {}


def experiment_folder(tmp_path_factory) -> Path:
    """``rankselect experiment`` of rankrls, greedy-rankrls and gas on the example, written to a folder."""
    if "experiment" not in _BUILT:
        root = tmp_path_factory.mktemp("folds")
        for k in range(1, 6):
            (root / f"Fold{k}").mkdir()
            for split in ("train", "vali", "test"):
                rs.save_letor(root / f"Fold{k}" / f"{split}.txt", rs.data.datasets.load_example(split))
        out = tmp_path_factory.mktemp("experiment")
        grid = {"rankrls": {"alpha": [1.0]}, "greedy-rankrls": {"alpha": [0.5, 2.0]},
                "gas": {"c": [0.1], "alpha": [1.0]}}
        result = rs.protocol.run(root, ["rankrls", "greedy-rankrls", "gas"], grid=grid, progress=False)
        result.to_json(out / "experiment.json")
        _BUILT["experiment"] = out
    return _BUILT["experiment"]


def report_page(tmp_path_factory) -> Path:
    """The report of :func:`experiment_folder`."""
    from rankselect.report import write_report

    if "report" not in _BUILT:
        page = tmp_path_factory.mktemp("report") / "report.html"
        _BUILT["report"] = write_report(experiment_folder(tmp_path_factory), page, progress=False)
    return _BUILT["report"]
