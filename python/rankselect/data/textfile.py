"""The small text files a user writes by hand (group files, cost files): read once, the same way.

UTF-8 text (a byte-order mark, which spreadsheet programs write, is skipped); ``#`` and the
rest of its line are a comment, as in LETOR files; blank lines are skipped; a line ends at
LF, CRLF or CR. Every problem is one :class:`ValueError` naming the file and the line: a byte
that is not UTF-8 (a Latin-1 ``é``), a field longer than :func:`csv.field_size_limit`, a quote
not closed on its line.
"""
from __future__ import annotations

import codecs
import csv
from collections.abc import Iterator
from pathlib import Path
from typing import Union

__all__ = ["text_lines", "csv_lines"]


def text_lines(path: Union[str, Path]) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of the lines of ``path`` that hold more than a comment, the
    comment cut off and the text stripped.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rankselect.data.textfile import text_lines
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "costs.csv"
    ...     _ = path.write_bytes(b"\\xef\\xbb\\xbf# costs\\n1.5  # BM25\\n\\n2\\n")
    ...     list(text_lines(path))
    [(2, '1.5'), (4, '2')]
    """
    p = Path(path)
    data = p.read_bytes()
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    for lineno, raw in enumerate(data.splitlines(), start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{p}, line {lineno}: not UTF-8 text (byte {raw[exc.start]:#04x} at column "
                             f"{exc.start + 1}); save the file as UTF-8") from None
        text = text.split("#", 1)[0].strip()
        if text:
            yield lineno, text


def csv_lines(path: Union[str, Path]) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of the CSV lines of ``path`` (:func:`text_lines`; fields
    stripped; a quoted field, ``"body, title"``, may hold commas but not a line break).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from rankselect.data.textfile import csv_lines
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = pathlib.Path(d) / "groups.csv"
    ...     _ = path.write_text('1,body # TF\\n2,"body, title"\\n')
    ...     list(csv_lines(path))
    [(1, ['1', 'body']), (2, ['2', 'body, title'])]
    """
    for lineno, text in text_lines(path):
        try:
            row = next(csv.reader([text], strict=True))
        except csv.Error as exc:
            reason = (f"a field longer than {csv.field_size_limit()} characters" if "field limit" in str(exc) else
                      "a quote that is not closed on its line" if "end of data" in str(exc) else
                      f"not a CSV line ({exc})")
            raise ValueError(f"{path}, line {lineno}: {reason}") from None
        yield lineno, [c.strip() for c in row]
