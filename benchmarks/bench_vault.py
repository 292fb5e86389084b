"""Markdown vault sync timings on the 50k-abstract corpus: first sync, unchanged sync, one edited file."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reader.library import Library  # noqa: E402
from reader.vault import sync  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"


def _timed(label: str, fn, target: float | None = None):
    t0, c0 = time.perf_counter(), time.process_time()
    result = fn()
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    verdict = "" if target is None else f" (target ≤ {target:.0f} s: {'ok' if dt <= target else 'MISSED'})"
    # CPU time beside wall time: on a loaded machine the wall time mostly measures the others.
    print(f"  {label}: {dt:.2f} s wall, {cpu:.2f} s CPU{verdict}")
    return result


def bench(jsonl: Path, n: int, workdir: Path, *, first_target: float | None, unchanged_target: float) -> None:
    print(f"{n} touched papers")
    sample = workdir / "papers.jsonl"
    with open(jsonl, encoding="utf-8") as src, open(sample, "w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i >= n:
                break
            dst.write(line)
    lib = Library.open(workdir / "lib", seed_if_empty=False)
    # The search index is derived and not what is measured here: keep it out of the way.
    lib._index_changes = lambda: None  # type: ignore[method-assign]
    try:
        t0 = time.perf_counter()
        lib.import_files([sample], index=False)
        ids = lib.paper_ids(sort="added", descending=False)
        lib.set_starred(ids, True)
        lib.add_tags(ids[::3], ["bench"])
        for pid in ids[: max(1, len(ids) // 50)]:
            lib.set_note(pid, f"A note on {pid} with $x^2$ and a [link](https://example.org).")
        print(f"  library of {len(ids)} papers built in {time.perf_counter() - t0:.1f} s")
        vault = workdir / "vault"
        report = _timed("first sync", lambda: sync(lib, vault), first_target)
        print(f"    {report.summary()}")
        report = _timed("unchanged sync", lambda: sync(lib, vault), unchanged_target)
        assert not report.written and report.unchanged == len(ids), report.summary()
        path = next(vault.glob("*.md"))
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("<!-- /reader:note -->", "edited in the vault\n\n<!-- /reader:note -->"),
                        encoding="utf-8")
        report = _timed("sync after one file edited", lambda: sync(lib, vault), 2.0)
        assert len(report.taken_from_vault) == 1, report.summary()
        lib.set_note(ids[-1], "edited in Reader")
        report = _timed("sync after one note edited in Reader", lambda: sync(lib, vault), 2.0)
        assert len(report.written) == 1, report.summary()
    finally:
        lib.close()


def _load() -> str:
    try:
        return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count() or 1} CPUs"
    except OSError:
        return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--jsonl", type=Path, default=CORPUS)
    ap.add_argument("--large", action="store_true", help="also time 50,000 papers (several minutes)")
    args = ap.parse_args()
    if not args.jsonl.exists():
        print(f"corpus not found: {args.jsonl} (skipped)")
        return 0
    print(_load())
    runs = [(3300, 5.0, 1.0)] + ([(50000, None, 10.0)] if args.large else [])
    for n, first, unchanged in runs:
        workdir = Path(tempfile.mkdtemp(prefix="reader-bench-vault-"))
        try:
            bench(args.jsonl, n, workdir, first_target=first, unchanged_target=unchanged)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
