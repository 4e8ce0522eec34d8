"""Fixtures of the report tests: a tiny experiment on the shipped example (five copies of it
as folds) and the report of it, built once per session under a temporary folder."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("bokeh")
pytest.importorskip("jinja2")

import rankselect as rs  # noqa: E402


@pytest.fixture(scope="session")
def experiment_dir(tmp_path_factory) -> Path:
    """``rankselect experiment`` of rankrls and greedy-rankrls on the example, written to a folder."""
    root = tmp_path_factory.mktemp("folds")
    for k in range(1, 6):
        (root / f"Fold{k}").mkdir()
        for split in ("train", "vali", "test"):
            rs.save_letor(root / f"Fold{k}" / f"{split}.txt", rs.data.datasets.load_example(split))
    out = tmp_path_factory.mktemp("experiment")
    grid = {"rankrls": {"alpha": [1.0]}, "greedy-rankrls": {"alpha": [0.5, 2.0]}}
    rs.protocol.run(root, ["rankrls", "greedy-rankrls"], grid=grid, progress=False).to_json(out / "experiment.json")
    return out


@pytest.fixture(scope="session")
def experiment_report(experiment_dir, tmp_path_factory) -> Path:
    from rankselect.report import write_report

    return write_report(experiment_dir, tmp_path_factory.mktemp("report") / "report.html")
