"""The CLI reads one method registry: -k for every selector, flags of other methods rejected,
the convention named next to every score, nothing printed that was not used (issue 12)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import rankselect
from rankselect.cli import main
from rankselect.methods import METHODS, SELECTORS, method_table


@pytest.fixture(scope="module")
def letor_file(tmp_path_factory):
    rng = np.random.default_rng(3)
    m, n = 240, 8
    X = rng.random((m, n))
    X[:, 7] = 0.0  # an all-zero column, as in LETOR files
    y = np.clip(np.round(2 * X[:, 0] + X[:, 1] - X[:, 2] + rng.normal(scale=0.3, size=m)), 0, 2)
    qid = np.repeat(np.arange(1, 25), 10)
    path = tmp_path_factory.mktemp("cli") / "train.txt"
    rankselect.save_letor(path, rankselect.RankingData(X, y, qid))
    return str(path)


def _selected(out: str):
    rows = [ln.split() for ln in out.splitlines() if ln and not ln.startswith("#") and ln.split()[0].isdigit()]
    return [int(r[1]) for r in rows]


@pytest.mark.parametrize("method", ["greedy-rankrls", "gas"])
def test_k_selects_exactly_k(letor_file, capsys, method):
    assert main(["select", "--method", method, "-k", "3", letor_file]) == 0
    assert len(_selected(capsys.readouterr().out)) == 3


@pytest.mark.parametrize("method,param", [("sparse-ranksvm", "C"), ("fsmrank", "lambda2")])
def test_k_on_sparse_methods_picks_the_path_point_and_says_which(letor_file, capsys, method, param):
    assert main(["select", "--method", method, "-k", "2", letor_file]) == 0
    out = capsys.readouterr().out
    sel = _selected(out)
    assert 1 <= len(sel) <= 2
    note = [ln for ln in out.splitlines() if ln.startswith("# -k 2:")]
    assert len(note) == 1 and f"{param}=" in note[0] and f"({len(sel)} selected)" in note[0]


def test_k_and_the_path_parameter_together_is_an_error(letor_file, capsys):
    assert main(["select", "--method", "sparse-ranksvm", "-k", "5", "--C", "1", letor_file]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "-k or --C" in err


@pytest.mark.parametrize("method,flag,value", [
    ("sparse-ranksvm", "--c", "0.5"),          # GAS's c
    ("gas", "--C", "1"),                       # sparse RankSVM's C
    ("greedy-rankrls", "--penalty", "l1"),     # sparse RankSVM's penalty
    ("fsmrank", "--alpha", "2"),               # greedy RankRLS's alpha
])
def test_a_flag_of_another_method_is_a_one_line_error(letor_file, capsys, method, flag, value):
    assert main(["select", "--method", method, flag, value, letor_file]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{flag} does not apply to --method {method}" in err


def test_select_vali_names_the_convention(letor_file, capsys):
    assert main(["select", "--method", "greedy-rankrls", "-k", "2", letor_file, "--vali", letor_file]) == 0
    out = capsys.readouterr().out
    assert "exponential convention" in out
    assert main(["select", "--method", "greedy-rankrls", "-k", "2", letor_file, "--vali", letor_file, "--json"]) == 0
    import json
    assert json.loads(capsys.readouterr().out)["validation_convention"] == "exponential"


def test_train_prints_the_parameters_it_used(letor_file, capsys):
    assert main(["train", letor_file, "--test", letor_file, "--kernel", "nystroem", "--components", "30"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert "n_components=30" in line and "kernel=nystroem" in line
    assert "components=30" not in line.replace("n_components=30", "")
    assert f"gamma={1 / 8}" in line  # the width the map used: 1 / n_features
    assert main(["train", letor_file, "--test", letor_file]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert "n_components" not in line and "gamma" not in line and "kernel" not in line


def test_train_rejects_kernel_flags_without_a_kernel(letor_file, capsys):
    assert main(["train", letor_file, "--test", letor_file, "--components", "30"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--components applies only with --kernel" in err


def test_registry_defaults_are_the_estimators():
    assert METHODS["ranksvm"].defaults()["n_components"] == rankselect.RankSVM().n_components
    assert METHODS["gas"].defaults()["c"] == rankselect.GAS().c
    assert set(SELECTORS) == {"greedy-rankrls", "gas", "ngas", "xgas", "hcas", "sparse-ranksvm", "fsmrank", "rfe",
                              "forward"}
    table = method_table()
    for name in METHODS:
        assert f"`{name}`" in table


def test_readme_method_table_is_the_registry():
    from conftest import ROOT

    readme = (ROOT / "README.md").read_text()
    assert method_table() in readme


def test_python_m_rankselect_works_like_the_console_script():
    r = subprocess.run([sys.executable, "-m", "rankselect", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("rankselect ")
