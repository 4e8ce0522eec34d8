"""Library-wide settings: :func:`set_config`, :func:`get_config`, :func:`config_context`.

The memory rule
---------------
Before any allocation that grows with the data (a dense matrix read from a file, pair lists,
greedy RankRLS caches, kernel maps, decompressed input), rankselect computes its size in bytes
and refuses with a :class:`MemoryError` that names the sizes and the remedy when it exceeds
``max_memory``. ``max_memory=None`` (the default) means the smallest of: the memory available
on this machine (``MemAvailable`` of ``/proc/meminfo``, else total physical memory), the
headroom under the process's address-space limit (``ulimit -v``: ``RLIMIT_AS`` minus the
current ``VmSize``) and the headroom under the container's cgroup memory limit (v2
``memory.max - memory.current``, v1 ``memory.limit_in_bytes - memory.usage_in_bytes``), each
read when the check runs. An allocation that passes the rule and is still refused by the
operating system raises :class:`MemoryError` too (the core allocates fallibly).

Settings are per thread and per asynchronous context: a :func:`config_context` block changes
them for the code it runs only (``contextvars``), never for another thread's fit; blocks may
overlap (each exit removes its own change). :func:`set_config` outside any block changes the
process-wide defaults.

Workers
-------
The tasks that rankselect runs in parallel (the ranker fits of the selectors' ``n_jobs``) go
through :class:`Parallel` and :func:`delayed`: the settings of the calling thread (its
:func:`config_context` blocks included) are captured when the ``Parallel`` call starts and are
the settings of every task, on threads and in loky worker processes alike, together with
scikit-learn's own settings (``sklearn.utils.parallel``). A pool that rankselect does not start
(a user's ``joblib.Parallel``, ``GridSearchCV(n_jobs=2)``) knows nothing of rankselect's
settings: its threads see the process-wide defaults of :func:`set_config` but no
:func:`config_context` block, and its loky worker processes see neither (they start from
``max_memory=None``). Use rankselect's :class:`Parallel` / :func:`delayed` for such a pool, or
call :func:`set_config` inside the task.
"""
from __future__ import annotations

import contextvars
import itertools
import numbers
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Optional

from sklearn.utils import parallel as _sk_parallel

__all__ = ["set_config", "get_config", "config_context", "memory_limit", "check_memory", "format_bytes",
           "Parallel", "delayed"]

_lock = threading.Lock()
_global: dict[str, Any] = {"max_memory": None}
# The active config_context blocks of this context, oldest first: ((block id, settings), ...).
_blocks: contextvars.ContextVar[tuple[tuple[int, dict[str, Any]], ...]] = contextvars.ContextVar(
    "rankselect_config_blocks", default=())
_ids = itertools.count()


def get_config() -> dict[str, Any]:
    """A copy of the current settings (``{"max_memory": int bytes or None}``).

    Examples
    --------
    >>> import rankselect as rs
    >>> sorted(rs.get_config())
    ['max_memory']
    """
    with _lock:
        out = dict(_global)
    for _, settings in _blocks.get():
        out.update(settings)
    return out


def _check_max_memory(max_memory: Any) -> Optional[int]:
    if max_memory is None:
        return None
    if isinstance(max_memory, bool) or not isinstance(max_memory, numbers.Integral) or int(max_memory) <= 0:
        raise ValueError(f"max_memory must be a positive integer number of bytes or None, got {max_memory!r}")
    return int(max_memory)


def set_config(*, max_memory: Optional[int] = None) -> None:
    """Set library-wide options (inside a :func:`config_context` block: that block's options).

    Parameters
    ----------
    max_memory : int or None
        Largest single data-sized allocation, in bytes, that rankselect may make; None (default)
        means the memory rule's limit at the time of the check (see the module docs).

    Examples
    --------
    >>> import rankselect as rs
    >>> rs.set_config(max_memory=2**30)  # refuse allocations above 1 GiB
    >>> rs.get_config()["max_memory"]
    1073741824
    >>> rs.set_config(max_memory=None)  # back to the available memory
    """
    value = _check_max_memory(max_memory)
    blocks = _blocks.get()
    if blocks:
        bid, settings = blocks[-1]
        _blocks.set(blocks[:-1] + ((bid, {**settings, "max_memory": value}),))
        return
    with _lock:
        _global["max_memory"] = value


