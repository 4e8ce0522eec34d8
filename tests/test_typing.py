"""The constructors are typed: mypy rejects a wrong argument type before anything runs.

mypy checks a snippet against the installed (or source) package, with the project's mypy
configuration when the tests run from a checkout; it must report an ``arg-type`` error on
exactly the lines marked ``# rejected`` and accept the others. Skipped without mypy (the
``dev`` extra, part of ``test``). The one check of the constructors' types: `.ci/run` runs mypy on
the package only.
"""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import ROOT

pytest.importorskip("mypy")

SNIPPET = '''\
import numpy as np

import rankselect
import rankselect.dask

rankselect.SparseRankSVM(C="one")  # rejected
rankselect.GreedyRankRLS(n_features_to_select="3")  # rejected
rankselect.SparseRankSVM(penalty="l3")  # rejected
rankselect.RankSVM(kernel="rbf")  # rejected
rankselect.dask.GreedyRankRLS(n_features_to_select=2.5)  # rejected
rankselect.SparseRankSVM(C=1, penalty="log", feature_costs=np.ones(3))
rankselect.SparseRankSVM(C=1.0, penalty="mcp")
rankselect.SparseRankSVM(C=1.0, penalty=rankselect.models.penalties.MCP(gamma=3.0))
rankselect.GreedyRankRLS(n_features_to_select=3, min_improvement=1e-3, convention="letor", feature_costs=np.ones(5))
rankselect.GreedyRankRLS(n_features_to_select=3, alpha=0.5, feature_costs=[1.0, 2.0], budget=2)
rankselect.GAS(5, 0.1, importance="ndcg@10", similarity=np.eye(3))
rankselect.RankRLS(alpha=[0.5, 1.0])
rankselect.RankSVM(kernel="nystroem", n_components=50, gamma=0.1, random_state=0)
rankselect.StabilitySelection(rankselect.GAS(3), n_resamples=5, random_state=np.random.default_rng(0))
coef: np.ndarray = rankselect.FSMRank().coef_
'''


def test_mypy_rejects_wrong_argument_types(tmp_path):
    path = tmp_path / "snippet.py"
    path.write_text(SNIPPET)
    config = ROOT / "pyproject.toml"
    # from a checkout: the project's configuration and mypy's own cache there (numpy's stubs are
    # most of the work; the lint gate's `mypy` in .ci/run then finds them checked)
    cache = ROOT / ".mypy_cache" if config.is_file() else tmp_path / "cache"
    args = [sys.executable, "-m", "mypy", "--cache-dir", str(cache), "--no-error-summary",
            "--hide-error-context", "--no-pretty"]
    if config.is_file():
        args += ["--config-file", str(config)]
    out = subprocess.run([*args, str(path)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    errors = [ln for ln in out.stdout.splitlines() if ": error: " in ln]
    rejected = [i + 1 for i, ln in enumerate(SNIPPET.splitlines()) if ln.endswith("# rejected")]
    assert out.returncode == 1, out.stdout + out.stderr
    assert sorted(int(re.match(r".*snippet\.py:(\d+):", e).group(1)) for e in errors) == rejected, out.stdout
    assert all(e.endswith("[arg-type]") for e in errors), out.stdout
    assert 'Argument "C" to "SparseRankSVM" has incompatible type "str"; expected "float"' in out.stdout
    assert 'Argument "n_features_to_select" to "GreedyRankRLS" has incompatible type "str"; expected "int"' \
        in out.stdout
