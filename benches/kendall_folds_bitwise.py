"""Kendall similarity of two builds, bit for bit, on the five MQ2008 folds (train, vali, test).

Every variant (``geng``, ``tau_b``), ``absolute`` and algorithm (``auto``, ``bitset``,
``merge``) of the build under test is compared with the reference build's ``auto``
result (all must be the same bytes)::

    python benches/kendall_folds_bitwise.py --build main=/work/mainbuild --build new=python

The first ``--build`` is the reference; ``DIR/rankselect`` is each build's package.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from kendall_interleaved import load_build  # noqa: E402

DATA = HERE.parent.parent / "shared" / "data" / "MQ2008"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", action="append", required=True, help="NAME=DIR; the first is the reference")
    args = ap.parse_args()
    builds = [(n, load_build(n, d)) for n, d in (b.split("=", 1) for b in args.build)]
    ref = builds[0][1]
    bad = 0
    checked = 0
    for fold in range(1, 6):
        for part in ("train", "vali", "test"):
            d = ref.load_letor(DATA / f"Fold{fold}" / f"{part}.txt")
            for variant in ("geng", "tau_b"):
                for absolute in (False, True):
                    want = ref.kendall_similarity(d.X, d.qid, variant, absolute).tobytes()
                    for name, m in builds[1:]:
                        for algorithm in ("auto", "bitset", "merge"):
                            got = m.kendall_similarity(d.X, d.qid, variant, absolute, algorithm=algorithm)
                            checked += 1
                            if got.tobytes() != want:
                                bad += 1
                                print(f"DIFFERENT: Fold{fold}/{part} {variant} absolute={absolute} "
                                      f"{name} {algorithm}")
    print(f"{checked} matrices compared, {bad} different")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
