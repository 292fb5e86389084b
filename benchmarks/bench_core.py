"""Import+index throughput and change-to-search latency on the 50k-abstract corpus (prints figures).

Import is timed through Library.import_files (the GUI's path) until every paper is stored AND
searchable; same-run references (raw SQLite inserts of the abstracts, Whoosh's public writer on
a 4k sample) put the seconds in proportion on a noisy machine. --titleless imports the
abstracts only, as bench_quality.py and the seeds do; --repeat gives the spread.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from corpus import corpus_for, library_count, load  # noqa: E402

from reader.library import Library  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the index workers): on a
    shared machine steadier than wall time."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _import_once(src: Path, workdir: Path):
    """A fresh library in workdir with src imported and indexed; (library, n, store s, total s)."""
    if workdir.exists():
        shutil.rmtree(workdir)
    lib = Library.open(workdir, seed_if_empty=False)
    c0 = _cpu()
    t0 = time.perf_counter()
    [summary] = lib.import_files([src], index=False)  # big files are indexed alongside
    t_store = time.perf_counter() - t0
    lib.sync_index()  # whatever is left (small files: everything)
    total = time.perf_counter() - t0
    cpu = _cpu() - c0
    print(f"records: {summary.new} new, {summary.duplicates} duplicates, {len(summary.skipped)} "
          f"skipped; import_files {t_store:.1f} s (listable), + sync {total - t_store:.1f} s: "
          f"{summary.new / total:,.0f} abstracts/s stored and searchable; CPU {cpu:.1f} s "
          f"(index workers included; load average {os.getloadavg()[0]:.1f})")
    return lib, summary.new, total


def _sqlite_reference(src: Path, tmp: Path) -> float:
    """Seconds to insert the file's abstracts into a bare SQLite table in one transaction.
    JSON Lines end at LF only (str.splitlines also splits at a raw U+2028 inside a string)."""
    rows = [(str(i), json.loads(line)["abstract"])
            for i, line in enumerate(src.read_text("utf-8").split("\n")) if line.strip()]
    db = sqlite3.connect(tmp / "ref.sqlite3")
    t = time.perf_counter()
    with db:
        db.execute("CREATE TABLE p (id TEXT PRIMARY KEY, abstract TEXT)")
        db.executemany("INSERT INTO p VALUES (?, ?)", rows)
    db.close()
    return time.perf_counter() - t


def _fts5_reference(src: Path, tmp: Path) -> tuple[int, float]:
    """(papers, CPU seconds) to index the file's titles and abstracts with SQLite FTS5
    (unicode61, porter) in one transaction: what an FTS5 store would pay for the same texts."""
    rows = []
    for line in src.read_text("utf-8").split("\n"):
        if line.strip():
            rec = json.loads(line)
            rows.append((rec.get("title") or "", rec.get("abstract") or ""))
    db = sqlite3.connect(tmp / "fts.sqlite3")
    c = time.process_time()
    with db:
        db.execute("CREATE VIRTUAL TABLE p USING fts5(title, abstract, tokenize='porter unicode61')")
        db.executemany("INSERT INTO p VALUES (?, ?)", rows)
    cpu = time.process_time() - c
    db.close()
    return len(rows), cpu


def _whoosh_reference(lib: Library, tmp: Path, n: int = 4000) -> float:
    """Documents per second through Whoosh's public writer (Reader's schema) on n papers."""
    from whoosh.index import create_in

    from reader.search.documents import doc_fields
    from reader.search.schema import build_schema
    from reader.store.index_docs import docs_for_ids

    docs = docs_for_ids(lib._reader(), lib.paper_ids(sort="added", descending=False)[:n])
    folder = tmp / "whoosh-ref"
    folder.mkdir()
    t = time.perf_counter()
    w = create_in(str(folder), build_schema()).writer()
    for d in docs:
        w.add_document(**doc_fields(d))
    w.commit()
    return len(docs) / (time.perf_counter() - t)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jsonl", type=Path, default=CORPUS)
    ap.add_argument("--size", choices=["50k", "100k"], default=None,
                    help="100k: the corpus and its altered copy (benchmarks/corpus.py) instead of --jsonl")
    ap.add_argument("--keep", type=Path, help="build the library here and keep it")
    ap.add_argument("--titleless", action="store_true", help="import the abstracts only")
    ap.add_argument("--repeat", type=int, default=1, help="import runs (the spread is printed)")
    ap.add_argument("--changes", type=int, default=30, help="star/tag/note changes to time")
    args = ap.parse_args()
    if not args.jsonl.exists():
        print(f"corpus not found: {args.jsonl} (skipped)")
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="reader-bench-"))
    workdir = args.keep or tmp / "lib"
    src = corpus_for(args.size, tmp) if args.size else args.jsonl
    if args.titleless:
        src = tmp / "titleless.jsonl"
        with args.jsonl.open(encoding="utf-8") as f, src.open("w", encoding="utf-8") as out:
            for line in f:
                if line.strip():
                    out.write(json.dumps({"abstract": json.loads(line)["abstract"]}) + "\n")
    rates = []
    lib = None
    try:
        for _ in range(max(1, args.repeat)):
            if lib is not None:
                lib.close()
            lib, n, total = _import_once(src, workdir)
            rates.append(n / total)
        assert lib is not None
        print(f"the library holds {library_count(workdir):,} papers; load {load()}")
        t_sql = _sqlite_reference(src, tmp)
        fts_n, fts_cpu = _fts5_reference(src, tmp)
        print(f"same run: SQLite FTS5 indexes the same titles and abstracts at {fts_n / fts_cpu:,.0f} papers "
              f"per CPU-s ({fts_n:,} in {fts_cpu:.1f} s CPU)")
        whoosh_rate = _whoosh_reference(lib, tmp)
        best = max(rates)
        spread = f"{min(rates):,.0f}..{best:,.0f}" if len(rates) > 1 else f"{best:,.0f}"
        print(f"import+index: {spread} abstracts/s over {len(rates)} run(s) (target >= 2,000/s)")
        print(f"same run: raw SQLite insert of the abstracts {t_sql:.1f} s ({n / t_sql:,.0f}/s); "
              f"Whoosh's public writer {whoosh_rate:,.0f} docs/s on a 4k sample")
        print(f"ratios: import+index = {best / whoosh_rate:.1f}x Whoosh's writer, "
              f"{n / best / t_sql:.1f}x the raw SQLite insert time")

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
        if lib is not None:
            lib.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
