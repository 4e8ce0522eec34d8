"""``rankselect log2letor LOG --engine opensearch|solr|vespa|elasticsearch --judgments QRELS
--out FILE [--names-out NAMES] [--unjudged drop|zero] [--missing VALUE] [--feature-names NAMES]``

Features logged by a search engine, with TREC judgments, as a LETOR file: the training data
of a model that the engine will score with its own values. LOG is JSON Lines, one object per
query, ``{"qid": ..., "response": <the engine's response to the logging query of
'rankselect export'>}``; QRELS is ``qid iteration docid relevance`` per line. ``--names-out``
writes the features' names, one per line, for ``select`` / ``train`` / ``export --names``.
A feature the engine logged as not matching is ``--missing`` (default ``nan``; ``0`` where the
deployed engine gives a non-match 0); Solr logs a non-match at its ``defaultValue`` already.
See ``rankselect.data.read_engine_log``.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from ..data import UNJUDGED, read_engine_log, save_letor
from ..data.engine_responses import ENGINE_LOGS
from .common import plural, reading, refuse_existing


def add_parser(sub) -> None:
    p = sub.add_parser(
        "log2letor",
        help="features logged by a search engine, with TREC judgments, as a LETOR file",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("log", metavar="LOG", help="JSON Lines: {\"qid\": ..., \"response\": ...} per query")
    p.add_argument("--engine", required=True, choices=ENGINE_LOGS, help="the engine whose responses LOG holds")
    p.add_argument("--judgments", required=True, metavar="QRELS", help="TREC qrels: qid iteration docid relevance")
    p.add_argument("--out", required=True, metavar="FILE", help="the LETOR file to write")
    p.add_argument("--names-out", metavar="NAMES", help="also write the features' names, one per line")
    p.add_argument("--unjudged", choices=UNJUDGED, default="drop",
                   help="a logged document without a judgment: drop it (default), or label it 0")
    p.add_argument("--missing", type=float, default=math.nan,
                   help="the value of a feature logged as not matching (default nan)")
    p.add_argument("--feature-names", metavar="NAMES",
                   help="the feature set's names in order, one per line (required for elasticsearch)")
    p.add_argument("--log-name", help="opensearch: the log to read when _ltrlog holds several")
    p.add_argument("--id-field", help="the document id's field (default _id; solr: id)")
    p.add_argument("--force", action="store_true", help="replace --out / --names-out if they exist")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    refuse_existing("--out", args.out, args.force)
    refuse_existing("--names-out", args.names_out, args.force)
    names = None
    if args.feature_names:
        with reading("--feature-names", args.feature_names), open(args.feature_names, encoding="utf-8") as f:
            names = [line.strip() for line in f if line.strip()]
    with reading("--judgments", args.judgments), open(args.judgments, encoding="utf-8"):
        pass
    with reading("LOG", args.log):
        data = read_engine_log(args.log, args.engine, args.judgments, unjudged=args.unjudged, feature_names=names,
                               missing=args.missing, log_name=args.log_name, id_field=args.id_field)
    save_letor(args.out, data)
    if args.names_out:
        bad = [s for s in data.feature_names or [] if "\n" in s or "\r" in s]
        if bad:
            raise ValueError(f"--names-out: the name {bad[0]!r} holds a line break (one name per line)")
        with open(args.names_out, "w", encoding="utf-8", newline="\n") as f:
            f.writelines(f"{s}\n" for s in data.feature_names or [])
    n_missing = int(np.isnan(data.X).sum())
    print(f"{args.out}: {plural(data.n_samples, 'row')}, {plural(data.n_queries, 'query', 'queries')}, "
          f"{plural(data.n_features, 'feature')} ({', '.join((data.feature_names or [])[:5])}"
          f"{' ...' if data.n_features > 5 else ''})" + (f"; {n_missing} values missing (nan)" if n_missing else ""))
    return 0
