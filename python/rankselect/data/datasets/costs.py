"""Published feature costs of the LETOR benchmark sets: the MSLR-WEB cost tiers of Gallagher,
Chen, Culpepper, Moffat et al. (WSDM 2019, "Joint optimization of cascade ranking models"),
the file ``exp/mslr/costs.txt`` of https://github.com/rmit-ir/joint-cascade-ranking (MIT
licence): a cost of 1, 10, 20, 50 or 100 per feature per document, set by the measure and the
stream it reads.

The other layouts take the tier of the MSLR feature of the same (measure, stream)
(:func:`feature_costs`): LETOR 4.0's measures are MSLR's under other names (TF -> sum of term
frequency, TF*IDF -> sum of tf*idf, DL -> stream length; IDF, BM25, LMIR.* as named) over the
same streams, its document features cost 1; OHSUMED's fields map to MSLR streams (title ->
title, abstract -> body, title+abstract and the scores of no field -> whole document) and its
measures to MSLR's (the tf ones -> sum of term frequency, the ``tf/|d|`` ones -> sum of stream
length normalized term frequency, the idf-type ones -> IDF, the tf*idf-type ones -> sum of
tf*idf, BM25 and log(BM25) -> BM25, LMIR.* -> LMIR.*).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .layouts import _ALIASES, _MSLR_MEASURES, LAYOUTS, STREAMS

__all__ = ["feature_costs", "MSLR_TIERS", "COST_SOURCE"]

COST_SOURCE = ("Gallagher et al., WSDM 2019: rmit-ir/joint-cascade-ranking exp/mslr/costs.txt (MIT licence), "
               "the MSLR-WEB cost tiers")

#: MSLR measure -> its cost per document on each stream of :data:`~.layouts.STREAMS`
#: (body, anchor, title, url, whole document); MSLR's 11 document features cost 1
MSLR_TIERS: dict[str, tuple[int, int, int, int, int]] = {
    **{m: (50, 20, 10, 10, 50) for m in ("covered query term number", "covered query term ratio")},
    "stream length": (1, 1, 1, 1, 1),
    "IDF": (50, 50, 20, 20, 50),
    **{m: (20, 20, 10, 10, 20) for m in _MSLR_MEASURES[4:14]},  # the term-frequency statistics
    **{m: (50, 20, 10, 10, 50) for m in _MSLR_MEASURES[14:20]},  # tf*idf statistics, boolean model
    **{m: (100, 50, 10, 10, 100) for m in _MSLR_MEASURES[20:]},  # vector space, BM25, LMIR.*
}

_LETOR4_MEASURES = {"TF": "sum of term frequency", "TF*IDF": "sum of tf*idf", "DL": "stream length"}
_OHSUMED_MEASURES = {
    "sum tf": "sum of term frequency", "sum log(tf + 1)": "sum of term frequency",
    "sum tf/|d|": "sum of stream length normalized term frequency",
    "sum log(tf/|d| + 1)": "sum of stream length normalized term frequency",
    "sum log(|C|/df)": "IDF", "sum log(log(|C|/df))": "IDF", "sum log(|C|/tf(C) + 1)": "IDF",
    "sum log(tf/|d| log(|C|/df) + 1)": "sum of tf*idf", "sum tf log(|C|/df)": "sum of tf*idf",
    "sum log(tf/|d| |C|/tf(C) + 1)": "sum of tf*idf", "log(BM25)": "BM25",
}
_OHSUMED_STREAMS = {"title": "title", "abstract": "body", "title+abstract": "whole document", None: "whole document"}


def _tier(measure: str, stream: Optional[str]) -> float:
    tiers = MSLR_TIERS[measure]
    return float(tiers[STREAMS.index(stream if stream is not None else "whole document")])


def feature_costs(layout: str) -> np.ndarray:
    """The cost per document of every feature of a LETOR benchmark set (module docstring):
    the MSLR-WEB tiers 1 / 10 / 20 / 50 / 100 of the WSDM 2019 cost file, mapped by (measure,
    stream).

    Parameters
    ----------
    layout : {"letor4", "mslr", "ohsumed-letor2", "ohsumed"}
        A layout of :func:`~rankselect.data.datasets.feature_layout` (or one of its aliases:
        ``"mq2008"``, ``"mslr-web10k"``, ...).

    Returns
    -------
    ndarray of shape (n_features,)
        In file order (column ``j`` is feature ``j + 1``).

    Examples
    --------
    >>> from rankselect.data.datasets import feature_costs
    >>> feature_costs("ohsumed-letor2").tolist()[:10]  # the title's low-level measures
    [10.0, 10.0, 10.0, 10.0, 20.0, 20.0, 20.0, 10.0, 10.0, 10.0]
    >>> feature_costs("ohsumed-letor2")[20:].tolist()  # BM25, log(BM25), LMIR.*: whole document
    [100.0, 100.0, 100.0, 100.0, 100.0]
    >>> feature_costs("mq2008")[[0, 20, 40]].tolist()  # TF (body), BM25 (body), PageRank
    [20.0, 100.0, 1.0]
    """
    key = _ALIASES.get(str(layout).lower(), str(layout).lower())
    if key not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; known: {sorted(LAYOUTS)} (aliases {sorted(_ALIASES)})")
    out = []
    for measure, stream in LAYOUTS[key].cells:
        if key in ("ohsumed", "ohsumed-letor2"):
            out.append(_tier(_OHSUMED_MEASURES.get(measure, measure), _OHSUMED_STREAMS[stream]))
        elif stream is None:  # LETOR 4.0's and MSLR's document features
            out.append(1.0)
        else:
            out.append(_tier(_LETOR4_MEASURES.get(measure, measure), stream))
    return np.asarray(out, dtype=float)
