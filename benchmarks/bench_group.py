"""The reading group's sync (issue 29): 10 members x 6,300 papers, every paper decided by every
member. Prints the full merge (a library reading all ten members' files for the first time), a
sync with nothing new, a sync after one new decision, each member's files on disk (after a first
export and after a long day of decisions with compaction), and the same-run reference: reading
the same records with the json module alone (json.loads of every line, nothing merged or stored).

    python benchmarks/bench_group.py [--papers 6300] [--members 10] [--runs 7] [--day 20000] [--merges 1]

Wall and CPU seconds are both printed: the machine may be shared (load average shown). With
--merges N, the full merge is timed N times, each on a copy of the library as it joined the
group (its own folder empty again), and the median, smallest and largest are printed beside the
first: one figure on a busy machine says little."""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reader.group import Group  # noqa: E402
from reader.group.format import header_line, record_line  # noqa: E402
from reader.group.keys import key_hash, paper_keys  # noqa: E402
from reader.library import Library  # noqa: E402
from reader.store import group as gs  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"
TAGS = ["group/discuss", "group/journal-club", "group/maybe"]


def _timed(fn):
    w, c, t = time.perf_counter(), time.process_time(), time.thread_time()
    out = fn()
    _timed.thread = time.thread_time() - t  # type: ignore[attr-defined]  # this thread's alone (the library's
    # background threads, a daily backup or the index's upkeep, count in the process's CPU)
    return out, time.perf_counter() - w, time.process_time() - c


def _library(root: Path, n: int) -> Library:
    src = root / "papers.jsonl"
    with CORPUS.open(encoding="utf-8") as f, src.open("w", encoding="utf-8") as out:
        for i, line in enumerate(f):
            if i >= n:
                break
            out.write(line)
    lib = Library.open(root / "lib", seed_if_empty=False)
    lib.import_files([str(src)])
    return lib


def _decide(lib: Library, rnd: random.Random) -> None:
    ids = lib.paper_ids()
    star = [p for p in ids if rnd.random() < 0.3]
    stars = set(star)
    lib.set_starred(star, True)
    lib.set_skipped([p for p in ids if p not in stars], True)  # and read
    lib.set_read(star, True)
    lib.add_tags([p for p in star if rnd.random() < 0.3], [TAGS[0]])


