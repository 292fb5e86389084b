"""Outside change → visible: a `reader star` run in another process, until the open window shows it.

Run: .venv/bin/python benchmarks/bench_outside_gui.py [N_STARS] [--dir LIBRARY]   (prints figures)
Offscreen. By default a fresh library of the bundled seeds in a temporary folder; with --dir an
existing library (its papers are starred one by one, then unstarred again by the CLI at the end).

For each star, the clock starts when the other process's commit becomes visible to SQLite (a
thread here watches `PRAGMA data_version` on its own connection every millisecond) and stops when
the window shows it everywhere it should: the status bar's count, the sidebar's Starred count and
the starred paper's row. The requirement (issue 17) is within 2 s. Also printed: the CLI's own run
time, and the window's idle CPU with the outside-change poll on and off (same run, same window).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")

ROOT = Path(__file__).resolve().parents[1]
IDLE_SECONDS = 5.0


class CommitWatcher(threading.Thread):
    """Notes the time of every commit another connection makes to the database."""

    def __init__(self, database: Path) -> None:
        super().__init__(daemon=True)
        self._conn = sqlite3.connect(str(database), check_same_thread=False)
        self.commits: list[float] = []
        self._halt = threading.Event()

    def run(self) -> None:
        last = self._conn.execute("PRAGMA data_version").fetchone()[0]
        while not self._halt.is_set():
            now = self._conn.execute("PRAGMA data_version").fetchone()[0]
            if now != last:
                last = now
                self.commits.append(time.perf_counter())
            time.sleep(0.001)

    def first_after(self, t: float) -> float | None:
        return next((c for c in self.commits if c >= t), None)

    def stop(self) -> None:
        self._halt.set()
        self.join(2)
        self._conn.close()


def cli(data_dir: Path, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, READER_DATA_DIR=str(data_dir), PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "reader", *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def wait(app, condition, timeout: float = 60.0) -> bool:
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.002)
    return False


def shown(window, pid: str, starred: int) -> bool:
    item = window.sidebar.item_for("starred:")
    row = window.model.row_of(pid)
    data = window.model.row_data(row) if row >= 0 else None
    counted = f" {starred} starred" in window.status.countsLabel.text()
    return counted and item is not None and item.text(1) == str(starred) and data is not None and data.starred


def idle_cpu(app, seconds: float) -> float:
    """CPU seconds the process used while idle for `seconds` (the event loop running)."""
    start = time.process_time()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)
    return time.process_time() - start


def main() -> None:
    args = sys.argv[1:]
    data_arg = None
    if "--dir" in args:
        i = args.index("--dir")
        data_arg = Path(args[i + 1])
        del args[i:i + 2]
    n = int(args[0]) if args else 24

    from PySide6.QtWidgets import QApplication

    from reader.library import Library, View
    from reader.ui.change_bridge import OUTSIDE_POLL_MS
    from reader.ui.window.main_window import MainWindow

    tmp = None
    if data_arg is None:
        tmp = Path(tempfile.mkdtemp(prefix="reader-bench-outside-"))
        data_arg = tmp / "library"
    app = QApplication.instance() or QApplication([])
    library = Library.open(data_arg)
    window = MainWindow(library, theme="light")
    window.show()
    if not wait(app, lambda: window.index_ready and not window.runner.busy and window.model.rowCount() > 0, 600):
        sys.exit("the window did not get ready")
    base, total = library.counts().starred, library.counts().total
    candidates = [pid for pid in window.model.ids()[:200] if pid not in set(library.paper_ids(View("starred")))]
    ids = candidates[:n]
    watcher = CommitWatcher(library.paths.database)
    watcher.start()
    latencies, runs = [], []
    try:
        for i, pid in enumerate(ids, start=1):
            started = time.perf_counter()
            proc = cli(data_arg, "star", pid)
            if not wait(app, lambda pid=pid, i=i: shown(window, pid, base + i), 60):
                sys.exit(f"star {i}: not shown within 60 s")
            visible = time.perf_counter()
            proc.wait(60)
            runs.append(time.perf_counter() - started)
            if proc.returncode:
                sys.exit(f"star {i}: the CLI failed: {proc.stderr.read() if proc.stderr else ''}")
            commit = watcher.first_after(started)
            if commit is None:
                sys.exit(f"star {i}: no commit seen")
            latencies.append(visible - commit)
        idle_cpu(app, 2.0)  # let the last star's index work settle
        window.changes.set_poll_interval(0)
        cpu_off = idle_cpu(app, IDLE_SECONDS)
        window.changes.set_poll_interval(OUTSIDE_POLL_MS)
        cpu_on = idle_cpu(app, IDLE_SECONDS)
    finally:
        watcher.stop()
        undo = cli(data_arg, "unstar", *ids) if ids and tmp is None else None
        if undo is not None:
            undo.wait(120)
        window.close()
        app.processEvents()
        library.close()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

    ms = [x * 1000 for x in latencies]
    print(f"library: {total:,} papers; poll every {OUTSIDE_POLL_MS} ms")
    print(f"outside star → visible (counts, sidebar, row), {len(ms)} CLI stars: median {statistics.median(ms):.0f} ms, "
          f"mean {statistics.mean(ms):.0f} ms, max {max(ms):.0f} ms (requirement: 2000 ms)")
    print(f"reference: the CLI run itself (start → exit) median {statistics.median(runs) * 1000:.0f} ms")
    print(f"idle CPU over {IDLE_SECONDS:.0f} s: poll on {cpu_on * 1000:.0f} ms, poll off {cpu_off * 1000:.0f} ms "
          f"({(cpu_on - cpu_off) / IDLE_SECONDS * 100:.2f}% of one core for the poll)")


if __name__ == "__main__":
    main()
