"""Redraw docs/figures from the stored reproduction results, without re-running them.

    python benches/reproduction_figures.py [--data ../shared/data] [--docs docs]

Reads docs/reproduction_mq2008.json and docs/reproduction_ohsumed.json (written by
benches/reproduce_mq2008.py) and writes docs/figures/<tag>_*.png with
``rankselect.plotting.save_experiment_figures``; the single-feature and Kendall figures read
the data (fold 1) from ``--data``.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = {"mq2008": ("reproduction_mq2008.json", "MQ2008"), "ohsumed": ("reproduction_ohsumed.json", "OHSUMED-LETOR2")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--docs", default=str(ROOT / "docs"))
    args = ap.parse_args(argv)
    from rankselect import plotting

    docs = Path(args.docs)
    figdir = docs / "figures"
    for tag, (name, folder) in SETS.items():
        stored = docs / name
        if not stored.is_file():
            print(f"skip {tag}: {stored} not found", file=sys.stderr)
            continue
        result = json.loads(stored.read_text())
        result["data_dir"] = str(Path(args.data) / folder)
        with tempfile.TemporaryDirectory() as tmp:
            for p in plotting.save_experiment_figures(result, tmp):
                target = figdir / f"{tag}_{p.name}"
                target.write_bytes(p.read_bytes())
                print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
