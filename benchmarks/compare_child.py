"""One measurement of bench_compare.py, run by the checkout it measures (its own venv, its cwd).

Run: PYTHON compare_child.py TASK DATA_DIR [SOURCE]; prints one JSON line {"wall", "cpu", ...}.
Only Reader's public API that every version since the identity work has (Library.open,
import_files, sync_index, listing, paper_ids, rows, the window) is used, so the same file
measures the working tree and an older ref alike. Standalone on purpose: a ref's checkout has
no benchmarks/corpus.py of this version.
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")
os.environ.setdefault("READER_DAILY_MAINTENANCE", "off")  # not measured here: `stats` measures it
sys.path.insert(0, os.getcwd())  # the measured checkout


def cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def api():
    """(Library, View) in this checkout's layout (reader.library since issue 32, reader.services before)."""
    try:
        from reader.library import Library, View
    except ImportError:
        from reader.services import Library, View  # type: ignore[no-redef]
    return Library, View


def titles(source: Path, n: int, seed: int = 7) -> list[str]:
    found = []
    with source.open(encoding="utf-8") as f:
        for line in f:
            title = " ".join(str(json.loads(line).get("title") or "").split())
            if title.isascii() and 3 <= len(title.split()) <= 10:
                found.append(title)
    return random.Random(seed).sample(found, n)


def typo(title: str, seed: int) -> str:
    """The title with one slip of the fingers in its longest word: two neighbouring letters
    swapped (a typist's commonest typo), as the window's search must still find it."""
    words = title.split()
    i = max(range(len(words)), key=lambda j: len(words[j]))
    w = words[i]
    if len(w) >= 4:
        k = 1 + random.Random(seed).randrange(len(w) - 2)
        words[i] = w[:k] + w[k + 1] + w[k] + w[k + 2:]
    return " ".join(words)


def task_search(data: Path, source: Path) -> dict:
    """Every keystroke of 12 typed titles as a listing (the window's search per keystroke),
    each title typed once as it is and once with a typo (two letters of its longest word
    swapped)."""
    Library, _view = api()
    typed = titles(source, 12)
    typed = [t for n, title in enumerate(typed) for t in (title, typo(title, n))]
    with Library.open(data, seed_if_empty=False) as lib:
        lib.sync_index()
        lib.listing(typed[0][:3])  # warm: the searcher open
        c, t = cpu(), time.perf_counter()
        keys: list[float] = []
        for title in typed:
            for i in range(1, len(title) + 1):
                s = time.perf_counter()
                lib.listing(title[:i])
                keys.append((time.perf_counter() - s) * 1000)
        keys.sort()
        return {"wall": time.perf_counter() - t, "cpu": cpu() - c, "count": len(keys),
                "key_p50_ms": keys[len(keys) // 2], "key_p95_ms": keys[int(len(keys) * 0.95)]}


def task_rerank(data: Path, source: Path) -> dict:
    """Triage's best-first re-rank of the whole library after a decision (the learner built
    from 20 stars and 20 skips beforehand, as the window's queue has it)."""
    from reader.triage.best import BestFirst

    Library, View = api()

    with Library.open(data, seed_if_empty=False) as lib:
        ids = lib.paper_ids(View(), sort="added", descending=False)
        lib.set_starred(ids[:40:2], True)
        lib.set_skipped(ids[1:40:2], True)
        try:
            best = BestFirst(lib, lib.paths.root)
            best.build()
            candidates = ids[40:]
            best.rank(candidates, best.decisions(), why=10)  # warm: the learner's first fit
            lib.set_starred(ids[40:41], True)  # the decision
            c, t = cpu(), time.perf_counter()
            ranking, _why = best.rank(candidates[1:], best.decisions(), why=10)
            return {"wall": time.perf_counter() - t, "cpu": cpu() - c, "count": len(ranking.order)}
        finally:
            lib.set_starred(ids[:41], False)
            lib.set_skipped(ids[1:40:2], False)


def task_map(data: Path, source: Path) -> dict:
    """The whole library's map laid out anew (features, neighbours, layout, clusters)."""
    try:
        from reader.map import mapfile as store
    except ImportError:
        from reader.map import store  # type: ignore[no-redef]
    Library, _view = api()
    with Library.open(data, seed_if_empty=False) as lib:
        c, t = cpu(), time.perf_counter()
        mapped = store.current(lib, lib.paths.root, full=True)
        n = len(getattr(mapped, "ids", []) or [])
        return {"wall": time.perf_counter() - t, "cpu": cpu() - c, "count": n}


def task_gui(data: Path, source: Path) -> dict:
    """Window start (first row and paper shown) and J/K held for 200 steps (GUI thread); the
    steps' figures under "jk" (bench_compare.py shows them as a row of their own)."""
    t0, c0 = time.perf_counter(), cpu()
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from reader.ui.app import make_app

    try:
        from reader.ui.window.main_window import MainWindow
    except ImportError:
        from reader.ui.main_window import MainWindow  # type: ignore[no-redef]
    Library, _view = api()

    app = make_app()
    lib = Library.open(data, seed_if_empty=False)
    window = MainWindow(lib, theme="light")
    window.resize(1280, 800)
    window.show()
    _wait(app, lambda: window.model.rowCount() > 0 and window.pane.paper_id is not None)
    app.processEvents()
    start_wall, start_cpu = time.perf_counter() - t0, cpu() - c0
    _wait(app, lambda: window.index_ready and not window.runner.busy, 900)
    window.table.setFocus()
    app.processEvents()
    steps = []
    c, t = cpu(), time.perf_counter()
    for i in range(200):  # J 50 times, K 50 times, J, K: held keys both ways
        key = Qt.Key.Key_J if (i // 50) % 2 == 0 else Qt.Key.Key_K
        s = time.perf_counter()
        QTest.keyClick(window.table, key)
        app.processEvents()
        steps.append((time.perf_counter() - s) * 1000)
    jk_wall, jk_cpu = time.perf_counter() - t, cpu() - c
    steps.sort()
    count = window.model.rowCount()
    window.close()
    lib.close(finish_backup=False)
    return {"wall": start_wall, "cpu": start_cpu, "count": count,
            "jk": {"wall": jk_wall, "cpu": jk_cpu, "p50_ms": steps[100], "p95_ms": steps[190],
                   "max_ms": steps[-1], "count": 200}}


def _wait(app, condition, timeout: float = 120.0) -> None:
    end = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > end:
            raise TimeoutError("timed out")
        app.processEvents()
        time.sleep(0.001)


def main() -> int:
    task, data = sys.argv[1], Path(sys.argv[2])
    source = Path(sys.argv[3]) if len(sys.argv) > 3 else Path()
    out = globals()[f"task_{task}"](data, source)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
