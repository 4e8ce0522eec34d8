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
# No deadline: hypothesis's default (200 ms per example) is a timing assertion, which a loaded
# machine breaks (issue 40); a test that times something bounds it itself.
settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
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


class _SharedCluster:
    """One in-process Dask cluster (2 workers of one thread), started on first use and closed at
    the end of the session (with pytest-xdist: per worker process)."""

    def __init__(self):
        self.cluster = None

    def get(self):
        if self.cluster is None:
            distributed = pytest.importorskip("distributed")
            self.cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                                    dashboard_address=None, silence_logs=50)
        return self.cluster

    def is_clean(self, wait: float = 5.0) -> bool:
        """Whether the cluster runs its 2 workers and the scheduler has forgotten every task
        (results, actors) of the client just closed; released tasks may take a moment to go."""
        import time

        deadline = time.monotonic() + wait
        while self.cluster.scheduler.tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return self.cluster.status.name == "running" and len(self.cluster.scheduler.workers) == 2

    def close(self):
        if self.cluster is not None:
            self.cluster.close()
        self.cluster = None


@pytest.fixture(scope="session")
def _dask_session_cluster():
    shared = _SharedCluster()
    yield shared
    shared.close()


@pytest.fixture(scope="module")
def shared_dask_client(_dask_session_cluster):
    """A Dask client, the default one for the module's tests, on the session's in-process
    cluster (2 workers of one thread): the cluster starts once per session instead of once per
    module. The client is the module's, closed at its end as before (a test without the
    fixture sees no client); a module that leaves tasks or actors behind gets a fresh cluster
    for the next one, so no result depends on the reuse. Tests that kill workers start their
    own cluster (:func:`dask_client`)."""
    distributed = pytest.importorskip("distributed")
    with distributed.Client(_dask_session_cluster.get()) as client:
        yield client
    if not _dask_session_cluster.is_clean():
        _dask_session_cluster.close()


# ------------------------------------------------------------ Ctrl-C latency, on a loaded machine too

#: seconds from SIGINT to the KeyboardInterrupt in the child, measured inside it: generous (the
#: kernels poll every 50 ms), for a machine busy with other work
INTERRUPT_LATENCY = 5.0


def interrupt_latency(code: str, *, after: float, env: Optional[dict] = None) -> tuple[float, str, str]:
    """Run ``code`` (Python) in a child process; once it prints ``ready``, wait ``after``
    seconds and send SIGINT. ``code`` prints ``interrupted <time.monotonic()>`` where it
    catches the KeyboardInterrupt. Returns (seconds from the signal to that catch, stdout,
    stderr); the latency is ``inf`` when the child did not print it.

    The latency is measured from inside (CLOCK_MONOTONIC is one clock for every process of
    the machine), not to the child's exit: its exit (freeing its arrays, the interpreter's
    teardown) is no part of Ctrl-C's latency, and a loaded machine stretched it past 5 s
    (6.3 s and 7.1 s, issue 40)."""
    import signal
    import sys
    import textwrap
    import time

    import rankselect

    here = str(Path(rankselect.__file__).resolve().parents[1])  # the rankselect under test (source or installed)
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = here + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        first = p.stdout.readline() if p.stdout is not None else ""
        assert first.strip() == "ready", (first, p.communicate(timeout=60))
        time.sleep(after)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    caught = [float(line.split()[1]) for line in out.splitlines() if line.startswith("interrupted ")]
    return (caught[0] - sent if caught else float("inf")), out, err


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
