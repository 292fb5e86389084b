"""Two `reader` processes writing the same library at once: every write waits its turn, none is misreported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def _reader(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, READER_DATA_DIR=str(data_dir))
    return subprocess.run([sys.executable, "-m", "reader", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_two_writers_at_once_both_succeed_and_every_write_lands(tmp_path: Path) -> None:
    data_dir = tmp_path / "lib"
    listed = _reader(data_dir, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    ids = [p["id"] for p in json.loads(listed.stdout)][:16]

    def writer(kind: int) -> list[subprocess.CompletedProcess[str]]:
        mine = ids[kind::2]
        out = []
        for pid in mine:  # each command is a write plus an index update that may meet the other's lock
            out.append(_reader(data_dir, "star", pid) if kind == 0 else _reader(data_dir, "tag", pid, "both"))
        return out

    with ThreadPoolExecutor(2) as pool:
        results = [r for batch in pool.map(writer, (0, 1)) for r in batch]
    failed = [(r.args[3:], r.returncode, r.stderr) for r in results if r.returncode != 0]
    assert failed == []
    assert not any("internal error" in r.stderr for r in results)
    papers = {p["id"]: p for p in json.loads(_reader(data_dir, "list", "--json").stdout)}
    assert all(papers[pid]["starred"] for pid in ids[0::2])
    assert all("both" in papers[pid]["tags"] for pid in ids[1::2])
    # the index caught up: searches see every change
    found = json.loads(_reader(data_dir, "search", "is:starred", "--json", "--limit", "100").stdout)
    assert {h["id"] for h in found} >= set(ids[0::2])
