"""The map while another process writes: a layout runs to its end, and what was written
meanwhile is brought in after it (not by restarting the layout at every write)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from reader.map import store
from reader.map.features import Cancelled
from reader.services import Library
from reader.store import map_rows
from reader.ui.main_window import MainWindow


def test_a_layout_runs_through_writes_from_another_process(qtbot, window: MainWindow, data_dir: Path,
                                                           tmp_path: Path, monkeypatch):
    controller = window.map
    window.changes.set_poll_interval(50)  # the other process's commits seen quickly
    real_build = store.build
    started, release = threading.Event(), threading.Event()
    finished: list[int] = []

    def slow_build(conn, *, progress=None, cancelled=None):
        started.set()  # a long layout, stopping where the real one checks its cancel flag
        while not release.wait(0.01):
            if cancelled is not None and cancelled():
                raise Cancelled
        out = real_build(conn, progress=progress, cancelled=cancelled)
        finished.append(len(out.ids))
        return out

    monkeypatch.setattr(store, "build", slow_build)
    controller.open()  # no map yet: the first layout
    assert started.wait(10)
    other = Library.open(data_dir)  # another process's connection to the library
    src = tmp_path / "new.jsonl"
    src.write_text(json.dumps({"title": "Written meanwhile", "abstract": "Graph networks for molecules."}) + "\n",
                   "utf-8")
    other.import_files([src], index=False)
    starred = map_rows.all_ids(other.read_connection())[0]
    other.set_starred([starred], True)
    other.close()
    qtbot.waitUntil(lambda: controller.pending, timeout=10000)  # heard of, kept for after the layout
    release.set()
    qtbot.waitUntil(lambda: controller.layout_task is None and not controller.pending and bool(finished),
                    timeout=60000)
    assert finished == [57]  # the full layout ran to its end, once
    pic = controller.picture
    assert pic is not None and "Written meanwhile" in [pic.titles[i] for i in range(len(pic))]
    assert pic.state[pic.position[starred]] == map_rows.STARRED
