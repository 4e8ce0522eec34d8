"""Subcommands of the ``rankselect`` CLI, one module each (see ``rankselect.cli``)."""


def plural(n: int, word: str, words: str = "") -> str:
    """``"1 feature"``, ``"2 features"`` (``words`` is the plural when not ``word + "s"``)."""
    return f"{n} {word if n == 1 else (words or word + 's')}"
