"""Wording shared by the subcommands of the ``rankselect`` command line."""

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["add_convention_argument", "conventions_of", "plural", "ranges", "reading", "refuse_existing"]


@contextmanager
def reading(option: str, path) -> Iterator[None]:
    """Inside the block, a file that cannot be opened or is not UTF-8 text is a ValueError
    naming the option and the file (``--groups g.csv: No such file or directory``), not
    ``[Errno 2] ...``.

    Examples
    --------
    >>> from rankselect.cli.common import reading
    >>> with reading("--groups", "no_such.csv"):
    ...     open("no_such.csv")
    Traceback (most recent call last):
    ...
    ValueError: --groups no_such.csv: No such file or directory
    """
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ValueError(f"{option} {path}: {reason}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{option} {path}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset "
                         f"{exc.start})") from None


def refuse_existing(option: str, path, force: bool) -> None:
    """Before any work: a file we would write over is refused unless ``--force`` (``-`` is
    standard output, ``None`` no file); a folder is never replaced.

    Examples
    --------
    >>> import tempfile
    >>> from rankselect.cli.common import refuse_existing
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     refuse_existing("--out", f.name, force=False)
    Traceback (most recent call last):
    ...
    ValueError: --out ... exists; pass --force to replace it
    """
    if path is None or path == "-":
        return
    if os.path.isdir(path):
        raise ValueError(f"{option} {path} is a folder: give a file's path")
    if os.path.lexists(path) and not force:
        raise ValueError(f"{option} {path} exists; pass --force to replace it")


def plural(n: int, word: str, words: str = "") -> str:
    """``"1 feature"``, ``"2 features"`` (``words`` is the plural when not ``word + "s"``).

    Examples
    --------
    >>> from rankselect.cli.common import plural
    >>> plural(1, "feature"), plural(3, "query", "queries")
    ('1 feature', '3 queries')
    """
    return f"{n} {word if n == 1 else (words or word + 's')}"


def ranges(numbers, limit: int = 20) -> str:
    """Sorted integers as ranges, ``"1-5, 9, 12-14"``; after ``limit`` ranges ``"... and N more"``
    (N the numbers left out), so that a list of ten million features stays one short line.

    Examples
    --------
    >>> from rankselect.cli.common import ranges
    >>> ranges([1, 2, 3, 4, 5, 9, 12, 13, 14])
    '1-5, 9, 12-14'
    >>> ranges(range(0, 10, 2), limit=2)
    '0, 2 ... and 3 more'
    """
    import numpy as np

    a = np.asarray(numbers, dtype=np.int64)
    if a.size == 0:
        return ""
    breaks = np.flatnonzero(np.diff(a) != 1) + 1
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [a.size])) - 1
    parts = [str(a[s]) if s == e else f"{a[s]}-{a[e]}" for s, e in zip(starts[:limit], ends[:limit])]
    text = ", ".join(parts)
    if starts.size > limit:
        text += f" ... and {int(a.size - (ends[limit - 1] + 1))} more"
    return text


def add_convention_argument(p, default: str, *, several: bool = False) -> None:
    """``--convention NAME`` (``several``: ``NAME[,NAME...]``, columns side by side) with the
    current names of :data:`rankselect.metrics.checks.CURRENT_CONVENTIONS`; the old name
    ``standard`` is accepted with a warning (see :func:`conventions_of`).

    Examples
    --------
    >>> import argparse
    >>> from rankselect.cli.common import add_convention_argument
    >>> p = argparse.ArgumentParser()
    >>> add_convention_argument(p, "exponential")
    >>> p.parse_args(["--convention", "trec"]).convention
    'trec'
    """
    from ..metrics.checks import CURRENT_CONVENTIONS

    what = "comma-separated conventions, printed side by side" if several else "metric convention"
    p.add_argument("--convention", default=default, metavar="|".join(CURRENT_CONVENTIONS),
                   help=f"{what}: {', '.join(CURRENT_CONVENTIONS)} (default {default})")


def conventions_of(text: str, prog: str = "rankselect") -> list[str]:
    """The current names of the comma-separated conventions ``text`` (a ValueError names a
    wrong one; the old name ``standard`` is ``exponential``, with a warning on standard error).

    Examples
    --------
    >>> from rankselect.cli.common import conventions_of
    >>> conventions_of("exponential,letor")
    ['exponential', 'letor']
    """
    from ..metrics.checks import CURRENT_CONVENTIONS, OLD_CONVENTION_NAMES, check_choice, current_convention_name

    names = []
    for part in str(text).split(","):
        if part.strip().lower() in OLD_CONVENTION_NAMES:
            new = OLD_CONVENTION_NAMES[part.strip().lower()]
            print(f"{prog}: warning: --convention {part.strip()} is deprecated, the old name of {new}",
                  file=sys.stderr)
        else:
            check_choice(part, "--convention", CURRENT_CONVENTIONS)
        name = current_convention_name(part)
        if name not in names:
            names.append(name)
    return names
