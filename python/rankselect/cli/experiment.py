"""``rankselect experiment DATA_DIR --method M [--method M2 ...] [options]``

Runs the LETOR protocol on DATA_DIR/Fold*/{train,vali,test}.txt: for every fold, fits
every grid point on train, keeps the best by validation MAP (``--metric``), evaluates it
on test. Prints the table of test means over the folds; with ``--out DIR`` writes
``experiment.json`` and ``experiment.md`` (per-fold tables, chosen hyperparameters,
selected features numbered as in the file, skipped degenerate grid points, paired
t-tests) and, with ``--plots``, PNG figures.

Methods: {methods}. Fixed options
follow a colon: ``--method sparse-ranksvm:penalty=log``, ``--method gas:ranker=ranksvm``;
``rfe`` and ``forward`` take every option of ``select``: ``--method
forward:ranker=lightgbm,candidates=greedy-rankrls,n_candidates=15,seed=1`` (``ranker``:
linear - RankRLS over the alpha grid, the default -, lightgbm, xgboost, catboost, ranksvm;
``scoring``, ``candidates``, ``n_candidates``, ``seed``, ``floating``, ``step``, ``drop_by``).
``--measure M`` (repeatable: map, ndcg@k, err@k, p@k, meanndcg; default map and ndcg@10)
keeps the paths' per-query scores in those measures too, for ``rankselect report --measure``.
Grids: ``--grid greedy-rankrls:alpha=2^-3,2^0,2^3`` or ``--grid greedy-rankrls:k=1,2,3``
(repeatable; values may be written 2^e).

``--fsa-grid`` runs the FSA subset grid instead (Gigli et al. 2016: keep 5, 10, 20, 30, 40,
50 and 75 % of the features with each selector, retrain, report test NDCG@10 with a linear
ranker and, where installed, LightGBM; ``--cache FILE`` makes it resumable).

With ``--out DIR``, each fold's results are written as the fold finishes: Ctrl-C keeps the
finished folds there (without ``--out``, their table is printed) and says which ``--folds``
are left to run.

``--jobs N`` bounds the threads: it sets RAYON_NUM_THREADS for the Rust core before the
first kernel runs, and limits the BLAS threads with threadpoolctl.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .. import plotting
from ..methods import METHODS
from ..protocol import run as run_protocol
from ..protocol.fsa_grid import fsa_grid
from ..protocol.runner import parse_value
from .common import add_convention_argument, conventions_of, plural

__doc__ = (__doc__ or "").replace("{methods}", ", ".join(METHODS))  # every method of the registry


def add_parser(sub) -> None:
    p = sub.add_parser(
        "experiment",
        help="run the LETOR protocol (grid on train, select on vali, report test) for one or more methods",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("data_dir", metavar="DATA_DIR", help="folder holding Fold1..Fold5/{train,vali,test}.txt")
    p.add_argument("--method", action="append", required=True, metavar="METHOD",
                   help=f"method to run (repeatable): {', '.join(METHODS)}; "
                        "options after a colon, e.g. sparse-ranksvm:penalty=log")
    p.add_argument("--grid", action="append", default=[], metavar="METHOD:PARAM=V1,V2",
                   help="override one grid parameter of a method (repeatable)")
    p.add_argument("--metric", default="map",
                   help="validation metric for model selection (map, ndcg@10, p@10, meanndcg)")
    p.add_argument("--measure", action="append", metavar="MEASURE",
                   help="a measure of the per-query paths the report decides on (repeatable: map, ndcg@k, err@k, "
                        "p@k, meanndcg; default map and ndcg@10, beside the --metric)")
    add_convention_argument(p, "letor")  # letor: Eval-Score-4.0
    p.add_argument("--folds", metavar="I,J", help="run only these folds (1-based, comma separated)")
    p.add_argument("--out", metavar="DIR", help="write experiment.json, experiment.md (and PNGs with --plots) here")
    p.add_argument("--plots", action="store_true", help="with --out: also write PNG figures (needs matplotlib)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress (a tqdm bar, or without tqdm one line per fold and method on stderr)")
    p.add_argument("--jobs", type=int, metavar="N", help="bound the number of threads")
    p.add_argument("--fsa-grid", action="store_true",
                   help="the FSA subset grid instead: keep 5..75%% of the features with each selector, report "
                        "test NDCG@10 of a linear ranker and LightGBM (rankselect.protocol.fsa_grid)")
    p.add_argument("--rankers", default="linear,lightgbm", help="with --fsa-grid: downstream rankers")
    p.add_argument("--cache", metavar="FILE.jsonl", help="with --fsa-grid: resumable results file")
    p.set_defaults(handler=run)


def parse_grid(items) -> dict:
    """``["m:p=1,2", "m:q=3"]`` -> ``{"m": {"p": [1, 2], "q": [3]}}``."""
    grid: dict = {}
    for item in items:
        method, sep, rest = item.rpartition(":")
        param, eq, values = rest.partition("=")
        if not sep or not method or not eq or not param or not values:
            raise ValueError(f"--grid {item!r}: expected METHOD:PARAM=V1,V2,...")
        grid.setdefault(method, {})[param.strip()] = [parse_value(v.strip()) for v in values.split(",") if v.strip()]
    return grid


def run(args: argparse.Namespace) -> int:
    if args.jobs is not None:
        if args.jobs < 1:
            raise ValueError(f"--jobs must be >= 1, got {args.jobs}")
        os.environ["RAYON_NUM_THREADS"] = str(args.jobs)  # before the first kernel call
    folds = None
    if args.folds:
        try:
            folds = [int(s) for s in args.folds.split(",") if s.strip()]
        except ValueError:
            raise ValueError(f"--folds must be comma-separated integers, got {args.folds!r}") from None
    if args.plots and not args.out:
        raise ValueError("--plots needs --out DIR")
    if args.out:
        _check_out(Path(args.out))  # before any fit: a bad --out fails in seconds, not after the last fold
    if args.plots:
        # Fail before the computation when the optional extra is missing.
        try:
            plotting.require_matplotlib()
        except ImportError as exc:
            raise ValueError(f"--plots: {exc}") from None
    if args.fsa_grid:
        return _run_fsa(args, folds)
    convention = conventions_of(args.convention, "rankselect experiment")[0]
    finished: list = []  # the result of the folds finished so far

    def save(partial) -> None:
        finished[:] = [partial]
        if args.out:
            _write(partial, Path(args.out))

    try:
        res = run_protocol(
            args.data_dir, args.method, grid=parse_grid(args.grid), metric=args.metric,
            convention=convention, jobs=args.jobs, progress=not args.quiet, folds=folds, on_fold=save,
            measures=args.measure or ("map", "ndcg@10"),
        )
    except KeyboardInterrupt:
        _report_interrupted(args, folds, finished[0] if finished else None)
        raise
    print(f"# {args.data_dir}: test means over {plural(len(res.folds), 'fold')} (selection by validation {res.metric}, "
          f"{res.convention} conventions)")
    print(res.table())
    if args.out:
        out = Path(args.out)
        written = _write(res, out)
        if args.plots:
            written += plotting.save_experiment_figures(res, out)
        for p in written:
            print(f"wrote {p}", file=sys.stderr)
    return 0


def _check_out(out: Path) -> None:
    """``--out`` must be a folder (made when the first fold finishes): an existing file, or a
    file on its way, is refused before any fit."""
    for p in (out, *out.parents):
        if p.exists():
            if not p.is_dir():
                raise ValueError(f"--out {out}: {p} is a file, not a folder: give a folder for experiment.json and "
                                 "experiment.md")
            break


def _write(res, out: Path) -> list[Path]:
    """experiment.json and experiment.md of ``res`` in ``out`` (written whole each time)."""
    out.mkdir(parents=True, exist_ok=True)
    res.to_json(out / "experiment.json")
    (out / "experiment.md").write_text(res.to_markdown())
    return [out / "experiment.json", out / "experiment.md"]


def _report_interrupted(args: argparse.Namespace, folds, partial) -> None:
    """After Ctrl-C: what was kept, and the ``--folds`` left to run."""
    asked = folds if folds is not None else [1, 2, 3, 4, 5]  # the five LETOR folds (load_letor_folds)
    done = asked[: len(partial.folds)] if partial is not None else []
    left = ",".join(str(i) for i in asked[len(done):])
    err = sys.stderr
    if not done:
        print("rankselect experiment: interrupted before the first fold finished; nothing was saved", file=err)
        return
    where = f"saved in {Path(args.out) / 'experiment.json'}" if args.out else "their table follows"
    print(f"rankselect experiment: interrupted; fold(s) {','.join(map(str, done))} finished, {where}; "
          f"to run the rest: --folds {left}" + (" with another --out" if args.out else ""), file=err)
    if not args.out:
        print(partial.table())


def _run_fsa(args: argparse.Namespace, folds) -> int:
    rankers = [r.strip() for r in args.rankers.split(",") if r.strip()]
    res = fsa_grid(args.data_dir, args.method, folds=folds, rankers=rankers, cache=args.cache,
                   progress=not args.quiet)
    for ranker in dict.fromkeys(r["ranker"] for r in res.rows):
        print(f"# {args.data_dir}: test NDCG@10 (letor), {ranker} ranker, mean over folds")
        print(res.table(ranker))
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "fsa_grid.json").write_text(json.dumps(res.rows))
        print(f"wrote {out / 'fsa_grid.json'}", file=sys.stderr)
    return 0
