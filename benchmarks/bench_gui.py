"""GUI benchmark on a 50,000-paper library: start-up, J/K step cost, typing queries as you type
(longest GUI stall; keystroke to table updated), first paint of a big result list.

Run: .venv/bin/python benchmarks/bench_gui.py [N_QUERIES] [--size=100k] [--busy=N] [--phases=…]   (prints
figures; not a timed test; --size=100k, or the older --replicas=2, with its own READER_BENCH_DIR
gives the 100k library of benchmarks/corpus.py, which the identity rules keep whole). It prints
how many papers the library holds, and CPU seconds and the load beside the wall times.
--busy=N starts N CPU-bound processes (plain Python loops, normal priority) before the window
opens and ends them after the last figure: a laptop compiling or in a video call beside Reader.
A 5 ms QTimer heartbeat runs from the first paint to the end (J/K, typing, triage): the longest
gap between its beats past its interval is the longest GUI stall, per phase.
--stalls also prints, for each stall over 100 ms (10 per phase at most), where the GUI thread
and every worker running Python were while it lasted (a watchdog thread samples them once the
gap passes 100 ms): the stack to fix.
The library is imported once from ../shared/corpora/ml_conference_corpus/papers.jsonl into
/tmp/reader-bench-gui or $READER_BENCH_DIR (reused afterwards; delete the folder to rebuild it).
The start counts Reader's and Qt's imports (nothing of Reader is imported before its clock starts).
GUI-thread CPU (time.thread_time on the GUI thread) is printed beside the wall times: on a
machine loaded by other jobs it is the figure to compare.
The typed queries are paper titles (3-10 words, ASCII) sampled from the same file.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import CORPUS, Clock, corpus_100k, library_count, load

if {"-h", "--help"} & set(sys.argv[1:]):  # before anything opens or builds a library
    print(__doc__)
    sys.exit(0)
_UNKNOWN = [a for a in sys.argv[1:] if a.startswith("-")
            and a != "--stalls" and not a.startswith(("--size=", "--replicas=", "--busy=", "--phases="))]
if _UNKNOWN:
    sys.exit(f"bench_gui.py: unknown option {_UNKNOWN[0]} (--help lists them)")
CACHE = Path(os.environ.get("READER_BENCH_DIR", "/tmp/reader-bench-gui"))
os.environ.setdefault("READER_CONFIG_DIR", str(CACHE.with_name(CACHE.name + "-config")))  # not the user's
_ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
N_QUERIES = int(_ARGS[0]) if _ARGS else 24
# --size=100k (or --replicas=2): the corpus and its altered copy (benchmarks/corpus.py); build
# it in its own READER_BENCH_DIR.
BIG = "--size=100k" in sys.argv[1:] or "--replicas=2" in sys.argv[1:]
BUSY = next((int(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith("--busy=")), 0)
# --phases=start,jk,triage,scroll,typing,keys,big (default: every one): a short run of the
# phases asked for (the start is always measured).
PHASES = next((set(a.split("=", 1)[1].split(",")) for a in sys.argv[1:] if a.startswith("--phases=")),
              {"jk", "triage", "scroll", "typing", "keys", "big"})
STALLS = "--stalls" in sys.argv[1:]
STALL_MS = 100  # a stall this long is sampled (--stalls)
BIG_QUERY = "learning"  # matches most of the library: the first paint of a big result list


def sample_titles(n: int, seed: int = 7) -> list[str]:
    """Natural queries: titles of 3-10 words (ASCII: QTest types them key by key)."""
    titles = []
    with CORPUS.open(encoding="utf-8") as f:
        for line in f:
            title = " ".join(str(json.loads(line).get("title") or "").split())
            if title.isascii() and 3 <= len(title.split()) <= 10:
                titles.append(title)
    return random.Random(seed).sample(titles, n)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def build_cache() -> None:
    marker = CACHE / "bench-ready"
    if marker.exists():  # Reader not imported yet: the start's figure counts its imports
        return
    from reader.library import Library

    if not CORPUS.exists():
        sys.exit(f"corpus not found: {CORPUS}")
    print(f"building the benchmark library in {CACHE} (once)…", flush=True)
    clock = Clock()
    source = corpus_100k(CACHE.with_name(CACHE.name + "-100k.jsonl")) if BIG else CORPUS
    with Library.open(CACHE, seed_if_empty=False) as lib:
        summaries = lib.import_files([source])
        lib.sync_index()
        print(f"  imported {sum(s.new for s in summaries)} papers: {clock}", flush=True)
    marker.write_text("ok\n")


def spin(app, seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.001)


def wait(app, condition, timeout: float = 600.0) -> None:  # a busy machine: minutes
    end = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > end:
            raise TimeoutError("benchmark: timed out")
        app.processEvents()
        time.sleep(0.001)


def busy_processes(n: int) -> list:
    """n CPU-bound processes at normal priority (ended by the caller)."""
    import subprocess

    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


class Heartbeat:
    """A 5 ms precise QTimer on the GUI thread: each gap between beats beyond 5 ms is time the
    event loop could not run (a stall), recorded per phase."""

    def __init__(self) -> None:
        from PySide6.QtCore import QElapsedTimer, Qt, QTimer

        self.clock = QElapsedTimer()
        self.clock.start()
        self.last = self.clock.nsecsElapsed()
        self.phase = "start"
        self.gaps: dict[str, list[float]] = {}
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(5)
        self.timer.timeout.connect(self.beat)
        self.timer.start()
        self.beaten = time.perf_counter()  # for the stall watchdog (--stalls)
        self.stacks: dict[str, list[str]] = {}
        self.watching = STALLS
        if STALLS:
            threading.Thread(target=self._watch, name="bench-stall-watchdog", daemon=True).start()
            # Each cycle collection over 20 ms, by phase: a full one walks every object the
            # process holds (the index's lexicons included) with the GIL held throughout.
            import gc

            self.collections: dict[str, list[tuple[int, float, str]]] = {}
            self._gc_began = 0.0
            gc.callbacks.append(self._collected)

    def beat(self) -> None:
        now = self.clock.nsecsElapsed()
        self.gaps.setdefault(self.phase, []).append((now - self.last) / 1e6 - 5)
        self.last = now
        self.beaten = time.perf_counter()

    def _collected(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_began = time.perf_counter()
            return
        took = (time.perf_counter() - self._gc_began) * 1000
        if took > 20:
            self.collections.setdefault(self.phase, []).append(
                (info.get("generation", -1), took, threading.current_thread().name))

    def collection_report(self) -> str:
        return "; ".join(
            f"{phase} {len(found)} (longest {max(t for _, t, _ in found):.0f} ms, generations "
            f"{sorted({g for g, _, _ in found})}, on {sorted({n for _, _, n in found})})"
            for phase, found in self.collections.items()) or "none"

    def _watch(self) -> None:
        """--stalls: once a gap passes STALL_MS, the stacks of the GUI thread and of the workers
        running Python (not waiting for a job) at that moment, one sample per stall."""
        import traceback

        sampled = 0.0
        main = threading.main_thread().ident
        while self.watching:
            time.sleep(0.01)
            beaten = self.beaten
            if time.perf_counter() - beaten < STALL_MS / 1000 or beaten == sampled:
                continue
            sampled = beaten
            found = self.stacks.setdefault(self.phase, [])
            if len(found) >= 10:
                continue
            names = {t.ident: t.name for t in threading.enumerate()}
            lines = [f"stall past {STALL_MS} ms in {self.phase}:"]
            for ident, frame in sys._current_frames().items():
                if ident == threading.get_ident():
                    continue
                stack = traceback.extract_stack(frame)
                top = stack[-1] if stack else None
                idle = top is not None and (top.name in {"wait", "_worker", "get", "_wait_for_tstate_lock"}
                                            or "time.sleep" in (top.line or ""))
                if ident != main and idle:
                    continue
                # importlib's own frames left out (an import is marked): the module imported and
                # the Reader line that imports it are what the 12 frames shown should hold.
                importing = any(f.filename.startswith("<frozen importlib") for f in stack)
                stack = [f for f in stack if not f.filename.startswith("<frozen importlib")]
                shown = " < ".join(f"{Path(f.filename).parent.name}/{Path(f.filename).name}:{f.lineno} {f.name}"
                                   for f in reversed(stack[-12:]))
                if importing:
                    shown = "(importing) " + shown
                lines.append(f"  {names.get(ident, ident)}: {shown}")
            found.append("\n".join(lines))

    def enter(self, phase: str) -> None:
        self.beat()
        self._profile(phase)
        self.phase = phase

    _profiler = None

    def _profile(self, phase: str) -> None:
        """READER_BENCH_PROFILE=PHASE: the GUI thread's Python profile of that phase (cProfile,
        this thread only), printed when the next phase begins."""
        import cProfile
        import pstats

        wanted = os.environ.get("READER_BENCH_PROFILE")
        if self._profiler is not None:
            self._profiler.disable()
            print(f"GUI-thread profile of {self.phase}:")
            pstats.Stats(self._profiler).sort_stats("cumulative").print_stats(25)
            self._profiler = None
        if wanted and phase == wanted:
            self._profiler = cProfile.Profile()
            self._profiler.enable()

    def longest(self, phase: str) -> float:
        return max(self.gaps.get(phase) or [0.0])

    def stall_stacks(self) -> str:
        return "\n".join(stack for found in self.stacks.values() for stack in found)

    def report(self) -> str:
        return "; ".join(f"{phase} {max(g):.0f} ms ({sum(x > 100 for x in g)} over 100 ms)"
                         for phase, g in self.gaps.items() if g)


def main() -> int:
    build_cache()
    busy = busy_processes(BUSY)
    try:
        return measure()
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()


def measure() -> int:

    queries = sample_titles(N_QUERIES)  # read before the clocks start (an 82 MB file)
    t0 = time.perf_counter()
    gui0 = time.thread_time()
    clock = Clock()
    from reader.library import Library
    from reader.ui.app import make_app
    from reader.ui.window.main_window import MainWindow

    app = make_app()
    lib = Library.open(CACHE, seed_if_empty=False)
    window = MainWindow(lib, theme="light")
    window.resize(1280, 800)
    window.show()
    wait(app, lambda: window.model.rowCount() > 0 and window.pane.paper_id is not None)
    app.processEvents()
    startup = time.perf_counter() - t0
    startup_cpu = clock.cpu
    startup_gui = time.thread_time() - gui0
    papers = window.model.rowCount()
    beat = Heartbeat()
    wait(app, lambda: window.index_ready and not window.runner.busy, timeout=600)
    held = library_count(CACHE)
    print(f"library: {held:,} papers held, {papers:,} listed at first paint ({CACHE}); "
          f"load {load()}; {BUSY} busy processes beside it", flush=True)
    print(f"start to usable window: {startup:.2f} s wall, {startup_cpu:.2f} s CPU (process), "
          f"{startup_gui:.2f} s GUI thread (target ≤ 1.5 s)", flush=True)
    if "jk" in PHASES:
        jk_phase(app, window, beat)
    if "triage" in PHASES:
        triage_phase(app, window, beat)
    if "scroll" in PHASES:
        scroll_phase(app, window, beat, held)
    if "typing" in PHASES:
        typing_phase(app, window, beat, queries)
    if "keys" in PHASES:
        keys_phase(app, window, beat, queries)
    if "big" in PHASES:
        big_phase(app, window, beat)
    beat.timer.stop()
    beat._profile("")  # READER_BENCH_PROFILE's last phase printed
    beat.watching = False
    print(f"longest GUI stall by phase (5 ms heartbeat; target none over 100 ms): {beat.report()}")
    if STALLS:
        print(beat.stall_stacks() or "no stall over 100 ms was sampled")
        print(f"cycle collections over 20 ms by phase: {beat.collection_report()}")
    print(f"whole run: {clock}; load {load()}")
    window.close()
    lib.close()
    return 0


def jk_phase(app, window, beat: Heartbeat) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    beat.enter("J/K")

    # J/K: GUI-thread time of one step (key event + pane update), including queued deliveries.
    window.table.setFocus()
    # Let the focus change repaint first: the first event pass after it used to be counted as a
    # J/K step (the one 65-120 ms "outlier"); it is a one-off warm-up, reported separately.
    s = time.perf_counter()
    app.processEvents()
    focus_pass = (time.perf_counter() - s) * 1000
    spin(app, 0.3)
    steps: list[float] = []
    step_cpu: list[float] = []  # the GUI thread's own CPU per step: what load does not inflate
    late: list[float] = []  # steps whose paper was not read ahead: key -> the paper shown
    for i in range(200):
        k = Qt.Key.Key_J if (i // 50) % 2 == 0 else Qt.Key.Key_K
        s, c = time.perf_counter(), time.thread_time()
        QTest.keyClick(window.table, k)
        app.processEvents()
        steps.append((time.perf_counter() - s) * 1000)
        step_cpu.append((time.thread_time() - c) * 1000)
        if window.pane.paper_id != window.current_id():  # not read ahead: read on a worker
            wait(app, lambda: window.pane.paper_id == window.current_id())
            late.append((time.perf_counter() - s) * 1000)
        spin(app, 0.01)  # let the related-papers worker deliver, as between real key presses

    print(f"J/K step, GUI thread: median {statistics.median(steps):.1f} ms, "
          f"p95 {sorted(steps)[int(len(steps) * 0.95)]:.1f} ms, max {max(steps):.1f} ms (target ≤ 16 ms); "
          f"first pass after focusing the table {focus_pass:.1f} ms; longest stall {beat.longest('J/K'):.0f} ms; "
          f"load {load()}", flush=True)
    print(f"J/K step, GUI-thread CPU: median {statistics.median(step_cpu):.1f} ms, "
          f"p95 {pct(step_cpu, 0.95):.1f} ms", flush=True)
    print(f"J/K steps whose paper was shown within the step: {len(steps) - len(late)} of {len(steps)}"
          + (f"; the others shown after median {statistics.median(late):.1f} ms, max {max(late):.1f} ms "
             "(read on a worker)" if late else ""), flush=True)

    # Jumps: a click far down the list (the map, End, a scrolled-to row): papers not read ahead.
    jumps: list[float] = []
    shown_after: list[float] = []
    rows = window.model.rowCount()
    for i in range(30):
        row = (i * 7919 + 4111) % rows
        s = time.perf_counter()
        window.table.go_to_row(row)
        app.processEvents()
        jumps.append((time.perf_counter() - s) * 1000)
        wait(app, lambda: window.pane.paper_id == window.current_id())
        shown_after.append((time.perf_counter() - s) * 1000)
        spin(app, 0.05)
    print(f"jump to a far row (30, not read ahead), GUI thread: median {statistics.median(jumps):.1f} ms, "
          f"p95 {pct(jumps, 0.95):.1f} ms, max {max(jumps):.1f} ms; the paper shown after median "
          f"{statistics.median(shown_after):.1f} ms, max {max(shown_after):.1f} ms; "
          f"longest stall {beat.longest('J/K'):.0f} ms", flush=True)



def triage_phase(app, window, beat: Heartbeat) -> None:
    """Ctrl+T on the whole library's list, then J (move on) and X (not for me) as a reader
    deciding: one key, its card painted, a short pause (the prefetch and the re-rank run on
    workers in between)."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    beat.enter("triage")
    from reader.ui.triage.controller import TriageController

    triage: TriageController = window.triage
    QTest.keyClick(window.table, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    wait(app, lambda: triage.active and triage.view.card is not None, timeout=120)
    spin(app, 0.5)
    triage_steps: dict[str, list[float]] = {"J": [], "X": []}
    triage_cpu: dict[str, list[float]] = {"J": [], "X": []}
    for i in range(80):
        name, k = ("X", Qt.Key.Key_X) if i % 4 == 3 else ("J", Qt.Key.Key_J)
        target = triage.view.focusWidget() or triage.view
        s, c = time.perf_counter(), time.thread_time()
        QTest.keyClick(target, k)
        app.processEvents()
        triage_steps[name].append((time.perf_counter() - s) * 1000)
        triage_cpu[name].append((time.thread_time() - c) * 1000)
        spin(app, 0.05)
    QTest.keyClick(triage.view.focusWidget() or triage.view, Qt.Key.Key_U)  # undo the last X
    spin(app, 0.3)
    # Back from triage (its own phase in the stall report): the list catches up with what was
    # stored meanwhile; rows read on the GUI thread for it, wall and GUI CPU until it is shown.
    spin(app, 0.3)
    beat.enter("back from triage")
    read_here = window.model.pages_read_here
    s, c = time.perf_counter(), time.thread_time()
    QTest.keyClick(triage.view.focusWidget() or triage.view, Qt.Key.Key_Escape)
    wait(app, lambda: not triage.active, timeout=600)
    wait(app, lambda: not window._list_stale and not window._relist_asked, timeout=600)
    back_wall, back_cpu = (time.perf_counter() - s) * 1000, (time.thread_time() - c) * 1000
    spin(app, 0.5)  # painted, and whatever painting asks for read
    print(f"back from triage: list caught up in {back_wall:.0f} ms wall, {back_cpu:.0f} ms GUI-thread CPU; "
          f"pages of rows read on the GUI thread {window.model.pages_read_here - read_here}; "
          f"longest stall {beat.longest('back from triage'):.0f} ms (incl. 0.5 s after); load {load()}", flush=True)
    for name, values in triage_steps.items():
        print(f"triage {name} (key to card painted, GUI thread): median {statistics.median(values):.1f} ms, "
              f"p95 {pct(values, 0.95):.1f} ms, max {max(values):.1f} ms over {len(values)} (target p95 ≤ 30 ms); "
              f"longest stall {beat.longest('triage'):.0f} ms; load {load()}; GUI-thread CPU median "
              f"{statistics.median(triage_cpu[name]):.1f} ms, p95 {pct(triage_cpu[name], 0.95):.1f} ms", flush=True)
    wait(app, lambda: not window.runner.busy, timeout=1800)  # the decisions stored, the re-rank done


def scroll_phase(app, window, beat: Heartbeat, held: int) -> None:
    wait(app, lambda: window.model.rowCount() >= held)  # the whole list (its first page came at once)
    spin(app, 0.3)  # the view's delayed relayout: the scroll bar's range
    window.table.setFocus()
    beat.enter("scroll")

    # Scrolling: page through the whole table (~300 jumps), each page painted and then the
    # events let run (queued deliveries, the heartbeat) as between a user's scroll steps: the
    # heartbeat's longest gap is then a real stall, not this loop's length.
    bar = window.table.verticalScrollBar()
    pages: list[float] = []
    page_cpu: list[float] = []
    read_here = [0]
    real_rows = window.library.rows
    gui = threading.get_ident()

    def rows(ids):  # rows read on the GUI thread (a page past those the list's worker read)
        read_here[0] += threading.get_ident() == gui
        return real_rows(ids)

    window.library.rows = rows
    try:
        for value in range(0, bar.maximum(), max(bar.pageStep(), 1) * max(1, bar.maximum() // (bar.pageStep() * 300) or 1)):
            s, c = time.perf_counter(), time.thread_time()
            bar.setValue(value)
            window.table.viewport().repaint()
            app.processEvents()
            pages.append((time.perf_counter() - s) * 1000)
            page_cpu.append((time.thread_time() - c) * 1000)
            spin(app, 0.005)
    finally:
        del window.library.rows
    if pages:
        print(f"scroll one page + repaint + events: median {statistics.median(pages):.1f} ms, p95 {pct(pages, 0.95):.1f} ms, "
              f"max {max(pages):.1f} ms ({len(pages)} pages, {read_here[0]} pages of rows read on the GUI thread); "
              f"GUI-thread CPU median {statistics.median(page_cpu):.1f} / p95 {pct(page_cpu, 0.95):.1f} ms; "
              f"longest stall {beat.longest('scroll'):.0f} ms; load {load()}", flush=True)


def typing_phase(app, window, beat: Heartbeat, queries: list[str]) -> None:
    from PySide6.QtCore import QElapsedTimer, Qt, QTimer
    from PySide6.QtTest import QTest

    # Typing: a 5 ms QTimer probe records the longest gap (GUI stall) while titles are typed at
    # ~6 characters per second (past the debounce: every key re-lists, off the GUI thread).
    typed = queries[: max(4, len(queries) // 4)]
    beat.enter("typing")
    window.focus_search()
    gaps: list[float] = []
    probe_clock = QElapsedTimer()
    probe_clock.start()
    last = [probe_clock.nsecsElapsed()]

    def probe() -> None:
        now = probe_clock.nsecsElapsed()
        gaps.append((now - last[0]) / 1e6)
        last[0] = now

    timer = QTimer()
    timer.setTimerType(Qt.TimerType.PreciseTimer)
    timer.setInterval(5)
    timer.timeout.connect(probe)
    timer.start()
    spin(app, 0.1)
    gaps.clear()
    last[0] = probe_clock.nsecsElapsed()
    for query in typed:
        window.searchBox.clear()
        for ch in query:
            QTest.keyClicks(window.searchBox, ch)
            spin(app, 0.17)
        wait(app, lambda q=query: window.search_results is not None and window.search_results.query == q)
    spin(app, 0.3)
    timer.stop()
    stall = max(gaps) - 5 if gaps else 0.0
    print(f"typing {len(typed)} titles at ~6 keys/s: longest GUI stall {stall:.1f} ms, "
          f"p95 probe gap {pct(gaps, 0.95):.1f} ms over {len(gaps)} probes (target ≤ 50 ms); load {load()}",
          flush=True)


def keys_phase(app, window, beat: Heartbeat, queries: list[str]) -> None:
    from PySide6.QtTest import QTest

    beat.enter("keystrokes")
    # Keystroke to table updated: each key of every query, the debounce skipped (refresh_list at
    # once), measured until the new ids are in the model; the GUI-thread part of it separately.
    # GUI-thread CPU per key (time.thread_time: what the load does not inflate) beside the wall.
    per_key: list[float] = []
    key_cpu: list[float] = []
    gui_part: list[float] = []
    gui_cpu: list[float] = []
    zero = keys = 0
    dropped = getattr(window, "listings_dropped", 0)
    # Older code (a same-run reference) applied each listing in _list_ready.
    applies = "_apply_listing" if hasattr(window, "_apply_listing") else "_list_ready"
    original_apply = getattr(window, applies)

    def timed_apply(found, *args) -> None:  # (listing, listing key): the table's update
        s, c = time.perf_counter(), time.thread_time()
        original_apply(found, *args)
        gui_part.append((time.perf_counter() - s) * 1000)
        gui_cpu.append((time.thread_time() - c) * 1000)

    setattr(window, applies, timed_apply)
    for query in queries:
        window.searchBox.clear()
        window.refresh_list()
        wait(app, lambda: window.search_results is None)
        for ch in query:
            gen = window.list_generation
            s, c = time.perf_counter(), time.thread_time()
            QTest.keyClicks(window.searchBox, ch)
            window.refresh_list()
            wait(app, lambda g=gen: window.list_generation > g)
            app.processEvents()  # the table's repaint
            per_key.append((time.perf_counter() - s) * 1000)
            key_cpu.append((time.thread_time() - c) * 1000)
            if window.searchBox.text().strip():
                keys += 1
                zero += window.model.rowCount() == 0
    setattr(window, applies, original_apply)
    print(f"keystroke to table updated ({len(per_key)} keys, {len(queries)} titles, debounce skipped): "
          f"p50 {statistics.median(per_key):.1f} ms, p95 {pct(per_key, 0.95):.1f} ms, max {max(per_key):.1f} ms "
          f"wall (target p95 ≤ 50 ms quiet, ≤ 150 ms beside 2 busy); GUI-thread CPU per key (key, listing "
          f"applied, repaint) p50 {statistics.median(key_cpu):.1f} / p95 {pct(key_cpu, 0.95):.1f} / "
          f"max {max(key_cpu):.1f} ms; the table's update (_apply_listing) wall p50 {statistics.median(gui_part):.1f} "
          f"/ p95 {pct(gui_part, 0.95):.1f} / max {max(gui_part):.1f} ms, CPU p50 {statistics.median(gui_cpu):.1f} "
          f"/ p95 {pct(gui_cpu, 0.95):.1f} ms; zero-hit keystrokes {zero}/{keys}; listings dropped unshown "
          f"{getattr(window, 'listings_dropped', 0) - dropped}; longest stall {beat.longest('keystrokes'):.0f} ms; load {load()}",
          flush=True)


def big_phase(app, window, beat: Heartbeat) -> None:
    beat.enter("big list")
    # First paint of a big result list: the first page at once, the rest fetched on scroll.
    window.searchBox.clear()
    window.refresh_list()
    wait(app, lambda: window.search_results is None)
    s = time.perf_counter()
    window.searchBox.setText(BIG_QUERY)
    window.refresh_list()
    wait(app, lambda: window.search_results is not None and window.search_results.query == BIG_QUERY)
    window.table.viewport().repaint()
    big_paint = (time.perf_counter() - s) * 1000
    big_total, big_rows = window.model.total(), window.model.rowCount()
    s = time.perf_counter()
    window.table.scrollToBottom()
    wait(app, lambda: window.model.rowCount() > big_rows or window.model.rowCount() >= big_total)
    window.table.viewport().repaint()
    next_page = (time.perf_counter() - s) * 1000

    # A direct search-to-results figure.
    window.searchBox.clear()
    wait(app, lambda: window.search_results is None)
    s = time.perf_counter()
    window.searchBox.setText("graph neural network")
    window.refresh_list()
    wait(app, lambda: window.search_results is not None and window.search_results.query == "graph neural network")
    search_latency = (time.perf_counter() - s) * 1000

    print(f"first paint of {BIG_QUERY!r} ({big_total:,} matches, {big_rows} rows at once): {big_paint:.0f} ms; "
          f"next page on scrolling to the bottom: {next_page:.0f} ms")
    print(f"search 'graph neural network' to table (debounce skipped): {search_latency:.0f} ms; load {load()}",
          flush=True)


if __name__ == "__main__":
    sys.exit(main())