@contextmanager
def config_context(*, max_memory: Optional[int] = None) -> Iterator[None]:
    """Change the settings for the code inside the block only, in this thread or task
    (``with rankselect.config_context(max_memory=2**30): ...``).

    Examples
    --------
    >>> import rankselect as rs
    >>> with rs.config_context(max_memory=10**6):
    ...     print(rs.get_config()["max_memory"])
    ...
    1000000
    >>> rs.get_config()["max_memory"] is None
    True
    """
    settings = {"max_memory": _check_max_memory(max_memory)}
    bid = next(_ids)
    _blocks.set(_blocks.get() + ((bid, settings),))
    try:
        yield
    finally:
        _blocks.set(tuple(b for b in _blocks.get() if b[0] != bid))


#: scikit-learn's ``delayed``: what :class:`Parallel` takes (it carries scikit-learn's settings)
delayed = _sk_parallel.delayed


class _InConfig:
    """A task that runs under rankselect's settings ``config`` (picklable for loky)."""

    def __init__(self, function, config: dict[str, Any]) -> None:
        self.function = function
        self.config = config

    def with_config_and_warning_filters(self, config, warning_filters):  # scikit-learn's hook
        hook = getattr(self.function, "with_config_and_warning_filters", None)
        if hook is not None:
            self.function = hook(config, warning_filters)
        return self

    def __call__(self, *args, **kwargs):
        with config_context(**self.config):
            return self.function(*args, **kwargs)


class Parallel(_sk_parallel.Parallel):
    """``joblib.Parallel`` whose tasks run in the caller's settings: rankselect's (captured
    when the call starts, :func:`config_context` blocks included) and scikit-learn's.

    Examples
    --------
    >>> import rankselect as rs
    >>> from rankselect._config import Parallel, delayed
    >>> with rs.config_context(max_memory=2**20):
    ...     Parallel(n_jobs=2, prefer="threads")(delayed(rs.get_config)() for _ in range(2))
    [{'max_memory': 1048576}, {'max_memory': 1048576}]
    """

    def __call__(self, iterable):
        config = get_config()
        return super().__call__((_InConfig(f, config), args, kwargs) for f, args, kwargs in iterable)


def _available_memory() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - exotic platforms
        return 2**63 - 1


def _read_int(path: str) -> Optional[int]:
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _address_space_headroom() -> Optional[int]:
    """``RLIMIT_AS`` (soft) minus this process's ``VmSize``; None without a limit."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    vm = 0
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    vm = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    return max(int(soft) - vm, 0)


def _cgroup_headroom() -> Optional[int]:
    """The cgroup memory limit minus its usage (v2, else v1); None without a limit."""
    paths = ["/sys/fs/cgroup"]
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                if line.startswith("0::"):
                    paths.insert(0, "/sys/fs/cgroup" + line[3:].strip().rstrip("/"))
    except OSError:
        pass
    for base in paths:
        limit = _read_int(os.path.join(base, "memory.max"))  # "max" (no limit) reads as None
        if limit is not None:
            return max(limit - (_read_int(os.path.join(base, "memory.current")) or 0), 0)
    limit = _read_int("/sys/fs/cgroup/memory/memory.limit_in_bytes")
    if limit is not None and limit < 2**62:  # v1 reports "no limit" as a huge number
        return max(limit - (_read_int("/sys/fs/cgroup/memory/memory.usage_in_bytes") or 0), 0)
    return None


def system_memory_limit() -> int:
    """The smallest of the available memory, the ``RLIMIT_AS`` headroom and the cgroup headroom."""
    limits = [_available_memory(), _address_space_headroom(), _cgroup_headroom()]
    return min(v for v in limits if v is not None)


def memory_limit() -> int:
    """The limit in bytes that the memory rule applies now (``max_memory`` or
    :func:`system_memory_limit`)."""
    limit = get_config()["max_memory"]
    return int(limit) if limit is not None else system_memory_limit()


def format_bytes(n: float) -> str:
    """``34359738360`` -> ``"32.0 GiB"`` (powers of 1024; same format as the Rust core)."""
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    v, u = float(n), 0
    while v >= 1024 and u < len(units) - 1:
        v /= 1024
        u += 1
    return f"{int(n)} B" if u == 0 else f"{v:.1f} {units[u]}"


def check_memory(nbytes: int, what: str, remedy: str) -> None:
    """Raise MemoryError when ``nbytes`` (exact, a Python int) exceeds :func:`memory_limit`."""
    limit = memory_limit()
    if nbytes > limit:
        raise MemoryError(
            f"{what} needs {format_bytes(nbytes)} but the memory limit is {format_bytes(limit)}; {remedy}"
            " (the limit is the smallest of the available memory and the ulimit -v and cgroup headroom, unless"
            " set with rankselect.set_config(max_memory=...))"
        )
