"""Outside changes: the cost of an idle Library.check_outside() and the latency from a CLI
`reader star` / `reader import` in another process to its detection here (prints figures).

The open window polls check_outside() on its task runner; an idle poll must cost next to
nothing, and a change made in a terminal must reach the window well within 2 s (issue 17).
Latency runs from the other process's commit (seen by a probe polling data_version every
millisecond) to check_outside() publishing the change with all its ids (what counts, lists
and the sidebar redraw from), and to Change.INDEX (this process's index caught up: searches
see it); "CLI start" adds Python's start-up and the CLI's own work. Same-run references for
the idle cost: a raw `PRAGMA data_version` and `Library.counts()` (one small SQL read).

    python benchmarks/bench_outside.py [--papers 3000] [--runs 7] [--import-size 2356] [--poll 0.05]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reader.events import Change, Changes  # noqa: E402
from reader.library import Library  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"


def _records(start: int, n: int) -> list[dict]:
    """n corpus papers from line `start` (the seeds' abstracts, repeated with a number, without it)."""
    out: list[dict] = []
    if CORPUS.exists():
        with CORPUS.open(encoding="utf-8") as f:
            for i, line in enumerate(f):
                if i >= start + n:
                    break
                if i >= start:
                    r = json.loads(line)
                    out.append({"title": r.get("title", ""), "abstract": r["abstract"],
                                "authors": r.get("authors", []), "venue": r.get("venue", "")})
        if len(out) == n:
            return out
    return [{"title": f"Synthetic paper {start + i}",
             "abstract": f"Paper number {start + i} studies sparse attention and mode connectivity "
                         f"with a method of its own, variant {start + i}."} for i in range(n)]


def _per_call(fn, n: int) -> float:
    """Microseconds per call, the best of three rounds of n calls."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, time.perf_counter() - t)
    return best / n * 1e6


def _cli(data_dir: Path, *args: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, READER_DATA_DIR=str(data_dir), PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "reader", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


class _CommitProbe:
    """When the other process's first commit lands: a raw connection polling data_version
    every millisecond on its own thread (the reference moment the latencies start from)."""

    def __init__(self, db: Path) -> None:
        self._db = db
        self.at: float | None = None
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait()

    def _run(self) -> None:
        conn = sqlite3.connect(str(self._db))
        first = conn.execute("PRAGMA data_version").fetchone()[0]
        self._ready.set()
        while not self._stop.is_set():
            if conn.execute("PRAGMA data_version").fetchone()[0] != first:
                self.at = time.perf_counter()
                break
            time.sleep(0.001)
        conn.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _detect(lib: Library, proc_args: tuple[str, ...], want: int, poll: float) -> tuple[float, float, float]:
    """(commit → store change published, commit → searchable, CLI start → searchable) in
    seconds, polling check_outside() as the window's timer would."""
    events: list[tuple[float, Changes]] = []
    stop = lib.changes.subscribe(lambda c: events.append((time.perf_counter(), c)))
    probe = _CommitProbe(lib.paths.database)
    t0 = time.perf_counter()
    proc = _cli(lib.paths.root, *proc_args)
    seen: set[str] = set()
    stored: float | None = None
    try:
        while True:
            lib.check_outside()
            for at, c in events:
                if Change.OUTSIDE in c.kinds:
                    seen |= c.ids
                    if len(seen) >= want and stored is None:
                        stored = at
                elif Change.INDEX in c.kinds and stored is not None and probe.at is not None:
                    proc.wait()
                    if proc.returncode != 0:
                        raise SystemExit(f"the CLI failed: {proc.stderr.read().decode() if proc.stderr else ''}")
                    return stored - probe.at, at - probe.at, at - t0
            events.clear()
            if time.perf_counter() - t0 > 300:
                raise SystemExit("no change detected within 300 s")
            time.sleep(poll)
    finally:
        stop()
        probe.stop()


def _figures(name: str, runs: list[tuple[float, float, float]]) -> None:
    def stat(i: int) -> str:
        values = [r[i] for r in runs]
        return f"median {statistics.median(values):.3f} s, max {max(values):.3f} s"

    print(f"{name} ({len(runs)} runs): commit → published {stat(0)}; commit → searchable {stat(1)}; "
          f"CLI start → searchable {stat(2)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=3000, help="papers in the library")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--import-runs", type=int, default=3)
    ap.add_argument("--import-size", type=int, default=2356, help="papers per CLI import (issue 17's example)")
    ap.add_argument("--poll", type=float, default=0.05, help="seconds between checks")
    ap.add_argument("--idle-calls", type=int, default=20000)
    a = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "lib"
        src = Path(tmp) / "base.json"
        src.write_text(json.dumps(_records(0, a.papers)), encoding="utf-8")
        lib = Library.open(data, seed_if_empty=False)
        try:
            lib.import_files([src])
            print(f"library: {lib.counts().total:,} papers "
                  f"({'corpus' if CORPUS.exists() else 'synthetic'}), poll every {a.poll * 1000:.0f} ms")

            raw = sqlite3.connect(str(lib.paths.database))
            idle = _per_call(lib.check_outside, a.idle_calls)
            pragma = _per_call(lambda: raw.execute("PRAGMA data_version").fetchone(), a.idle_calls)
            counts = _per_call(lib.counts, max(a.idle_calls // 20, 100))
            raw.close()
            print(f"idle check_outside(): {idle:.1f} µs per call; references: raw PRAGMA data_version "
                  f"{pragma:.1f} µs ({idle / pragma:.1f}×), Library.counts() {counts:.1f} µs "
                  f"({idle / counts:.3f}×); at one check per 0.5 s: {idle / 0.5 / 1e4:.5f}% of a core")

            ids = lib.paper_ids()
            star = [_detect(lib, ("star" if i % 2 == 0 else "unstar", ids[i // 2]), 1, a.poll)
                    for i in range(a.runs)]
            _figures("star", star)

            imports = []
            for r in range(a.import_runs):
                path = Path(tmp) / f"new{r}.json"
                path.write_text(json.dumps(_records(a.papers + r * a.import_size, a.import_size)),
                                encoding="utf-8")
                imports.append(_detect(lib, ("import", str(path)), a.import_size, a.poll))
            _figures(f"import of {a.import_size:,}", imports)
            assert lib.check_outside() is None
        finally:
            lib.close()


if __name__ == "__main__":
    main()
