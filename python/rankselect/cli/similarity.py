"""``rankselect similarity TRAIN --out sim.npy [--variant geng|tau_b] [--absolute] [--plot sim.png]``

Kendall-tau similarity matrix of the features of a LETOR file (per query, averaged over
queries; see ``rankselect.kendall_similarity``), saved with ``numpy.save``. ``--plot``
also draws it as a heat map (needs matplotlib: ``pip install "rankselect[plot]"``);
features are numbered as in the file (1-based).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from .. import plotting
from ..data import constant_columns, load_letor
from ..selection.similarity import kendall_similarity
from .common import refuse_existing


def add_parser(sub) -> None:
    p = sub.add_parser(
        "similarity",
        help="Kendall-tau similarity matrix of the features (and a heat map)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("train", metavar="TRAIN", help="LETOR/SVMlight file (.gz ok)")
    p.add_argument("--out", required=True, metavar="SIM.npy", help="where to save the (n, n) matrix (.npy)")
    p.add_argument("--variant", default="geng", choices=["geng", "tau_b"],
                   help="geng: concordant pairs / all pairs (Geng et al. 2007); tau_b: Kendall's tau-b")
    p.add_argument("--absolute", action="store_true",
                   help="compare each feature with the other or its negation, whichever is closer")
    p.add_argument("--plot", metavar="SIM.png", help="also save a heat map (needs matplotlib)")
    p.add_argument("--force", action="store_true", help="replace --out / --plot if they exist")
    p.set_defaults(handler=run)


def _npy_path(path: str) -> str:
    """The file ``np.save`` writes: ``path``, with ``.npy`` appended when it lacks it."""
    return path if path.endswith(".npy") else path + ".npy"


def run(args: argparse.Namespace) -> int:
    refuse_existing("--out", _npy_path(args.out), args.force)
    refuse_existing("--plot", args.plot, args.force)
    if args.plot:
        # Fail before the computation when the optional extra is missing.
        try:
            plotting.require_matplotlib()
        except ImportError as exc:
            print(f"rankselect similarity: error: {exc}", file=sys.stderr)
            return 2
    data = load_letor(args.train)
    sim = kendall_similarity(data.X, data.qid, variant=args.variant, absolute=args.absolute)
    np.save(_npy_path(args.out), sim)
    print(f"saved {sim.shape[0]} x {sim.shape[1]} {args.variant} similarity to {_npy_path(args.out)}")
    if args.plot:
        constant = np.flatnonzero(constant_columns(data.X))
        title = f"{Path(args.train).name}: Kendall similarity ({args.variant}{', absolute' if args.absolute else ''})"
        label = plotting.SIMILARITY_LABELS[args.variant] + (" (feature or its negation)" if args.absolute else "")
        ax = plotting.plot_similarity(sim, title=title, colorbar_label=label, hide=constant)
        ax.figure.savefig(args.plot, dpi=150, bbox_inches="tight")
        print(f"saved heat map to {args.plot}")
    return 0
