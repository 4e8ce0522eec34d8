"""The feature layouts of the LETOR benchmark sets, from their published feature lists.

Names only, no data. A layout is the ``(measure, stream)`` of every column, in file order
(:class:`Layout`); a column of no text stream (a document or query feature) has the stream
``None``. Built in (:data:`LAYOUTS`):

- ``"letor4"`` (MQ2007, MQ2008): 46 features, 8 measures (TF, IDF, TF*IDF, DL, BM25, LMIR.ABS,
  LMIR.DIR, LMIR.JM) over 5 streams (body, anchor, title, URL, whole document) - features
  1-40, **stream varying fastest** - then 6 document features (PageRank, inlink number,
  outlink number, number of slashes in the URL, URL length, number of child pages);
- ``"mslr"`` (MSLR-WEB10K / MSLR-WEB30K): 136 features, 25 measures over the same 5 streams
  (features 1-125, stream fastest) then 11 document and query-document features;
- ``"ohsumed"`` (LETOR 3.0 OHSUMED): 45 features, 15 measures (10 low-level term statistics,
  BM25, log BM25, LMIR.DIR, LMIR.JM, LMIR.ABS) over 3 fields (title, abstract,
  title+abstract), **field varying slowest** (1-15 title, 16-30 abstract, 31-45 both);
- ``"ohsumed-letor2"`` (LETOR 2.0 OHSUMED, ``../shared/data/OHSUMED-LETOR2``): 25 features, the
  10 low-level measures on the title (1-10) and on the abstract (11-20), then 5 high-level
  scores (BM25, log BM25, LMIR.DIR, LMIR.JM, LMIR.ABS; 21-25) whose field the data does not
  name (they are positive on documents without a query term in either field), so they are
  document features here. The fields of 1-20 are read from the data: ``tf / |d|`` gives field
  lengths of about 8 and 97 words, and the second field's term count is below the first's on
  13 % of the rows, so the second field is the abstract, not title+abstract.

:func:`feature_layout` groups the columns ``by="stream"`` (one group per stream, and one
``document`` group for the columns of no stream) or ``by="measure"`` (one group per measure
over its streams, each document feature a group of its own): the units in which extraction is
paid. A new layout is one :class:`Layout` entry in :data:`LAYOUTS` (:meth:`Layout.grid` for a
measures x streams grid in either order, plus the document features).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..feature_groups import FeatureGroups, check_feature_groups

__all__ = ["feature_layout", "Layout", "GROUPINGS", "LAYOUTS", "STREAMS"]

#: the five text streams of LETOR 4.0 and MSLR-WEB, in the order of the feature lists
STREAMS = ("body", "anchor", "title", "url", "whole document")

#: the name of the group of the columns of no stream (``by="stream"``)
DOCUMENT = "document"

#: the groupings of :func:`feature_layout` (its ``by``), the default first
GROUPINGS = ("stream", "measure")


@dataclass(frozen=True)
class Layout:
    """The published feature layout of a data set: the measure and the stream of every column.

    Parameters
    ----------
    cells : tuple of (str, str or None), one per column in file order
        ``(measure, stream)``; ``stream`` None for a document (or query) feature, whose
        measure is its name.
    source : str
        Where the list comes from.

    Examples
    --------
    >>> from rankselect.data.datasets import Layout
    >>> toy = Layout.grid(("BM25", "TF"), ("title", "body"), ("PageRank",), stream_fastest=False)
    >>> toy.cells
    (('BM25', 'title'), ('TF', 'title'), ('BM25', 'body'), ('TF', 'body'), ('PageRank', None))
    >>> toy.n_features, toy.streams, toy.feature_names[2]
    (5, ('title', 'body'), 'BM25 (body)')
    """

    cells: tuple[tuple[str, Optional[str]], ...]
    source: str = ""

    @classmethod
    def grid(cls, measures, streams, document=(), *, stream_fastest: bool = True, source: str = "") -> Layout:
        """Every measure over every stream (the stream varying fastest, LETOR 4.0's order, or
        slowest, LETOR 3.0 OHSUMED's), then the ``document`` features."""
        cells = [(m, s) for m in measures for s in streams] if stream_fastest else \
            [(m, s) for s in streams for m in measures]
        return cls(tuple(cells) + tuple((d, None) for d in document), source)

    @property
    def n_features(self) -> int:
        return len(self.cells)

    @property
    def streams(self) -> tuple[str, ...]:
        """The streams, in order of first column."""
        return tuple(dict.fromkeys(s for _, s in self.cells if s is not None))

    @property
    def feature_names(self) -> tuple[str, ...]:
        """``"measure (stream)"``, or the measure alone for a document feature."""
        return tuple(m if s is None else f"{m} ({s})" for m, s in self.cells)

    def groups(self, by: str = "stream") -> FeatureGroups:
        """The columns grouped ``by="stream"`` or ``by="measure"`` (module docstring)."""
        if by not in GROUPINGS:
            raise ValueError(f"by must be one of {GROUPINGS}, got {by!r}")
        labels = [(DOCUMENT if s is None else s) if by == "stream" else m for m, s in self.cells]
        groups = check_feature_groups(labels, len(labels))
        return FeatureGroups(groups.names, groups.index, self.feature_names)


_LETOR4_MEASURES = ("TF", "IDF", "TF*IDF", "DL", "BM25", "LMIR.ABS", "LMIR.DIR", "LMIR.JM")
_LETOR4_DOCUMENT = ("PageRank", "inlink number", "outlink number", "number of slash in URL",
                    "length of URL", "number of child page")

_MSLR_MEASURES = (
    "covered query term number", "covered query term ratio", "stream length", "IDF",
    "sum of term frequency", "min of term frequency", "max of term frequency",
    "mean of term frequency", "variance of term frequency",
    "sum of stream length normalized term frequency", "min of stream length normalized term frequency",
    "max of stream length normalized term frequency", "mean of stream length normalized term frequency",
    "variance of stream length normalized term frequency",
    "sum of tf*idf", "min of tf*idf", "max of tf*idf", "mean of tf*idf", "variance of tf*idf",
    "boolean model", "vector space model", "BM25", "LMIR.ABS", "LMIR.DIR", "LMIR.JM",
)
_MSLR_DOCUMENT = ("number of slash in URL", "length of URL", "inlink number", "outlink number", "PageRank",
                  "SiteRank", "QualityScore", "QualityScore2", "query-url click count", "url click count",
                  "url dwell time")

#: LETOR's low-level OHSUMED measures (sums over the query terms ``q_i`` in the document
#: ``d``; ``tf`` in the field, ``|d|`` its length, ``C`` the collection), then the high-level ones
_OHSUMED_LOW = ("sum tf", "sum log(tf + 1)", "sum tf/|d|", "sum log(tf/|d| + 1)", "sum log(|C|/df)",
                "sum log(log(|C|/df))", "sum log(|C|/tf(C) + 1)", "sum log(tf/|d| log(|C|/df) + 1)",
                "sum tf log(|C|/df)", "sum log(tf/|d| |C|/tf(C) + 1)")
_OHSUMED_HIGH = ("BM25", "log(BM25)", "LMIR.DIR", "LMIR.JM", "LMIR.ABS")

#: layout name -> :class:`Layout`
LAYOUTS: dict[str, Layout] = {
    "letor4": Layout.grid(_LETOR4_MEASURES, STREAMS, _LETOR4_DOCUMENT, source="LETOR 4.0 feature list (MQ2007/MQ2008)"),
    "mslr": Layout.grid(_MSLR_MEASURES, STREAMS, _MSLR_DOCUMENT, source="MSLR-WEB10K/30K feature list"),
    "ohsumed": Layout.grid(_OHSUMED_LOW + _OHSUMED_HIGH, ("title", "abstract", "title+abstract"),
                           stream_fastest=False, source="LETOR 3.0 OHSUMED feature list"),
    "ohsumed-letor2": Layout.grid(_OHSUMED_LOW, ("title", "abstract"), _OHSUMED_HIGH, stream_fastest=False,
                                  source="LETOR 2.0 OHSUMED (25 features; fields read from the data)"),
}
_ALIASES = {"mq2007": "letor4", "mq2008": "letor4", "letor4.0": "letor4", "mslr-web10k": "mslr",
            "mslr-web30k": "mslr", "mslr-web": "mslr", "ohsumed-letor3": "ohsumed", "letor3-ohsumed": "ohsumed",
            "letor2-ohsumed": "ohsumed-letor2"}


def feature_layout(name: str, by: str = "stream") -> FeatureGroups:
    """The published feature layout of a LETOR benchmark set, grouped by stream or by measure.

    Parameters
    ----------
    name : {"letor4", "mslr", "ohsumed", "ohsumed-letor2"}
        ``"letor4"`` (also ``"mq2007"``, ``"mq2008"``): 46 features; ``"mslr"`` (also
        ``"mslr-web10k"``, ``"mslr-web30k"``): 136 features; ``"ohsumed"`` (LETOR 3.0): 45
        features; ``"ohsumed-letor2"``: 25 features (module docstring).
    by : {"stream", "measure"}
        ``"stream"``: one group per stream (LETOR 4.0: ``body``, ``anchor``, ``title``,
        ``url``, ``whole document``; OHSUMED: ``title``, ``abstract``, ``title+abstract``) and
        ``document`` (the features of no stream); ``"measure"``: one group per measure
        (``BM25`` holds BM25 over every stream), each document feature a group of its own.

    Returns
    -------
    FeatureGroups
        With ``feature_names`` such as ``"BM25 (title)"``; columns 0-based.

    Examples
    --------
    >>> from rankselect.data.datasets import feature_layout
    >>> g = feature_layout("letor4", by="stream")
    >>> g.names
    ('body', 'anchor', 'title', 'url', 'whole document', 'document')
    >>> g.members(2).tolist()  # title: TF, IDF, TF*IDF, DL, BM25, LMIR.ABS, LMIR.DIR, LMIR.JM
    [2, 7, 12, 17, 22, 27, 32, 37]
    >>> g.feature_names[22]
    'BM25 (title)'
    >>> o = feature_layout("ohsumed", by="measure")  # 15 measures x 3 fields, field slowest
    >>> o.n_groups, o.members(o.group_id("BM25")).tolist()
    (15, [10, 25, 40])
    """
    key = _ALIASES.get(str(name).lower(), str(name).lower())
    if key not in LAYOUTS:
        raise ValueError(f"unknown layout {name!r}; known: {sorted(LAYOUTS)} (aliases {sorted(_ALIASES)})")
    return LAYOUTS[key].groups(by)
