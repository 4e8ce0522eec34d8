"""Names as the engines and the libraries take them.

- :func:`check_set_name`: the feature set's / model's name goes into URLs, file names and
  shell scripts: a safe alphabet only (``A-Z a-z 0-9 _ . -``, 1 to 64 characters, not
  starting with ``.`` or ``-``), anything else refused with one line;
- :func:`lightgbm_name`: the name LightGBM stores for a feature (it writes a space as ``_``
  and refuses the JSON specials ``" , : [ ] { }``): ``rankselect train`` trains under it and
  the export maps the model's names back to the set's by position (XGBoost's likewise,
  :func:`stored_names`);
- :func:`check_feature_names`: the set's names are unique and non-empty.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["MAX_NAME", "check_set_name", "lightgbm_name", "lightgbm_names", "stored_names", "check_feature_names"]

#: the longest feature set / model name (a file name, a URL segment)
MAX_NAME = 64
_SAFE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\Z")
#: what LightGBM refuses in a feature name (``Common::CheckAllowedJSON``) or cannot store on
#: its one ``feature_names=`` line (a space separates the names)
_LIGHTGBM_UNSAFE = re.compile(r'[",:\[\]{}\s\x00-\x1f\x7f]')
#: what XGBoost refuses in a feature name
_XGBOOST_UNSAFE = re.compile(r"[\[\]<]")


def _short(text: str, limit: int = 40) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f" ... ({len(text)} characters)"


def check_set_name(name) -> str:
    """``name`` if it is a safe feature set / model name, else a ValueError.

    Examples
    --------
    >>> from rankselect.deploy.names import check_set_name
    >>> check_set_name("mq2008_v2")
    'mq2008_v2'
    >>> check_set_name("a?b")
    Traceback (most recent call last):
    ...
    ValueError: name 'a?b': a feature set / model name goes into URLs, file names and shell scripts: use 1 to 64 \
characters of A-Z a-z 0-9 _ . - (not starting with . or -)
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    if not _SAFE.match(name) or len(name) > MAX_NAME:
        raise ValueError(f"name {_short(name)}: a feature set / model name goes into URLs, file names and shell "
                         f"scripts: use 1 to {MAX_NAME} characters of A-Z a-z 0-9 _ . - (not starting with . or -)")
    return name


def lightgbm_name(name: str) -> str:
    """The name LightGBM can store for feature ``name``: spaces (as LightGBM does), other
    white space and control characters, and the JSON specials it refuses become ``_``.

    Examples
    --------
    >>> from rankselect.deploy.names import lightgbm_name
    >>> lightgbm_name("LMIR.JM (url)"), lightgbm_name('a:"b"')
    ('LMIR.JM_(url)', 'a__b_')
    """
    return _LIGHTGBM_UNSAFE.sub("_", name)


def lightgbm_names(names: Sequence[str]) -> list[str]:
    """:func:`lightgbm_name` of each (the order kept: the export maps them back by position).

    Examples
    --------
    >>> from rankselect.deploy.names import lightgbm_names
    >>> lightgbm_names(["BM25 (title)", "pagerank"])
    ['BM25_(title)', 'pagerank']
    """
    return [lightgbm_name(s) for s in names]


def stored_names(library: str, names: Sequence[str]) -> list[str]:
    """The names ``library`` can store for ``names``: LightGBM's (:func:`lightgbm_name`), or
    XGBoost's (it refuses ``[``, ``]`` and ``<``: they become ``_``).

    Examples
    --------
    >>> from rankselect.deploy.names import stored_names
    >>> stored_names("xgboost", ["a[1]", "b c"]), stored_names("lightgbm", ["a[1]", "b c"])
    (['a_1_', 'b c'], ['a_1_', 'b_c'])
    """
    if library == "lightgbm":
        return lightgbm_names(names)
    return [_XGBOOST_UNSAFE.sub("_", s) for s in names]


def check_feature_names(names: Sequence[str], what: str = "feature_names") -> list[str]:
    """The names as a list of str, or a ValueError naming the empty or repeated ones.

    Examples
    --------
    >>> from rankselect.deploy.names import check_feature_names
    >>> check_feature_names(["bm25", "bm25"])
    Traceback (most recent call last):
    ...
    ValueError: feature_names repeats 'bm25': the engines find features by name
    """
    out = [str(s) for s in names]
    empty = [i + 1 for i, s in enumerate(out) if not s.strip()]
    if empty:
        raise ValueError(f"{what}: name {empty[0]} is empty")
    seen: set[str] = set()
    dup = []
    for s in out:
        if s in seen and s not in dup:
            dup.append(s)
        seen.add(s)
    if dup:
        shown = ", ".join(_short(s) for s in dup[:5]) + (f" ... ({len(dup)} names)" if len(dup) > 5 else "")
        raise ValueError(f"{what} repeats {shown}: the engines find features by name")
    return out
