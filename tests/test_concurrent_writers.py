"""Two `reader` processes writing the same library at once: every write waits its turn, none is misreported."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from reader.library import Library

WRITES = 8  # per process; each is a write plus an index update that may meet the other's lock


def _reader(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, READER_DATA_DIR=str(data_dir))
    return subprocess.run([sys.executable, "-m", "reader", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_two_writers_at_once_both_succeed_and_every_write_lands(tmp_path: Path) -> None:
    data_dir = tmp_path / "lib"
    # The library and its index are made here, in-process: only the writers need processes of their own.
    lib = Library.open(data_dir)
    lib.sync_index()
    ids = lib.paper_ids()[:2 * WRITES]
    lib.close()

    def writer(kind: int) -> list[subprocess.CompletedProcess[str]]:
        mine = ids[kind::2]
        return [_reader(data_dir, "star", pid) if kind == 0 else _reader(data_dir, "tag", pid, "both")
                for pid in mine]

    with ThreadPoolExecutor(2) as pool:
        results = [r for batch in pool.map(writer, (0, 1)) for r in batch]
    failed = [(r.args[3:], r.returncode, r.stderr) for r in results if r.returncode != 0]
    assert failed == []
    assert not any("internal error" in r.stderr for r in results)
    lib = Library.open(data_dir)
    try:
        papers = {p.id: p for p in lib.papers(ids)}
        assert all(papers[pid].starred for pid in ids[0::2])
        assert all("both" in papers[pid].tags for pid in ids[1::2])
        lib.sync_index()  # as `reader search` does: the index catches up, searches see every change
        found = {h.id for h in lib.search("is:starred", limit=100).hits}
        assert found >= set(ids[0::2])
    finally:
        lib.close()
