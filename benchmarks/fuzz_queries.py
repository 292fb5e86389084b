"""Fuzz the query language on a real library; print queries tried, internal errors and over-budget queries.

Usage: python benchmarks/fuzz_queries.py [--seconds 60] [--seed 1] [--data-dir DIR]
The library is the 12.7k-paper CSV of ../shared/corpora imported into a temporary folder (or DIR,
reused when it already holds papers). Every query, typed (as you type) or submitted, must give
results or a query problem within BUDGET_S, never another exception.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

from reader.errors import ReaderError
from reader.library import Library

CORPUS = (Path(__file__).resolve().parents[2] / "shared" / "corpora" / "ml_conference_corpus"
          / "papers_neurips_icml_iclr.csv")
BUDGET_S = 1.0

_SYNTAX = ["AND", "OR", "NOT", "(", ")", '"', "-", "+", "*", "~", "~2", ":", "[", "]", "TO", "{", "}",
           "^", "\\", "/", "title:", "abstract:", "author:", "venue:", "year:", "tag:", "note:",
           "method:", "is:starred", "is:unread", "has:note", "year:>2019", "year:<1990",
           "abstract:>2019", "author:>a", "[a TO z]", "[1 TO 99999]", "{x TO}", "\x00", "\u200b",
           "é", "𝔼", "ﬁ", "'", "''", "``", "a" * 10_000, "x" * 300 + "~", "z*", "*z", "?", "**"]


def _words(titles: list[str]) -> list[str]:
    return [w for t in titles for w in t.split()]


def _query(rng: random.Random, titles: list[str], words: list[str]) -> str:
    kind = rng.random()
    if kind < 0.25:
        return rng.choice(titles)
    parts: list[str] = []
    for _ in range(rng.randint(1, 10)):
        r = rng.random()
        if r < 0.5:
            parts.append(rng.choice(words))
        elif r < 0.9:
            parts.append(rng.choice(_SYNTAX))
        else:
            parts.append(rng.choice(words) + rng.choice(_SYNTAX))
    glue = "" if rng.random() < 0.1 else " "
    return glue.join(parts)


def _library(data_dir: Path) -> Library:
    lib = Library.open(data_dir, seed_if_empty=False)
    if lib.counts().total == 0:
        start = time.perf_counter()
        [summary] = lib.import_files([CORPUS])
        print(f"imported {summary.new:,} papers in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return lib


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", type=Path, default=None)
    args = parser.parse_args()
    if not CORPUS.exists():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    with CORPUS.open(encoding="utf-8", newline="") as fh:
        titles = [row["title"] for row in csv.DictReader(fh) if row.get("title")]
    words = _words(titles)
    rng = random.Random(args.seed)
    tried = internal = slow = slow_cpu = 0
    worst = worst_cpu = 0.0
    worst_query = ""
    with tempfile.TemporaryDirectory() as tmp:
        lib = _library(args.data_dir or Path(tmp) / "lib")
        lib_size = lib.counts().total
        try:
            end = time.monotonic() + args.seconds
            while time.monotonic() < end:
                query = _query(rng, titles, words)
                as_you_type = rng.random() < 0.5
                if as_you_type:  # a keystroke: the query cut anywhere
                    query = query[: rng.randint(1, max(1, len(query)))]
                tried += 1
                start = time.perf_counter()
                cpu = time.process_time()
                try:
                    found = lib.search(query, as_you_type=as_you_type, limit=rng.choice([10, 100, 1000]))
                    found.page(0, 50)
                except ReaderError:
                    pass
                except Exception:  # counting internal errors is the point
                    internal += 1
                    if internal <= 5:
                        print(f"query {query[:200]!r} (as_you_type={as_you_type}):", file=sys.stderr)
                        traceback.print_exc()
                took = time.perf_counter() - start
                took_cpu = time.process_time() - cpu
                if took > worst:
                    worst, worst_query = took, query
                worst_cpu = max(worst_cpu, took_cpu)
                slow_cpu += took_cpu > BUDGET_S
                if took > BUDGET_S:
                    slow += 1
                    if slow <= 5:
                        print(f"over budget: {took:.2f} s ({took_cpu:.2f} s CPU) for {query[:200]!r}",
                              file=sys.stderr)
        finally:
            lib.close()
    # Wall time counts a busy machine's waits; CPU time is what the query itself cost.
    print(f"papers: {lib_size}, queries tried: {tried}, internal errors: {internal}, over budget "
          f"({BUDGET_S}s wall): {slow}, ({BUDGET_S}s CPU): {slow_cpu}, slowest {worst * 1000:.0f} ms "
          f"wall ({worst_query[:80]!r}), slowest CPU {worst_cpu * 1000:.0f} ms")
    return 1 if internal or slow else 0


if __name__ == "__main__":
    sys.exit(main())
