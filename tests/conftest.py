"""Shared fixtures. Real LETOR data is read from ``../shared/data`` beside the project
root; tests that need it skip with a clear reason when it is absent."""
from __future__ import annotations

from pathlib import Path

import pytest

#: the project root (README.md, benches/, python/)
ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


def shared_path(*parts: str) -> Path:
    """Path under ../shared/data, or skip the calling test when it is missing."""
    p = SHARED_DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"shared LETOR data not found at {p} (tests read ../shared/data from the project root)")
    return p


@pytest.fixture
def mq2008() -> Path:
    return shared_path("MQ2008")
