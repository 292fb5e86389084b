"""The Whoosh fast path against Whoosh's public API (READER_FAST_PATH=0): rebuild time and
query latencies on the same documents, with ratios.

Usage: python benchmarks/bench_fastpath.py [--limit N] [--jsonl PATH] [--procs P]
Not a test: prints figures. Each mode builds its own index in a temporary directory; the
fast path's rebuild uses the parallel builder with P processes (default: the app's).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_search import CORPUS, load_docs, make_queries, pct

from reader.search import SearchIndex, fastpath

KINDS = ("words", "prefix", "phrase", "AND", "fuzzy", "is:starred")


def run(docs: list[dict], fast: bool, procs: int, folder: Path,
        queries: dict[str, list[str]]) -> dict[str, float]:
    os.environ[fastpath.ENV] = "1" if fast else "0"
    fastpath.reset()
    assert fastpath.enabled() is fast
    ix = SearchIndex.open(folder)
    ix.rebuild_procs = procs
    t = time.perf_counter()
    ix.rebuild(docs, stamp=1, total=len(docs))
    out = {"rebuild": time.perf_counter() - t}
    for kind in KINDS + ("typed",):
        lat = []
        for q in queries[kind]:
            t = time.perf_counter()
            ix.search(q, as_you_type=kind == "typed")
            lat.append(time.perf_counter() - t)
        out[kind] = pct(lat, 50) * 1000
        out[kind + " p95"] = pct(lat, 95) * 1000
    t = time.perf_counter()
    for d in docs[::max(1, len(docs) // 40)][:40]:
        ix.related(d["id"])
    out["related"] = (time.perf_counter() - t) / 40 * 1000
    ix.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=12_721)
    ap.add_argument("--jsonl", type=Path, default=CORPUS)
    ap.add_argument("--procs", type=int, default=SearchIndex.rebuild_procs)
    args = ap.parse_args()
    if not args.jsonl.exists():
        print(f"corpus not found: {args.jsonl}")
        return 0
    docs = load_docs(args.jsonl, args.limit)
    pairs = make_queries(docs, random.Random(3))
    queries = {k: [q for q, _ in pairs[k]] for k in KINDS}
    queries["typed"] = [q[:4] for q in queries["words"]]  # a word being typed: a prefix
    with tempfile.TemporaryDirectory() as tmp:
        fast = run(docs, True, args.procs, Path(tmp) / "fast", queries)
        public = run(docs, False, 1, Path(tmp) / "public", queries)
    print(f"{len(docs)} documents; fast path: {args.procs} process(es), public API: 1")
    print(f"  {'':<16} {'fast':>9} {'public':>9} {'public/fast':>12}")
    unit = {"rebuild": "s"}
    for key in fast:
        u = unit.get(key, "ms")
        print(f"  {key + ' (' + u + ')':<16} {fast[key]:9.2f} {public[key]:9.2f} "
              f"{public[key] / fast[key] if fast[key] else float('nan'):11.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
