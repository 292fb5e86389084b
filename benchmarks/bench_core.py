"""Import+index throughput and change-to-search latency on the 50k-abstract corpus (prints figures)."""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reader.services import Library  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--jsonl", type=Path, default=CORPUS)
    ap.add_argument("--keep", type=Path, help="build the library here and keep it")
    ap.add_argument("--changes", type=int, default=30, help="star/tag/note changes to time")
    args = ap.parse_args()
    if not args.jsonl.exists():
        print(f"corpus not found: {args.jsonl} (skipped)")
        return 0
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="reader-bench-"))
    if workdir.exists() and args.keep:
        shutil.rmtree(workdir)
    lib = Library.open(workdir, seed_if_empty=False)
    try:
        t0 = time.perf_counter()
        [summary] = lib.import_files([args.jsonl], index=False)
        t_store = time.perf_counter() - t0
        n = summary.new
        t1 = time.perf_counter()
        lib.sync_index()
        t_index = time.perf_counter() - t1
        total = t_store + t_index
        print(f"records: {n} new, {summary.duplicates} duplicates, {len(summary.skipped)} skipped")
        print(f"store import: {t_store:.1f} s = {n / t_store:,.0f} abstracts/s (papers listable after this)")
        print(f"index build:  {t_index:.1f} s = {n / t_index:,.0f} abstracts/s")
        print(f"import+index: {total:.1f} s = {n / total:,.0f} abstracts/s (target >= 2,000/s)")

        ids = lib.paper_ids()[:: max(1, len(lib.paper_ids()) // args.changes)][: args.changes]
        kinds = {
            "star": (lambda pid, i: lib.set_starred([pid], True), lambda pid, i: "is:starred"),
            "tag": (lambda pid, i: lib.add_tags([pid], [f"benchtag{i}"]), lambda pid, i: f"tag:benchtag{i}"),
            "note": (lambda pid, i: lib.set_note(pid, f"zzqnote{i} remember"), lambda pid, i: f"note:zzqnote{i}"),
        }
        for kind, (change, query) in kinds.items():
            lat = []
            for i, pid in enumerate(ids):
                t = time.perf_counter()
                change(pid, i)
                hits = {h.id for h in lib.search(query(pid, i), limit=10_000).hits}
                lat.append((time.perf_counter() - t) * 1000)
                assert pid in hits, (kind, pid)
            lat.sort()
            p95 = lat[int(0.95 * (len(lat) - 1))]
            print(f"{kind} change -> visible in search: p50 {statistics.median(lat):.1f} ms, "
                  f"p95 {p95:.1f} ms, max {lat[-1]:.1f} ms (target <= 100 ms)")
    finally:
        lib.close()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
