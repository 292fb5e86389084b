"""Subset refit (reader.map.subset): how long a subset's own layout takes, beside the library's.

Imports the first N abstracts of the shared corpus (default 3,300: an ICML-size library), lays
the library out (the reference, in the same run), then refits subsets: 300, 1,000 and 3,000
papers spread over the library, and the first 300 hits of two searches (one topic each). Per
subset: the refit's time (median of 3), its ratio to the library layout, whether it is
deterministic, how far it moved the papers from their library places (relative to the map's
span), its labelled regions, and the trustworthiness (k = 10, scikit-learn, when installed)
of the library places and of the refit against the subset's own TF-IDF vectors. The
issue's budget: a 300-paper refit in <= 2 s on the 2-core machine.

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

import numpy as np

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


def _trust(conn, ids: list[str], before: np.ndarray, after: np.ndarray) -> str:
    """Trustworthiness of the library places and of the refit, against the subset's own TF-IDF."""
    try:
        from sklearn.manifold import trustworthiness
    except ImportError:
        return ""
    from reader.map.features import features
    from reader.store import map_rows

    found = dict(map_rows.texts(conn, ids))
    high = features([found[p] for p in ids]).vectors
    return (f"; trustworthiness library places {trustworthiness(high, before, n_neighbors=10):.3f}, "
            f"refit {trustworthiness(high, after, n_neighbors=10):.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=3300)
    args = ap.parse_args()
    if not PAPERS.exists():
        print(f"no corpus at {PAPERS}: nothing measured")
        return 0
    from reader.library import Library
    from reader.map import mapfile, subset

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "papers.jsonl"
        src.write_text("".join(json.dumps(r) + "\n" for r in records(args.papers)), "utf-8")
        lib = Library.open(Path(tmp) / "lib", seed_if_empty=False)
        lib.import_files([src], index=False)
        conn = lib.read_connection()
        started = time.perf_counter()
        data = mapfile.build(conn)
        full_s = time.perf_counter() - started
        print(f"library: {len(data.ids):,} papers, full layout {full_s:.2f} s (the reference)")
        span = float(np.ptp(data.xy, axis=0).max())
        lib.sync_index()
        subsets = [(f"spread {size}", data.ids[:: max(1, len(data.ids) // size)][:size])
                   for size in (300, 1000, 3000) if size < len(data.ids)]
        subsets += [(f"search {q!r}", list(lib.listing(q, limit=300).ids)) for q in ("reinforcement learning", "graph")]
        for name, ids in subsets:
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
            print(f"{name}: refit {len(views[0].ids):,} papers in {med:.2f} s (median of 3; {med / full_s:.2f}x the "
                  f"full layout), deterministic {same}, moved median {np.median(moved):.2f} of the span, "
                  f"{labelled} labelled regions{_trust(conn, views[0].ids, before, views[0].xy)}")
        lib.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
