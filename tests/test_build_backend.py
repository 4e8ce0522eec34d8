"""The build backend (``build_backend/rankselect_build.py``, issue 40): ``pip install .`` showed
only "still running..." for the whole Rust build; in a terminal, cargo's progress now goes to
it. maturin's build is replaced by a stand-in that writes to standard error as cargo does."""
from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("maturin")

ROOT = Path(__file__).resolve().parents[1]
BUILD = textwrap.dedent(f"""
    import os, sys
    sys.path.insert(0, {str(ROOT / "build_backend")!r})
    import maturin
    import rankselect_build
    maturin.build_wheel = lambda *args: (os.write(2, b"   Compiling faer v0.24\\n"), "rankselect.whl")[1]
    print("built", rankselect_build.build_wheel("wheels"))
""")


def test_every_hook_is_maturins_but_the_builds():
    sys.path.insert(0, str(ROOT / "build_backend"))
    try:
        import maturin
        import rankselect_build
    finally:
        sys.path.remove(str(ROOT / "build_backend"))
    hooks = [n for n in dir(maturin) if n.startswith(("build_", "get_requires_", "prepare_metadata_"))]
    assert hooks and all(hasattr(rankselect_build, n) for n in hooks)
    assert rankselect_build.build_sdist is maturin.build_sdist
    assert rankselect_build.build_wheel is not maturin.build_wheel
    assert 'build-backend = "rankselect_build"' in (ROOT / "pyproject.toml").read_text()


def test_without_a_terminal_the_output_stays_where_it_was():
    r = subprocess.run([sys.executable, "-c", BUILD], capture_output=True, text=True, timeout=60,
                       start_new_session=True)  # a new session: no controlling terminal
    assert r.returncode == 0, r.stderr
    assert "built rankselect.whl" in r.stdout and "Compiling faer" in r.stderr


@pytest.mark.skipif(shutil.which("script") is None, reason="util-linux's script gives the build a terminal")
def test_in_a_terminal_cargo_writes_to_it():
    """pip captures the backend's output: with it sent elsewhere (here /dev/null), the build's
    lines still reach the terminal."""
    cmd = f"{sys.executable} -c {shlex_quote(BUILD)} 2>/dev/null"
    r = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Compiling faer" in r.stdout and "built rankselect.whl" in r.stdout


def shlex_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)
