"""Back from triage, the rows on screen are read again by the worker that re-lists, not by the GUI
thread when first painted (issue 31: at 100k each page of rows the list had shown was read on the
GUI thread on the way back, ~50 ms a page, the stalls of leaving triage). The rows shown then are
the stored ones: the decisions made in triage are in them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reader.library import Library, View
from reader.models import ViewKind
from reader.ui.list.model import COL_TITLE
from reader.ui.window.main_window import MainWindow

from .test_triage_view import open_triage, press, settle

K = Qt.Key


def test_back_from_triage_the_rows_on_screen_are_read_by_the_worker(
        qtbot, window: MainWindow, library: Library) -> None:
    model = window.model
    qtbot.waitUntil(lambda: model.cached_row(0) is not None)
    settle(qtbot, window)
    listed = list(model.ids())
    assert len(listed) > 10
    ctl = open_triage(qtbot, window)
    settle(qtbot, window)
    first = ctl.queue.current if ctl.queue is not None else None
    assert first is not None
    press(qtbot, ctl, K.Key_S)  # star the first card's paper
    press(qtbot, ctl, K.Key_J)
    press(qtbot, ctl, K.Key_X)
    ctl.flush_reads()
    qtbot.waitUntil(lambda: first in set(library.paper_ids(View(ViewKind.STARRED))))
    settle(qtbot, window)

    read_here = model.pages_read_here
    press(qtbot, ctl, K.Key_Escape)
    assert not ctl.active
    qtbot.waitUntil(lambda: window._relist_asked == 0 and not window._list_stale)
    for _ in range(5):  # the table painted, after the fresh listing arrived
        window.table.viewport().repaint()
        QApplication.processEvents()
    settle(qtbot, window)
    assert model.pages_read_here == read_here  # old code: the held page, read when painted
    row = model.row_of(first)
    assert row >= 0
    shown = model.cached_row(row)
    assert shown is not None and shown.starred  # the rows shown are the stored ones
    assert model.data(model.index(row, COL_TITLE)) is not None


def test_changes_stored_while_the_list_catches_up_take_one_more_listing(
        qtbot, window: MainWindow, library: Library, monkeypatch) -> None:
    """Back from triage, the writer may still be storing its decisions (at 100k one a second,
    for seconds): each used to re-list the whole library (each listing dropping the last) and
    have the GUI thread read the page on screen again. Now the listing under way lands, then
    one more for every change meanwhile; the rows on screen are the stored ones at the end."""
    import threading

    from reader.ui.window import library_screen

    model = window.model
    qtbot.waitUntil(lambda: model.cached_row(0) is not None)
    settle(qtbot, window)
    ids = list(model.ids())
    ctl = open_triage(qtbot, window)
    settle(qtbot, window)
    press(qtbot, ctl, K.Key_J)
    ctl.flush_reads()
    settle(qtbot, window)

    held, gate = threading.Event(), threading.Event()
    real_prepare = library_screen.prepare_listing

    def prepare(*args, **kwargs):  # the catch-up listing stays under way until the writes are seen
        held.set()
        assert gate.wait(30)
        return real_prepare(*args, **kwargs)

    monkeypatch.setattr(library_screen, "prepare_listing", prepare)
    relists: list[int] = []
    real_refresh = window.refresh_list
    monkeypatch.setattr(window, "refresh_list", lambda: relists.append(1) or real_refresh())
    read_here = model.pages_read_here
    try:
        press(qtbot, ctl, K.Key_Escape)
        assert not ctl.active
        qtbot.waitUntil(held.is_set)
        monkeypatch.setattr(library_screen, "prepare_listing", real_prepare)
        for pid in ids[-3:]:  # stored while the listing is read (as the writer's backlog would)
            delivered = window.changes.delivered
            library.set_starred([pid], True)
            qtbot.waitUntil(lambda d=delivered: window.changes.delivered > d)
        for _ in range(3):
            window.table.viewport().repaint()
            QApplication.processEvents()
    finally:
        gate.set()
    qtbot.waitUntil(lambda: window._relist_asked == 0 and not getattr(window, "_relist_again", False) and not window._list_stale)
    settle(qtbot, window)
    for _ in range(3):
        window.table.viewport().repaint()
        QApplication.processEvents()
    assert len(relists) == 2, relists  # old code: one per change besides the first (4)
    assert model.pages_read_here == read_here  # old code: a page re-read here per change
    for pid in ids[-3:]:
        row = model.row_of(pid)
        shown = model.cached_row(row)
        assert shown is not None and shown.starred, pid  # the stored rows, once caught up
