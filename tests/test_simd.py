"""SIMD dispatch: every level this CPU has gives the same bytes, and RANKSELECT_SIMD is checked.

The bitwise comparison itself is ``benches/simd_bitwise.py`` (one subprocess per level:
greedy RankRLS, Kendall, metrics, importance, centring, squared hinge, RankSVM, sparse
RankSVM, RankRLS, kernel maps, the parser; MQ2008 Fold1 too when ../shared has it).
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT
from rankselect import _core

LEVELS = ("baseline", "avx2", "avx512")


def _import_with(value: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "RANKSELECT_SIMD": value}
    code = "import rankselect, rankselect._core as c; print(c.simd_level())"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def test_active_level_is_one_the_cpu_has():
    levels = _core.simd_levels()
    assert levels[0] == "baseline" and set(levels) <= set(LEVELS)
    assert _core.simd_level() in levels
    if "RANKSELECT_SIMD" not in os.environ:
        assert _core.simd_level() == levels[-1]


def test_every_level_gives_the_same_bits():
    r = subprocess.run([sys.executable, str(ROOT / "benches" / "simd_bitwise.py")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK: bit-identical" in r.stdout
    for level in _core.simd_levels():
        assert level in r.stdout


@pytest.mark.parametrize("level", LEVELS)
def test_forcing_a_level(level):
    r = _import_with(level)
    if level in _core.simd_levels():
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == level
    else:
        assert r.returncode != 0
        assert "ValueError" in r.stderr and f'RANKSELECT_SIMD="{level}"' in r.stderr
        assert "lacks" in r.stderr and "baseline" in r.stderr


def test_unknown_level_is_a_clear_error():
    r = _import_with("sse9")
    assert r.returncode != 0
    assert "ValueError" in r.stderr and 'RANKSELECT_SIMD="sse9"' in r.stderr
    assert "baseline, avx2, avx512" in r.stderr


def test_version_names_the_level(capsys):
    # through main(), the console script's function (``python -m rankselect --version`` runs as
    # a process in tests/cli/test_cli_methods.py)
    from rankselect.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and f"(SIMD: {_core.simd_level()})" in capsys.readouterr().out
