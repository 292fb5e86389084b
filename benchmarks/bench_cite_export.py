"""Citation exports of a big library: time and peak memory of `reader export bibtex|csljson|ris`.

Imports the 50k-abstract corpus (../shared/corpora/ml_conference_corpus/papers.jsonl) into a
temporary library once, then runs each export in its own process (so its peak RSS is the
export's, not the import's) and, as the same-run reference, `reader export json` (the backup).

    PYTHONPATH=. python benchmarks/bench_cite_export.py [--limit N]
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"

_CHILD = """
import resource, sys, time
from reader.library import Library
from reader.models import ExportKind
lib = Library.open(sys.argv[1], seed_if_empty=False)
start = time.perf_counter()
if sys.argv[2] == "json":
    lib.export_json(sys.argv[3])
    n = lib.counts().total
else:
    n = lib.export_citations(sys.argv[3], None, ExportKind(sys.argv[2]))
took = time.perf_counter() - start
print(n, took, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=0, help="import only the first N papers")
    args = parser.parse_args()
    if not CORPUS.exists():
        sys.exit(f"corpus not found: {CORPUS}")
    with tempfile.TemporaryDirectory() as tmp:
        src = CORPUS
        if args.limit:
            src = Path(tmp) / "subset.jsonl"
            with CORPUS.open(encoding="utf-8") as f:
                src.write_text("".join(itertools.islice(f, args.limit)), encoding="utf-8")
        from reader.library import Library

        start = time.perf_counter()
        with Library.open(Path(tmp) / "lib", seed_if_empty=False) as lib:
            lib.import_files([src], index=False)
            total = lib.counts().total
        print(f"imported {total:,} papers in {time.perf_counter() - start:.1f} s")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for kind, ext in (("json", "json"), ("bibtex", "bib"), ("csljson", "csl.json"), ("ris", "ris")):
            out = Path(tmp) / f"out.{ext}"
            result = subprocess.run([sys.executable, "-c", _CHILD, str(Path(tmp) / "lib"), kind, str(out)],
                                    capture_output=True, text=True, env=env, check=True)
            n, took, rss = result.stdout.split()
            print(f"export {kind:8s} {int(n):,} papers: {float(took):6.1f} s, peak RSS {float(rss):6.0f} MB, "
                  f"{out.stat().st_size / 2**20:6.1f} MB file")


if __name__ == "__main__":
    main()
