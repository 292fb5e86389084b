"""The map while another process writes: a layout runs to its end, and what was written
meanwhile is brought in after it (not by restarting the layout at every write); a redraw reads
the other's commits at once, and draws them once the window's list has them."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from reader.library import Library
from reader.map import mapfile
from reader.map.features import LayoutCancelled
from reader.store import map_rows
from reader.ui.window.main_window import MainWindow


def test_a_layout_runs_through_writes_from_another_process(qtbot, window: MainWindow, data_dir: Path,
                                                           tmp_path: Path, monkeypatch):
    controller = window.map
    window.changes.set_poll_interval(50)  # the other process's commits seen quickly
    real_build = mapfile.build
    started, release = threading.Event(), threading.Event()
    finished: list[int] = []

    def slow_build(conn, *, progress=None, cancelled=None):
        started.set()  # a long layout, stopping where the real one checks its cancel flag
        while not release.wait(0.01):
            if cancelled is not None and cancelled():
                raise LayoutCancelled
        out = real_build(conn, progress=progress, cancelled=cancelled)
        finished.append(len(out.ids))
        return out

    monkeypatch.setattr(mapfile, "build", slow_build)
    controller.open()  # no map yet: the first layout
    assert started.wait(120)  # a limit on a hang only
    other = Library.open(data_dir)  # another process's connection to the library
    src = tmp_path / "new.jsonl"
    src.write_text(json.dumps({"title": "Written meanwhile", "abstract": "Graph networks for molecules."}) + "\n",
                   "utf-8")
    other.import_files([src], index=False)
    starred = map_rows.all_ids(other.read_connection())[0]
    other.set_starred([starred], True)
    other.close()
    qtbot.waitUntil(lambda: controller.pending)  # heard of, kept for after the layout
    release.set()
    qtbot.waitUntil(lambda: controller.layout_task is None and not controller.pending and bool(finished))
    assert finished == [57]  # the full layout ran to its end, once
    pic = controller.picture
    assert pic is not None and "Written meanwhile" in [pic.titles[i] for i in range(len(pic))]
    assert pic.state[pic.position[starred]] == map_rows.STARRED


def test_a_redraw_reads_another_process_commits_and_draws_the_list_as_it_stands(
        qtbot, window: MainWindow, data_dir: Path, tmp_path: Path):
    """The map's store side is never a stale snapshot: a redraw asked for before the window heard
    of another process's import (Re-layout, reopening the map) has the new paper placed and the
    other's stars marked. It draws the window's list, though, which has the paper only once the
    change bridge's poll re-listed it; then the map redraws by itself."""
    controller = window.map
    window.changes.set_poll_interval(60_000)  # the bridge not yet polled: only the redraw reads
    before = controller.generation
    controller.open()
    qtbot.waitUntil(lambda: controller.generation > before)
    other = Library.open(data_dir)
    src = tmp_path / "new.jsonl"
    src.write_text(json.dumps({"title": "Written meanwhile", "abstract": "Graph networks for molecules."}) + "\n",
                   "utf-8")
    other.import_files([src], index=False)
    new = next(pid for pid in map_rows.all_ids(other.read_connection()) if pid not in controller.picture.position)
    starred = controller.picture.ids[0]
    other.set_starred([starred], True)
    other.close()
    before = controller.generation
    controller.reload()
    qtbot.waitUntil(lambda: controller.generation > before)
    assert controller.data is not None and new in controller.data.position()  # placed at once
    pic = controller.picture
    assert pic.state[pic.position[starred]] == map_rows.STARRED  # the other's star drawn at once
    assert window.model.row_of(new) < 0  # the list has not heard yet (so the picture, its papers, lacks it)
    before = controller.generation
    window.changes.set_poll_interval(50)  # the poll: the list re-lists, the map follows it
    qtbot.waitUntil(lambda: window.model.row_of(new) >= 0 and controller.generation > before
                    and new in controller.picture.position)
