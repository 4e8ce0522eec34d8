"""Shared fixtures. Real LETOR data is read from ``../shared/data`` beside the project
root; tests that need it skip with a clear reason when it is absent."""
from __future__ import annotations

from contextlib import contextmanager
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


@contextmanager
def dask_client(processes: bool = False):
    """A Dask client on a LocalCluster started here and closed on exit: 2 workers of one
    thread; in this process (``processes=False``, in-process transport, fast) or as worker
    processes on loopback (a test that kills a worker)."""
    distributed = pytest.importorskip("distributed")
    kw = dict(host="127.0.0.1", dashboard_address=":0") if processes else dict(dashboard_address=None)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=processes, silence_logs=50,
                                  **kw) as cluster, distributed.Client(cluster) as client:
        yield client
