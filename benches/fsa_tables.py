"""The FSA subset grid tables (docs/filters.md) from the resumable caches of

    rankselect experiment /path/MQ2008 --fsa-grid --method greedy-rankrls --method gas \\
        --method ngas --method xgas --method hcas --method sparse-ranksvm \\
        --cache benches/fsa/MQ2008.jsonl
    (the same with --method greedy-rankrls:floating=true, and for OHSUMED-LETOR2)

Prints one table per data set and downstream ranker (mean test NDCG@10 over the folds).
"""
from __future__ import annotations

import json
from pathlib import Path

from rankselect.protocol.fsa_grid import FSAGridResult, fsa_sizes

ROOT = Path(__file__).resolve().parents[1]
N_FEATURES = {"MQ2008": 46, "OHSUMED-LETOR2": 25}

for name, n in N_FEATURES.items():
    path = ROOT / "benches" / "fsa" / f"{name}.jsonl"
    if not path.exists():
        continue
    rows = [r for r in map(json.loads, path.read_text().splitlines()) if r["n_selected"] > 0]
    res = FSAGridResult(rows, fsa_sizes(n), n)
    folds = sorted({r["fold"] for r in rows})
    for ranker in ("linear", "lightgbm"):
        print(f"**{name}**, {ranker} ranker (folds {folds}): mean test NDCG@10 (LETOR conventions)\n")
        print(res.table(ranker) + "\n")
