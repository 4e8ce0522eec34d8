"""The feature layouts of the LETOR benchmark sets, from their published feature lists.

Names only, no data. LETOR 4.0 (MQ2007, MQ2008): 46 features, 8 measures (TF, IDF, TF*IDF,
DL, BM25, LMIR.ABS, LMIR.DIR, LMIR.JM) over 5 streams (body, anchor, title, URL, whole
document) - features 1-40, stream varying fastest - then 6 document features (PageRank,
inlink number, outlink number, number of slashes in the URL, URL length, number of child
pages). MSLR-WEB10K / MSLR-WEB30K: 136 features, 25 measures over the same 5 streams
(features 1-125) then 11 document and query-document features (slashes, URL length, inlinks,
outlinks, PageRank, SiteRank, QualityScore, QualityScore2, query-URL clicks, URL clicks, URL
dwell time).

:func:`feature_layout` groups them ``by="stream"`` (the 5 streams, and one ``document`` group
for the features that belong to no stream) or ``by="measure"`` (one group per measure, each
document feature its own group): the units in which extraction is paid.
"""
from __future__ import annotations

from ..feature_groups import FeatureGroups, check_feature_groups

__all__ = ["feature_layout", "GROUPINGS", "LAYOUTS", "STREAMS"]

#: the five text streams of LETOR 4.0 and MSLR-WEB, in the order of the feature lists
STREAMS = ("body", "anchor", "title", "url", "whole document")

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

#: the groupings of :func:`feature_layout` (its ``by``), the default first
GROUPINGS = ("stream", "measure")

#: layout name -> (measures over the 5 streams, document features)
LAYOUTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "letor4": (_LETOR4_MEASURES, _LETOR4_DOCUMENT),
    "mslr": (_MSLR_MEASURES, _MSLR_DOCUMENT),
}
_ALIASES = {"mq2007": "letor4", "mq2008": "letor4", "letor4.0": "letor4", "mslr-web10k": "mslr",
            "mslr-web30k": "mslr", "mslr-web": "mslr"}


def feature_layout(name: str, by: str = "stream") -> FeatureGroups:
    """The published feature layout of a LETOR benchmark set, grouped by stream or by measure.

    Parameters
    ----------
    name : {"letor4", "mslr"}
        ``"letor4"`` (also ``"mq2007"``, ``"mq2008"``): 46 features; ``"mslr"`` (also
        ``"mslr-web10k"``, ``"mslr-web30k"``): 136 features.
    by : {"stream", "measure"}
        ``"stream"``: groups ``body``, ``anchor``, ``title``, ``url``, ``whole document`` and
        ``document`` (the features of no stream); ``"measure"``: one group per measure (``BM25``
        holds BM25 over the 5 streams), each document feature a group of its own.

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
    """
    key = _ALIASES.get(str(name).lower(), str(name).lower())
    if key not in LAYOUTS:
        raise ValueError(f"unknown layout {name!r}; known: {sorted(LAYOUTS)} (aliases {sorted(_ALIASES)})")
    if by not in GROUPINGS:
        raise ValueError(f"by must be one of {GROUPINGS}, got {by!r}")
    measures, document = LAYOUTS[key]
    feature_names: list[str] = []
    labels: list[str] = []
    for m in measures:
        for s in STREAMS:
            feature_names.append(f"{m} ({s})")
            labels.append(s if by == "stream" else m)
    for d in document:
        feature_names.append(d)
        labels.append("document" if by == "stream" else d)
    groups = check_feature_groups(labels, len(labels))
    return FeatureGroups(groups.names, groups.index, tuple(feature_names))
