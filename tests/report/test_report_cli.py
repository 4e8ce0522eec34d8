"""`rankselect report` and `rankselect select --report`: the decision on standard output, no
silent overwrite, names and groups from the command line, and one clear line (exit 2) for a
damaged experiment folder (issues 39 and 40)."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("bokeh")
pytest.importorskip("jinja2")

import _report_fixtures as shared  # noqa: E402 (after the skips)
from test_report import page_decision  # noqa: E402

import rankselect as rs  # noqa: E402
from rankselect.cli import main  # noqa: E402
from rankselect.data.datasets import example_path, feature_layout  # noqa: E402


@pytest.fixture(scope="session")
def experiment_dir(tmp_path_factory):
    return shared.experiment_folder(tmp_path_factory)


@pytest.fixture(scope="module")
def wide_dir(tmp_path_factory):
    """An experiment on 46 columns, LETOR 4.0's width (the example twice, then two of its columns again)."""
    root = tmp_path_factory.mktemp("wide")
    for k in range(1, 6):
        (root / f"Fold{k}").mkdir()
        for split in ("train", "vali", "test"):
            X, y, qid = rs.data.datasets.load_example(split)
            rs.save_letor(root / f"Fold{k}" / f"{split}.txt", (np.hstack([X, X + 1.0, X[:, :2] + 2.0]), y, qid))
    grid = {"greedy-rankrls": {"alpha": [1.0], "k": [1, 2, 3, 4, 46]}}
    rs.protocol.run(root, ["greedy-rankrls"], grid=grid, progress=False).to_json(root / "experiment.json")
    return root


def test_json_prints_the_page_decision(experiment_dir, tmp_path, capsys):
    out = tmp_path / "page.html"
    assert main(["report", str(experiment_dir), "-o", str(out), "--method", "gas", "--json"]) == 0
    captured = capsys.readouterr()
    printed = json.loads(captured.out)
    assert printed == page_decision(out.read_text())
    assert printed["method"] == "gas" and "wrote" in captured.err


def test_no_silent_overwrite(experiment_dir, tmp_path, capsys):
    out = tmp_path / "page.html"
    out.write_text("keep me")
    assert main(["report", str(experiment_dir), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists: pass --force" in err
    assert out.read_text() == "keep me"
    assert main(["report", str(experiment_dir), "-o", str(out), "--force"]) == 0
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_names_layout_groups_and_costs(wide_dir, tmp_path, capsys):
    out = tmp_path / "page.html"
    assert main(["report", str(wide_dir), "-o", str(out), "--layout", "letor4:stream", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    names = feature_layout("letor4").feature_names
    assert d["feature_names"] == [names[j] for j in d["features"]] and "groups" in d
    html = out.read_text()
    assert "Quality against the number of feature groups" in html and names[d["features"][0]] in html
    (tmp_path / "names.txt").write_text("\ufeff" + "".join(f"name{j}\n" for j in range(46)))
    (tmp_path / "costs.csv").write_text("".join(f"{j + 1},{j + 1}\n" for j in range(46)))
    (tmp_path / "groups.csv").write_text("".join(f"{j + 1},{'a' if j < 23 else 'b'},5\n" for j in range(46)))
    assert main(["report", str(wide_dir), "-o", str(out), "--force", "--json", "--names", str(tmp_path / "names.txt"),
                 "--costs", str(tmp_path / "costs.csv"), "--groups", str(tmp_path / "groups.csv")]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["feature_names"] == [f"name{j}" for j in d["features"]]
    assert d["cost"] == pytest.approx(sum(j + 1 for j in d["features"]) + 5 * len(d["groups"]))
    assert main(["report", str(wide_dir), "-o", str(out), "--force", "--layout", "mslr"]) == 2
    assert "describes 136 features but the data has 46" in capsys.readouterr().err


def _damage(src, dst, change):
    shutil.copytree(src, dst)
    d = json.loads((dst / "experiment.json").read_text())
    change(d)
    (dst / "experiment.json").write_text(json.dumps(d))
    return dst


DAMAGE = {
    "a method absent from the folds": (lambda d: d["folds"][2].pop("gas"), "fold 3: no results for method 'gas'"),
    "a selected feature beyond n_features": (
        lambda d: d["folds"][0]["gas"]["selected_features"].append(23), "holds feature 23, outside 1..22"),
    "feature 0 (read as -1)": (
        lambda d: d["folds"][0]["gas"]["selected_features"].__setitem__(0, 0), "holds feature 0, outside 1..22"),
    "a per-query array one value short": (
        lambda d: d["folds"][0]["rankrls"]["per_query"]["AP"].pop(), "per_query AP has 14 values, expected 15"),
    "n_features 10**9": (lambda d: d.__setitem__("n_features", 10**9), "n_features 1000000000 is out of range"),
    "a file of version 1 (no per-query path)": (
        lambda d: [d.pop("format"), d.pop("version")] + [r.pop("path") for f in d["folds"] for r in f.values()],
        "format version 1"),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_damaged_folder_is_one_line(experiment_dir, tmp_path, capsys, case):
    change, message = DAMAGE[case]
    folder = _damage(experiment_dir, tmp_path / "run", change)
    assert main(["report", str(folder), "-o", str(tmp_path / "page.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rankselect report: error: ") and err.count("\n") == 1, err
    assert message in err
    assert not (tmp_path / "page.html").exists()


def test_select_report(tmp_path, capsys):
    train, vali = (shutil.copy(example_path(s), tmp_path / f"{s}.txt") for s in ("train", "vali"))
    page = tmp_path / "fit.html"
    assert main(["select", "--method", "greedy-rankrls", "-k", "6", str(train), "--vali", str(vali), "--json",
                 "--report", str(page), "--report-resamples", "2"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["selected_features"]  # the JSON on stdout is untouched
    assert "stability: refitting GreedyRankRLS on 2 half-samples" in captured.err
    d = page_decision(page.read_text())
    assert d["method"] == "GreedyRankRLS" and 1 <= d["chosen_size"] <= 6
    # the title names the data by its last folders, not by the machine's path
    assert f"<h1>greedy-rankrls on {tmp_path.parent.name}/{tmp_path.name}/train.txt</h1>" in page.read_text()
    assert main(["select", "--method", "gas", "-k", "3", str(train), "--report", str(tmp_path / "x.html")]) == 2
    assert "--report needs --vali" in capsys.readouterr().err
    assert main(["select", "--method", "gas", "-k", "3", str(train), "--vali", str(vali), "--report", str(page)]) == 2
    assert "exists: pass --force" in capsys.readouterr().err
