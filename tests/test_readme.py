"""Every python code block of the README runs verbatim.

Blocks that read the real LETOR data (paths under ``MQ2008/`` or ``OHSUMED``) run with
``../shared/data`` as the working directory and skip when it is absent; the others run in
a temporary directory. scikit-learn's global configuration is restored after each block.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import sklearn

from conftest import SHARED_DATA

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks():
    """Self-contained python blocks; the "In practice" blocks (marked ``<!-- practice-example -->``)
    share one namespace and run in order in test_readme_practice.py."""
    text = README.read_text(encoding="utf-8")
    return re.findall(r"(?<!<!-- practice-example -->\n)^```python\n(.*?)^```", text, flags=re.S | re.M)


BLOCKS = python_blocks()


def test_readme_has_python_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_block_runs(index, tmp_path, monkeypatch):
    code = BLOCKS[index]
    if re.search(r"MQ2008|OHSUMED", code):
        if not SHARED_DATA.exists():
            pytest.skip(f"README block {index} reads ../shared/data, not found at {SHARED_DATA}")
        monkeypatch.chdir(SHARED_DATA)
    else:
        monkeypatch.chdir(tmp_path)
    with sklearn.config_context():
        exec(compile(code, f"README.md block {index}", "exec"), {"__name__": "__readme__"})
