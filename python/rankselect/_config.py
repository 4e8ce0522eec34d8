"""Library-wide settings: :func:`set_config`, :func:`get_config`, :func:`config_context`.

The memory rule
---------------
Before any allocation that grows with the data (a dense matrix read from a file, pair lists,
greedy RankRLS caches, kernel maps, decompressed input), rankselect computes its size in bytes
and refuses with a :class:`MemoryError` that names the sizes and the remedy when it exceeds
``max_memory``. ``max_memory=None`` (the default) means the memory available on this machine
when the check runs (``MemAvailable`` of ``/proc/meminfo``, else total physical memory).
"""
from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Optional

__all__ = ["set_config", "get_config", "config_context", "memory_limit", "check_memory", "format_bytes"]

_lock = threading.Lock()
_config: dict[str, Any] = {"max_memory": None}


def get_config() -> dict[str, Any]:
    """A copy of the current settings (``{"max_memory": int bytes or None}``).

    Examples
    --------
    >>> import rankselect as rs
    >>> sorted(rs.get_config())
    ['max_memory']
    """
    with _lock:
        return dict(_config)


def set_config(*, max_memory: Optional[int] = None) -> None:
    """Set library-wide options.

    Parameters
    ----------
    max_memory : int or None
        Largest single data-sized allocation, in bytes, that rankselect may make; None (default)
        means the memory available on the machine at the time of the check.

    Examples
    --------
    >>> import rankselect as rs
    >>> rs.set_config(max_memory=2**30)  # refuse allocations above 1 GiB
    >>> rs.get_config()["max_memory"]
    1073741824
    >>> rs.set_config(max_memory=None)  # back to the available memory
    """
    if max_memory is not None:
        if isinstance(max_memory, bool) or not isinstance(max_memory, int) or max_memory <= 0:
            raise ValueError(f"max_memory must be a positive integer number of bytes or None, got {max_memory!r}")
    with _lock:
        _config["max_memory"] = max_memory


@contextmanager
def config_context(*, max_memory: Optional[int] = None) -> Iterator[None]:
    """Temporarily change the settings (``with rankselect.config_context(max_memory=2**30): ...``).

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
    old = get_config()
    set_config(max_memory=max_memory)
    try:
        yield
    finally:
        set_config(**old)


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


def memory_limit() -> int:
    """The limit in bytes that the memory rule applies now (``max_memory`` or available memory)."""
    limit = get_config()["max_memory"]
    return int(limit) if limit is not None else _available_memory()


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
            " (the limit is the available memory unless set with rankselect.set_config(max_memory=...))"
        )