def _member_files(folder: Path, name: str, keys: list[list[str]], rnd: random.Random) -> None:
    """Another member's files as its Reader writes them: a snapshot of one decision per paper."""
    d = folder / name
    d.mkdir()
    lines = [header_line(name, f"lib-{name}", 1)]
    seq = 0
    for k in keys:
        seq += 1
        starred = rnd.random() < 0.3
        fields = {"star": (seq, 1)} if starred else {"skip": (seq, 1)}
        fields["read"] = (seq, 1)
        if starred and rnd.random() < 0.3:
            fields["tags"] = (seq, [rnd.choice(TAGS)])
        lines.append(record_line(k, fields))
    (d / "snapshot-1.jsonl").write_bytes(b"".join(lines))
    (d / "log-1.jsonl").write_bytes(lines[0])


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.iterdir() if p.is_file())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--papers", type=int, default=6300)
    ap.add_argument("--members", type=int, default=10)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--day", type=int, default=20000, help="decisions of one member's long day (compaction)")
    ap.add_argument("--merges", type=int, default=1, help="full merges timed, each on a copy of the library")
    args = ap.parse_args()
    rnd = random.Random(29)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "shared"
        folder.mkdir()
        t0 = time.perf_counter()
        lib = _library(root, args.papers)
        print(f"library of {lib.counts().total} papers made in {time.perf_counter() - t0:.1f} s")
        _decide(lib, rnd)
        rows = gs.key_rows(lib.read_connection(), -1)
        keys = [paper_keys(r["doi"], r["arxiv"], r["links"], r["title_key"], r["year"], r["abstract_key"])
                or [key_hash("id:" + r["id"])] for r in rows]
        for i in range(1, args.members):
            _member_files(folder, f"member{i:02d}", keys, rnd)
        group = Group(lib)
        group.join(folder, "member00")
        template = _template(lib, root / "lib", root / "template") if args.merges > 1 else None
        report, wall, cpu = _timed(group.sync)
        first = (cpu, _timed.thread)  # type: ignore[attr-defined]
        print(f"full merge ({args.members} members x {len(keys)} papers, this member's first export of "
              f"{report.written} records included): {wall:.3f} s wall, {cpu:.3f} s CPU "
              f"({_timed.thread:.3f} s in the syncing thread) "
              f"({report.read} records read from the files; this member's own export merged as written)")
        own = folder / "member00"
        sizes = {p.name: _size(p) for p in folder.iterdir()}
        print(f"files per member: largest {max(sizes.values()) / 1e6:.3f} MB, this member's "
              f"{sizes['member00'] / 1e6:.3f} MB")
        # The reference: the same lines through json.loads alone.
        def json_only() -> int:
            n = 0
            for d in sorted(folder.iterdir()):
                for f in sorted(d.iterdir()):
                    with f.open("rb") as fh:
                        for line in fh:
                            json.loads(line)
                            n += 1
            return n

        n, wall_j, cpu_j = _timed(json_only)
        print(f"reference, json.loads of the same {n} lines alone: {wall_j:.3f} s wall, {cpu_j:.3f} s CPU "
              f"({_timed.thread:.3f} s in the reading thread)")
        # A full merge again, in a second library that reads everyone (its own export is small).
        walls, cpus = [], []
        for _ in range(args.runs):
            r, wall, cpu = _timed(group.sync)
            assert not r.changed
            walls.append(wall)
            cpus.append(cpu)
        print(f"sync with nothing new: median {statistics.median(walls) * 1000:.1f} ms wall, "
              f"{statistics.median(cpus) * 1000:.1f} ms CPU (max {max(walls) * 1000:.1f} ms; {args.runs} runs)")
        ids = lib.paper_ids()
        walls, cpus = [], []
        for i in range(args.runs):
            lib.set_starred([ids[i]], not lib.paper(ids[i]).starred)
            r, wall, cpu = _timed(group.sync)
            walls.append(wall)
            cpus.append(cpu)
        print(f"sync after one new decision: median {statistics.median(walls) * 1000:.1f} ms wall, "
              f"{statistics.median(cpus) * 1000:.1f} ms CPU")
        # A long day: many decisions, a sync after every 50; the files stay under 1 MB (compaction).
        biggest = 0
        t0 = time.perf_counter()
        for i in range(0, args.day, 50):
            batch = [ids[(i + j) * 7919 % len(ids)] for j in range(50)]
            lib.set_starred(batch, (i // 50) % 2 == 0)
            group.sync()
            biggest = max(biggest, _size(own))
        print(f"a day of {args.day} decisions (a sync every 50): this member's files at most "
              f"{biggest / 1e6:.3f} MB, now {_size(own) / 1e6:.3f} MB "
              f"({sorted(p.name for p in own.iterdir())}); {time.perf_counter() - t0:.1f} s")
        if template is not None:
            _merges(template, folder, "member00", args.merges - 1, first)
        lib.close()
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def _template(lib: Library, data_dir: Path, to: Path) -> Path:
    """A copy of the library as it is (joined, not synced yet): its database through SQLite's
    backup, its index folder as is."""
    shutil.copytree(data_dir, to, ignore=shutil.ignore_patterns("library.sqlite3*", "backups", "logs"))
    copy = sqlite3.connect(to / "library.sqlite3")
    try:
        lib.read_connection().backup(copy)
    finally:
        copy.close()
    return to


def _merges(template: Path, folder: Path, me: str, n: int, first: tuple[float, float]) -> None:
    """The full merge again, n times, each on a fresh copy of `template` with this member's own
    folder empty, as at the first (the folder the first one wrote is kept aside meanwhile)."""
    cpus, threads, walls = [first[0]], [first[1]], []
    own, aside = folder / me, folder.parent / f"{me}.aside"
    for i in range(n):
        data = template.parent / f"merge-{i}"
        shutil.copytree(template, data)
        own.rename(aside)
        own.mkdir()
        lib = Library.open(data, seed_if_empty=False, daily=False)  # no day's check or backup on a thread
        try:
            report, wall, cpu = _timed(Group(lib).sync)
            assert report.changed and report.written, report
            print(f"  copy {i + 1}: {cpu:.3f} s CPU, {report.read} records read, {report.written} written", flush=True)
        finally:
            lib.close()
            shutil.rmtree(own)
            aside.rename(own)
            shutil.rmtree(data)
        cpus.append(cpu)
        threads.append(_timed.thread)  # type: ignore[attr-defined]
        walls.append(wall)
    print(f"full merge, {n + 1} times (the first above, then on copies of the library as it joined): CPU median "
          f"{statistics.median(cpus):.3f} s, smallest {min(cpus):.3f} s, largest {max(cpus):.3f} s; syncing "
          f"thread median {statistics.median(threads):.3f} s; wall median of the copies "
          f"{statistics.median(walls):.3f} s (load average now {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
