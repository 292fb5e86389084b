"""Triage benchmark on a 50,000-paper library: open time, key to next abstract painted, re-rank after a star.

Run: .venv/bin/python benchmarks/bench_triage.py   (prints figures; not a timed test)
Uses the library bench_gui.py builds from ../shared/corpora/ml_conference_corpus/papers.jsonl
(READER_BENCH_DIR, default /tmp/reader-bench-gui; built once, reused afterwards).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_gui import CACHE, build_cache, spin, wait

HELD_STEPS = 3300  # one conference, J held down
PACED_STEPS = 300  # J pressed at a reading pace, with the event loop running between presses


def pct(values: list[float], p: float) -> float:
    return sorted(values)[min(int(len(values) * p), len(values) - 1)]


def figures(values: list[float]) -> str:
    return f"median {statistics.median(values):.1f} ms, p95 {pct(values, 0.95):.1f} ms, max {max(values):.1f} ms"


def main() -> int:
    build_cache()
    from PySide6.QtCore import QElapsedTimer, Qt, QTimer
    from PySide6.QtTest import QTest

    from reader.library import Library, View
    from reader.ui.app import make_app
    from reader.ui.triage.controller import install_triage
    from reader.ui.window.main_window import MainWindow

    app = make_app()
    lib = Library.open(CACHE, seed_if_empty=False)
    window = MainWindow(lib, theme="light")
    window.settings.remove("triage")  # a fresh queue, not the last run's resumed one
    lib.set_starred(lib.paper_ids(View("starred")), False)  # S below must star, not unstar
    window.resize(1280, 800)
    window.show()
    wait(app, lambda: window.model.rowCount() > 0 and window.pane.paper_id is not None)
    wait(app, lambda: window.index_ready and not window.runner.busy, timeout=600)
    triage = install_triage(window)
    papers = window.model.rowCount()

    # Open: Ctrl+T to the first abstract painted.
    window.table.setFocus()
    app.processEvents()
    s = time.perf_counter()
    QTest.keyClick(window.table, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    wait(app, lambda: triage.view.card is not None)
    triage.view.abstractView.viewport().repaint()
    open_ms = (time.perf_counter() - s) * 1000
    spin(app, 0.5)

    view = triage.view
    viewport = view.abstractView.viewport()

    cpu: list[float] = []  # GUI-thread CPU time of each step: the work itself, whatever the machine's load

    def step() -> float:
        start, start_cpu = time.perf_counter(), time.thread_time()
        QTest.keyClick(view, Qt.Key.Key_J)
        viewport.repaint()  # painted, not just queued
        cpu.append((time.thread_time() - start_cpu) * 1000)
        return (time.perf_counter() - start) * 1000

    # A 5 ms probe timer: the longest gap is the longest the GUI thread was busy (a stall).
    clock = QElapsedTimer()
    clock.start()
    gaps: list[float] = []
    last = [clock.nsecsElapsed()]

    def probe() -> None:
        now = clock.nsecsElapsed()
        gaps.append((now - last[0]) / 1e6)
        last[0] = now

    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(5)
    timer.timeout.connect(probe)

    # Paced: a key every 40 ms with the event loop running (prefetch and writes deliver meanwhile).
    paced: list[float] = []
    timer.start()
    gaps.clear()
    last[0] = clock.nsecsElapsed()
    for _ in range(PACED_STEPS):
        paced.append(step())
        spin(app, 0.04)
    timer.stop()
    paced_stall = max(gaps) - 5 if gaps else 0.0

    # Held J: key events back to back, as fast as the machine takes them (auto-repeat is ~30/s).
    paced_cpu = list(cpu)
    cpu.clear()
    held: list[float] = []
    t_held = time.perf_counter()
    for _ in range(HELD_STEPS):
        held.append(step())
        app.processEvents()
    held_s = time.perf_counter() - t_held
    spin(app, 1.0)  # the pending read marks are written
    wait(app, lambda: not window.runner.busy, timeout=120)
    position = triage.queue.position if triage.queue else -1

    # Best first: re-rank the ~46,000 unseen papers after a star (off the GUI thread).
    view.orderCombo.setCurrentIndex(2)
    wait(app, lambda: triage.queue is not None and triage.queue.order == "best_first")
    spin(app, 2.0)
    wait(app, lambda: not window.runner.busy, timeout=120)
    ranks: list[float] = []
    stalls: list[float] = []
    for _ in range(5):
        before = triage.ranks_applied
        triage.rank_ms = None
        timer.start()
        gaps.clear()
        last[0] = clock.nsecsElapsed()
        QTest.keyClick(view, Qt.Key.Key_S)
        wait(app, lambda b=before: triage.ranks_applied > b and triage.rank_ms is not None, timeout=120)
        timer.stop()
        ranks.append(triage.rank_ms or 0.0)
        stalls.append(max(gaps) - 5 if gaps else 0.0)
        QTest.keyClick(view, Qt.Key.Key_J)
        spin(app, 0.3)
        wait(app, lambda: not window.runner.busy, timeout=120)

    # The re-rank job by itself (seeds, ranking, merging the tail), with nothing else running.
    from reader.triage.queue import full_tail
    from reader.triage.ranking import rank_like
    from reader.triage.source import merge_seeds

    tail = triage.queue.tail() if triage.queue else []
    alone: list[float] = []
    for _ in range(3):
        s = time.perf_counter()
        full_tail(rank_like(lib, merge_seeds(triage.recent_seeds, triage.seed_base), tail), tail)
        alone.append((time.perf_counter() - s) * 1000)

    has_more_like = hasattr(lib, "more_like")
    print(f"library: {papers:,} papers ({CACHE}); machine load {os.getloadavg()[0]:.1f}")
    print(f"triage open (Ctrl+T to first abstract painted, queue of {papers:,}): {open_ms:.0f} ms")
    print(f"key to next abstract painted, paced (1 key / 40 ms, {PACED_STEPS} keys): {figures(paced)}; "
          f"longest GUI stall {paced_stall:.1f} ms (target p95 ≤ 16 ms); GUI-thread CPU per key {figures(paced_cpu)}")
    print(f"key to next abstract painted, J held ({HELD_STEPS:,} keys back to back, {held_s:.1f} s, "
          f"{HELD_STEPS / held_s:.0f} papers/s): {figures(held)}; GUI-thread CPU per key {figures(cpu)}; "
          f"now at paper {position + 1:,}")
    print(f"re-rank after a star ({'Library.more_like' if has_more_like else 'list-order fallback: no more_like yet'}): "
          f"{figures(ranks)}; longest GUI stall meanwhile {max(stalls):.1f} ms (target ≤ 300 ms, off the GUI thread); "
          f"the job alone on an idle runner ({len(tail):,} unseen papers): median {statistics.median(alone):.0f} ms")
    window.settings.remove("triage")
    window.close()
    lib.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
