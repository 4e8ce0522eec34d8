"""The compiled core, imported once before the rest of the package: the core fixes its SIMD
level on import, and a bad ``RANKSELECT_SIMD`` fails there. Under the ``rankselect`` command
line (the console script, ``python -m rankselect`` or ``python -m rankselect.cli``) that is one
line on standard error and exit status 2, as for any bad input; the library raises ValueError."""
from __future__ import annotations

import sys

__all__: list[str] = []


def running_cli() -> bool:
    """Whether this process is the ``rankselect`` command line."""
    argv = getattr(sys, "orig_argv", sys.argv)
    if sys.argv and sys.argv[0].endswith(("/rankselect", "\\rankselect", "rankselect.exe")):  # the console script
        return True
    return any(a in ("rankselect", "rankselect.cli") and argv[i - 1] == "-m" for i, a in enumerate(argv) if i)


try:
    from . import _core  # noqa: F401
except ValueError as exc:
    if running_cli():
        print(f"rankselect: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    raise
