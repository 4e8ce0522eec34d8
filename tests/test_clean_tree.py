"""The suite leaves no file in the working tree: tests/conftest.py compares ``git status
--porcelain`` before and after the session and fails the run on any new entry."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_run_that_leaves_a_file_fails(tmp_path):
    (tmp_path / "tests").mkdir()
    shutil.copy(HERE / "conftest.py", tmp_path / "tests" / "conftest.py")
    (tmp_path / "tests" / "test_writer.py").write_text(
        "from conftest import ROOT\n\n\ndef test_writes():\n    (ROOT / 'stray').write_text('x')\n\n\n"
        "def test_clean(tmp_path):\n    (tmp_path / 'fine').write_text('x')\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "tests"], check=True)

    def run(*select: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_writer.py",
                               *select], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})

    clean = run("-k", "clean")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    dirty = run()
    assert dirty.returncode == 1, dirty.stdout + dirty.stderr
    assert "the test suite changed the working tree" in dirty.stdout and "?? stray" in dirty.stdout
