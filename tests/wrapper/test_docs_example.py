"""The python blocks of docs/ranker_loop.md run verbatim (in a temporary directory)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "ranker_loop.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", PAGE.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_the_page_has_an_example():
    assert BLOCKS


@pytest.mark.parametrize("code", BLOCKS)
def test_docs_block_runs(code, tmp_path, monkeypatch):
    pytest.importorskip("lightgbm")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(PAGE), "exec"), {"__name__": "__docs__"})
