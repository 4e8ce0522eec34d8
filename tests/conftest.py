"""Shared fixtures. Real LETOR data is read from ``../shared/data`` beside the project
root; tests that need it skip with a clear reason when it is absent."""
from __future__ import annotations

import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import Optional

import pytest
from hypothesis import settings

# The property tests draw the same examples on every run (derandomize): a CI run cannot fail
# on a case that no earlier run drew (twice a random draw failed CI on a case found nowhere
# else). HYPOTHESIS_PROFILE=explore draws new random examples, to look for new cases.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

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


# ------------------------------------------------------------ the suite leaves no file behind


def _working_tree_status() -> Optional[set[str]]:
    """``git status --porcelain`` of the checkout holding the tests (untracked files listed
    one by one), or None outside a git checkout (an installed package, an unpacked sdist)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    out = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=all"],
                         capture_output=True, text=True)
    return set(out.stdout.splitlines()) if out.returncode == 0 else None


def pytest_sessionstart(session):
    session.config._rankselect_tree_before = _working_tree_status()


def pytest_sessionfinish(session, exitstatus):
    """Fail the run when the tests left a file in the working tree (they write only under
    temporary folders; caches such as .pytest_cache and .hypothesis are gitignored)."""
    before = getattr(session.config, "_rankselect_tree_before", None)
    if before is None or getattr(session.config, "workerinput", None) is not None:
        return  # not a git checkout, or a pytest-xdist worker (the controller checks)
    after = _working_tree_status() or set()
    new = sorted(after - before)
    if new:
        session.config.get_terminal_writer().line(
            "\nthe test suite changed the working tree (tests write only under temporary folders):\n  "
            + "\n  ".join(new), red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
