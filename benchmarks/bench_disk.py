"""A library's disk use (database, index by file kind, backups) and its query latency (prints figures).

Usage: python benchmarks/bench_disk.py --library DIR [--build] [--backup] [--sizes]
--build (or a missing DIR) imports the corpus into DIR the way the app does (titles included,
indexed alongside), so one build serves both the sizes and the latency. Sizes are of the
library closed, its WAL checkpointed, against the source file's (--jsonl); --backup first takes
the daily backup the next command would (when none is there), so the folder counts it. Latency is timed on
the library's own index, with SQLite FTS5 over the same documents as the same-run
reference (bench_search.py's queries and snippets); related() and suggest() are timed too.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_search import CORPUS, build_fts, latency_table, make_queries, pct  # noqa: E402

from reader.library import Library  # noqa: E402
from reader.search import SearchIndex  # noqa: E402
from reader.store.index_docs import iter_docs  # noqa: E402


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def _index_parts(folder: Path) -> Counter[str]:
    """Bytes per kind inside the index's compound segment files (postings, terms, stored
    fields, columns)."""
    from whoosh.filedb.compound import CompoundStorage
    from whoosh.filedb.filestore import FileStorage

    kinds: Counter[str] = Counter()
    storage = FileStorage(str(folder))
    for seg in folder.glob("*.seg"):
        cs = CompoundStorage(storage.open_file(seg.name), use_mmap=False)
        for name in cs.list():
            kinds["stored" if "_stored" in name else name.rsplit(".", 1)[-1]] += cs.file_length(name)
        cs.close()
    for f in folder.iterdir():
        if f.suffix != ".seg":
            kinds[f.suffix or f.name] += f.stat().st_size
    return kinds


def closed_sizes(root: Path, source: Path, backup: bool) -> None:
    """The sizes of a closed library: its WAL checkpointed into the database first (an open
    library's WAL, 128 MB after a 50k build, is not what the folder keeps); with `backup`, the
    daily backup taken first if there is none."""
    import sqlite3

    from reader.store.backups import daily_backups, take_backup

    conn = sqlite3.connect(root / "library.sqlite3")
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if backup and not daily_backups(root / "backups"):
            c, t = time.process_time(), time.perf_counter()
            made = take_backup(conn, root / "backups")
            print(f"daily backup {made.name}: {made.stat().st_size / 1e6:.1f} MB in "
                  f"{time.process_time() - c:.1f} CPU-s, {time.perf_counter() - t:.1f} s wall")
    finally:
        conn.close()
    report_sizes(root, source)


def report_sizes(root: Path, source: Path | None = None) -> None:
    db = _size(root / "library.sqlite3")
    ix = _size(root / "index")
    backups = _size(root / "backups")
    folder = _size(root)
    print(f"folder {folder / 1e6:.1f} MB: database {db / 1e6:.1f} MB (+ WAL "
          f"{_size(root / 'library.sqlite3-wal') / 1e6:.1f} MB), index {ix / 1e6:.1f} MB "
          f"({ix / max(db, 1):.2f}x the database), backups {backups / 1e6:.1f} MB")
    if source is not None and source.is_file():
        src = source.stat().st_size
        print(f"  against the source {source.name} ({src / 1e6:.1f} MB): folder {folder / src:.2f}x, "
              f"without the backups {(folder - backups) / src:.2f}x; database {db / src:.2f}x, "
              f"index {ix / src:.2f}x")
    print("  index by kind: " + ", ".join(
        f"{k} {v / 1e6:.1f} MB" for k, v in _index_parts(root / "index").most_common() if v > 50_000))


def build(root: Path, src: Path) -> Library:
    lib = Library.open(root, seed_if_empty=False)
    t0 = time.perf_counter()
    [summary] = lib.import_files([src], index=False)
    lib.sync_index()
    print(f"built: {summary.new} papers in {time.perf_counter() - t0:.0f} s "
          f"(load {os.getloadavg()[0]:.1f})")
    return lib


def _raw_index(folder: Path) -> SearchIndex:
    """An index opened as it is, whatever its format version (reads handle every codec
    setting); for comparisons only, never written to."""
    import sqlite3

    from reader.search.texts import stores_texts
    from reader.store.index_docs import paper_texts

    storage = SearchIndex._storage(folder)
    ix = storage.open_index()
    texts = None
    if not stores_texts(ix):  # its library's database has the titles and abstracts
        conn = sqlite3.connect(folder.parent / "library.sqlite3", check_same_thread=False)
        texts = functools.partial(paper_texts, conn)
    index = SearchIndex(folder, ix, stamp=-1, texts=texts)
    index.warm()
    return index


def paired(ix: SearchIndex, other: SearchIndex, pairs: dict[str, list[tuple[str, str]]],
           ids: list[str]) -> None:
    """Each query on both indexes, in alternating order, snippets included: load on a shared
    machine hits both alike, so the p50/p95 ratios are what the index format costs."""
    print(f"\npaired: this index vs {other.index_dir} (ms; ratio = this / other)")
    for kind, qs in pairs.items():
        times: dict[int, list[float]] = {0: [], 1: []}
        for i, (rq, _) in enumerate(qs):
            for side in ((0, 1) if i % 2 else (1, 0)):
                t = time.perf_counter()
                r = (ix, other)[side].search(rq)
                for h in r.hits[:50]:
                    h.snippet  # noqa: B018
                times[side].append((time.perf_counter() - t) * 1000)
        _paired_line(kind, times[0], times[1])
    times = {0: [], 1: []}
    for i, pid in enumerate(ids):
        for side in ((0, 1) if i % 2 else (1, 0)):
            t = time.perf_counter()
            (ix, other)[side].related(pid)
            times[side].append((time.perf_counter() - t) * 1000)
    _paired_line("related()", times[0], times[1])


def _paired_line(kind: str, a: list[float], b: list[float]) -> None:
    print(f"  {kind:<11} p50 {pct(a, 50):6.1f} vs {pct(b, 50):6.1f}  p95 {pct(a, 95):6.1f} vs "
          f"{pct(b, 95):6.1f}  ratio p50 {pct(a, 50) / max(pct(b, 50), 1e-6):.2f}, "
          f"p95 {pct(a, 95) / max(pct(b, 95), 1e-6):.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--library", type=Path, required=True)
    ap.add_argument("--build", action="store_true", help="import the corpus into --library first")
    ap.add_argument("--jsonl", type=Path, default=CORPUS)
    ap.add_argument("--sizes", action="store_true", help="sizes only (no latency)")
    ap.add_argument("--backup", action="store_true", help="take the daily backup first (if none)")
    ap.add_argument("--against", type=Path, help="another library (say, built by an earlier "
                    "version): the same queries on both indexes, interleaved, for a paired ratio")
    args = ap.parse_args()
    if (args.build or not args.library.exists()) and not args.jsonl.exists():
        print(f"corpus not found: {args.jsonl} (skipped)")
        return 0
    if args.build or not args.library.exists():
        lib = build(args.library, args.jsonl)
    else:
        lib = Library.open(args.library, seed_if_empty=False)
        lib.sync_index()  # an index of another format version is rebuilt here
    lib.close()
    closed_sizes(args.library, args.jsonl, args.backup)
    if args.sizes:
        return 0
    lib = Library.open(args.library, seed_if_empty=False)
    try:
        docs = list(iter_docs(lib._reader()))
        ix = lib.index
        t = time.perf_counter()
        ix.warm()
        print(f"{len(docs)} documents; warm-up {time.perf_counter() - t:.1f} s")
        with tempfile.TemporaryDirectory() as tmp:
            db = build_fts(docs, Path(tmp) / "fts.db")
            rng = random.Random(1)
            pairs = make_queries(docs, rng)
            latency_table(ix, db, pairs)
            for name, call in (("related()", lambda d: ix.related(d["id"])),
                               ("suggest()", lambda d: ix.suggest(d["title"].split()[0] + "x"))):
                lat = []
                for d in rng.sample(docs, 30):
                    t = time.perf_counter()
                    call(d)
                    lat.append((time.perf_counter() - t) * 1000)
                print(f"{name}: p50 {pct(lat, 50):.1f} ms, p95 {pct(lat, 95):.1f} ms")
            db.close()
            if args.against:
                paired(ix, _raw_index(args.against / "index"), pairs,
                       [d["id"] for d in rng.sample(docs, 30)])
    finally:
        lib.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
