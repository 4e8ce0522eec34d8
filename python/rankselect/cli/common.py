"""Wording shared by the subcommands of the ``rankselect`` command line."""

__all__ = ["plural"]


def plural(n: int, word: str, words: str = "") -> str:
    """``"1 feature"``, ``"2 features"`` (``words`` is the plural when not ``word + "s"``).

    Examples
    --------
    >>> from rankselect.cli.common import plural
    >>> plural(1, "feature"), plural(3, "query", "queries")
    ('1 feature', '3 queries')
    """
    return f"{n} {word if n == 1 else (words or word + 's')}"
