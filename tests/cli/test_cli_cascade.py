"""``rankselect cascade TRAIN --vali VALI --costs LAYOUT|FILE --budget B``: the phases, the
JSON, the published layouts' costs and one clear error per bad option."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import rankselect as rs
from rankselect.cli import main
from rankselect.data.datasets import example_path, feature_costs

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def test_cascade_json_matches_the_estimator(tmp_path, capsys):
    costs = tmp_path / "costs.txt"
    c = np.arange(1, 23, dtype=float)
    costs.write_text("".join(f"{v}\n" for v in c))
    out = tmp_path / "cascade.json"
    assert main(["cascade", str(example_path("train")), "--vali", str(example_path("vali")), "--costs", str(costs),
                 "--budget", "40%", "--windows", "5", "10", "--json", "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert json.loads(out.read_text()) == printed
    cas = printed["cascade"]
    train, vali = rs.data.datasets.load_example("train"), rs.data.datasets.load_example("vali")
    n_q = np.unique(vali.qid, return_counts=True)[1].mean()
    cs = rs.CascadeSelection(feature_costs=c, budget=0.4 * c.sum() * n_q, windows=(5, 10)).fit(
        train.X, train.y, qid=train.qid, eval_set=(vali.X, vali.y, vali.qid))
    assert [p["features"] for p in cas["phases"]] == [(p.features + 1).tolist() for p in cs.phases_]
    assert [p["window"] for p in cas["phases"]] == [p.window for p in cs.phases_]
    assert cas["cost_per_query"] == pytest.approx(cs.cost_per_query_)
    assert cas["decision"] == cs.choice_["decision"]
    # text output, and --out never replaces a file without --force
    assert main(["cascade", str(example_path("train")), "--vali", str(example_path("vali")), "--costs", str(costs),
                 "--budget", "40%", "--out", str(out)]) != 0
    assert "exists" in capsys.readouterr().err


@pytest.mark.parametrize("extra,match", [
    (["--budget", "abc"], "--budget must be a number"),
    (["--budget", "0.001"], "below the cheapest phase"),
    (["--budget", "50%", "--windows", "0"], "--windows must be >= 1"),
    (["--budget", "50%", "--costs", "mslr"], "the layout has 136 features but the data has 22"),
    (["--budget", "50%", "--costs", "no_such.csv"], "--costs no_such.csv"),
])
def test_bad_options_one_line_each(extra, match, tmp_path, capsys):
    ones = tmp_path / "ones.txt"
    ones.write_text("1\n" * 22)
    args = ["cascade", str(example_path("train")), "--vali", str(example_path("vali"))]
    if "--costs" not in extra:
        args += ["--costs", str(ones)]
    assert main(args + extra) != 0
    assert match in capsys.readouterr().err


@pytest.mark.skipif(not (SHARED / "OHSUMED-LETOR2").is_dir(), reason="../shared/data/OHSUMED-LETOR2 is absent")
def test_cascade_on_ohsumed_with_the_published_costs(capsys):
    d = SHARED / "OHSUMED-LETOR2" / "Fold1"
    assert main(["cascade", str(d / "train.txt"), "--vali", str(d / "vali.txt"), "--costs", "ohsumed-letor2",
                 "--budget", "5%", "--json"]) == 0
    cas = json.loads(capsys.readouterr().out)["cascade"]
    assert cas["feature_costs"] == feature_costs("ohsumed-letor2").tolist()
    assert cas["decision"] in ("cascade", "one phase") and 1 <= len(cas["phases"]) <= 2


def test_cascade_report(tmp_path, capsys):
    """``--report FILE``: the decision report of the fit, its "Ranking phases" panel; the page
    names the data by its folders, escaped; an existing page is kept without --force."""
    pytest.importorskip("bokeh")
    pytest.importorskip("jinja2")
    hostile = tmp_path / "<script>alert(1)"  # a folder name: the page's title
    hostile.mkdir()
    train = hostile / "train.txt"
    train.write_bytes(example_path("train").read_bytes())
    costs = tmp_path / "costs.txt"
    costs.write_text("".join(f"{v}\n" for v in np.arange(1, 23)))
    page = tmp_path / "cascade.html"
    args = ["cascade", str(train), "--vali", str(example_path("vali")), "--costs", str(costs), "--budget", "40%",
            "--windows", "5", "10", "--report", str(page)]
    assert main(args) == 0
    assert "wrote" in capsys.readouterr().err
    html = page.read_text(encoding="utf-8")
    assert 'id="panel-cascade"' in html and "Ranking phases" in html
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
    assert ("One phase (rule 1se)" in html) or ("Cascade (rule 1se)" in html)
    # the settings table names the selector once (its `selector` parameter apart), as shown
    keys = [k.strip() for k in re.findall(r"<tr><td>([^<]*)</td>", html[html.index('id="panel-settings"'):])]
    assert keys.count("selector") == 1 and "selector (parameter)" in keys
    # never replaced without --force (checked before the fit), replaced with it
    page.write_text("mine", encoding="utf-8")
    assert main(args) != 0
    assert "--report" in capsys.readouterr().err and page.read_text(encoding="utf-8") == "mine"
    assert main(args + ["--force"]) == 0
    assert 'id="panel-cascade"' in page.read_text(encoding="utf-8")
