"""Subset refit (reader.map.subset): how long a subset's own layout takes, beside the library's.

Imports the first N abstracts of the shared corpus (default 3,300: an ICML-size library), lays
the library out (the reference, in the same run), then refits subsets of 300, 1,000 and 3,000
papers (a keyword search's hits where it has enough, else the first papers of a venue) and
prints, per subset: the refit's time (median of 3), its ratio to the library layout, whether
it is deterministic, and how far it moved the papers from their library places (relative to
the map's span). The issue's budget: a 300-paper refit in <= 2 s on the 2-core machine.

    python benchmarks/bench_map_refit.py [--papers 3300]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as reader.map does (a busy 2-core machine)

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PAPERS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"


def records(limit: int) -> list[dict]:
    out = []
    with PAPERS.open(encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if (r.get("abstract") or "").strip():
                out.append({"title": r.get("title") or "", "abstract": r["abstract"], "venue": r.get("venue") or ""})
            if len(out) >= limit:
                break
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=3300)
    args = ap.parse_args()
    if not PAPERS.exists():
        print(f"no corpus at {PAPERS}: nothing measured")
        return 0
    from reader.map import store, subset
    from reader.services import Library

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "papers.jsonl"
        src.write_text("".join(json.dumps(r) + "\n" for r in records(args.papers)), "utf-8")
        lib = Library.open(Path(tmp) / "lib", seed_if_empty=False)
        lib.import_files([src], index=False)
        conn = lib.read_connection()
        started = time.perf_counter()
        data = store.build(conn)
        full_s = time.perf_counter() - started
        print(f"library: {len(data.ids):,} papers, full layout {full_s:.2f} s (the reference)")
        span = float(np.ptp(data.xy, axis=0).max())
        for size in (300, 1000, 3000):
            if size >= len(data.ids):
                continue
            ids = data.ids[:: max(1, len(data.ids) // size)][:size]  # spread over the library
            times, views = [], []
            for _ in range(3):
                t0 = time.perf_counter()
                views.append(subset.refit(data, conn, ids))
                times.append(time.perf_counter() - t0)
            same = all(np.array_equal(v.xy, views[0].xy) for v in views)
            before = data.xy[[data.position()[p] for p in views[0].ids]]
            moved = np.linalg.norm(views[0].xy - subset.lay.fit_box(before), axis=1) / span
            labelled = sum(1 for s in views[0].spots if s.level == 0 and s.label)
            med = statistics.median(times)
            print(f"refit {len(views[0].ids):>5} papers: {med:.2f} s (median of 3; {med / full_s:.2f}x the full "
                  f"layout), deterministic {same}, moved median {np.median(moved):.2f} of the span, "
                  f"{labelled} labelled regions")
        lib.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
