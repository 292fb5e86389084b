"""J/K: the Group tab's marks of the papers read ahead are read on the read-ahead's worker with
them, not by a group query on the GUI thread at each step (issue 31: ~1 ms of SQL per step at 100k,
in a group or not). What the tab shows is what a query on the GUI thread would show."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reader.group import Group
from reader.library import Library
from reader.ui.paper.pane import GROUP_TAB
from reader.ui.window.main_window import MainWindow

from .helpers import key


def _counting(window: MainWindow) -> dict[str, int]:
    counts = {"gui": 0, "worker": 0}
    real = window.pane.group_marks
    assert real is not None

    def marks(pid: str):
        counts["gui" if threading.current_thread() is threading.main_thread() else "worker"] += 1
        return real(pid)

    window.pane.group_marks = marks
    return counts


def _read_around(qtbot, window: MainWindow) -> None:
    """As between key presses: the read-ahead's papers on both sides of the open one arrived."""
    row, ids = window.model.row_of(window.pane.paper_id or ""), window.model.ids()
    near = [ids[r] for r in (row - 1, row + 1) if 0 <= r < len(ids)]
    qtbot.waitUntil(lambda: all(p in window.reads.ahead for p in near))


def _step(qtbot, window: MainWindow, k: Qt.Key) -> tuple[str | None, str, bool]:
    key(qtbot, window.table, k)
    QApplication.processEvents()
    shown = (window.pane.paper_id, window.pane.tabs.tabText(GROUP_TAB), window.pane.tabs.isTabVisible(GROUP_TAB))
    window._related_timer.stop()
    _read_around(qtbot, window)
    return shown


def _walk(qtbot, window: MainWindow, counts: dict[str, int]) -> list[tuple[str | None, str, bool]]:
    """J/K from the first paper; what the GUI thread asked is counted from the second step (the
    first after a change, here the group's, reads its paper, and so its marks, itself)."""
    window.table.setFocus()
    window.select_paper(window.model.ids()[0])
    qtbot.waitUntil(lambda: window.pane.paper_id == window.model.ids()[0])
    shown = [_step(qtbot, window, Qt.Key.Key_J)]
    counts["gui"] = 0
    return shown + [_step(qtbot, window, k) for k in [Qt.Key.Key_J] * 8 + [Qt.Key.Key_K] * 4]


def test_jk_asks_no_group_query_on_the_gui_thread(qtbot, window: MainWindow) -> None:
    counts = _counting(window)
    shown = _walk(qtbot, window, counts)
    assert len({pid for pid, _, _ in shown}) >= 8
    assert all(not visible for _, _, visible in shown)  # in no group: the tab stays hidden
    assert counts["gui"] == 0, counts  # old code: one per step (12)
    assert counts["worker"] >= 1


@pytest.fixture
def bob(tmp_path):
    lib = Library.open(tmp_path / "bob-lib")
    yield lib
    lib.close()


def test_in_a_group_the_tab_shows_the_marks_read_ahead(qtbot, window: MainWindow, bob, tmp_path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    gb = Group(bob)
    gb.join(shared, "Bob Stone", share_notes=True)
    ids = window.model.ids()
    bob.set_starred([ids[2], ids[5]], True)
    gb.sync()
    syncs = window.group_sync.syncs
    window.group_sync.join(shared, "ada")
    qtbot.waitUntil(lambda: window.group_sync.syncs > syncs and not window.runner.busy)
    counts = _counting(window)
    shown = _walk(qtbot, window, counts)
    starred = {pid for pid, text, visible in shown if visible and text == "Group ★1"}
    assert starred == {ids[2], ids[5]}, shown
    assert all(visible for _, _, visible in shown)
    assert counts["gui"] == 0, counts  # old code: one per step (12)
