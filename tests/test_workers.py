"""kill -9 of Reader during an import: its worker processes are gone within 5 s."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reader.text.batch import PARALLEL_MIN

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to find child processes")


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_no_worker_outlives_a_killed_import(tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    words = "graph neural attention diffusion sparse kernel bandit policy transformer convex".split()
    with big.open("w", encoding="utf-8") as fh:
        for i in range(PARALLEL_MIN * 3):
            text = " ".join(words[(i * 7 + k) % len(words)] for k in range(60))
            fh.write(json.dumps({"title": f"Paper {i}", "abstract": f"Study {i}: {text}."}) + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "reader", "--data-dir", str(tmp_path / "lib"), "import", str(big)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        workers: set[int] = set()
        while time.monotonic() < deadline and proc.poll() is None:
            workers = {c for c in _children(proc.pid) if _alive(c)}
            if len(workers) >= 2:  # the spawn pool (its resource tracker is a child too)
                break
            time.sleep(0.05)
        assert workers, "the import never started worker processes"
        time.sleep(0.5)  # let the workers get busy
        workers |= {c for c in _children(proc.pid) if _alive(c)}
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 30  # generous: a spawned worker still importing on a busy machine
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        left = [w for w in workers if _alive(w)]
        for w in left:
            os.kill(w, signal.SIGKILL)
        assert left == [], f"{len(left)} worker(s) still running 30 s after kill -9"
    finally:
        if proc.poll() is None:
            proc.kill()
