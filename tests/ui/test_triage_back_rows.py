"""Back from triage, while the list catches up with what triage stored, the rows on screen are read
again by the workers that re-list, not by the GUI thread at each change (issue 31: the stalls of
leaving triage at 100k). The rows shown at the end are the stored ones."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reader.library import Library
from reader.ui.window.main_window import MainWindow

from .test_triage_view import open_triage, press, settle

K = Qt.Key


def test_changes_stored_while_the_list_catches_up_take_one_more_listing(
        qtbot, window: MainWindow, library: Library, monkeypatch) -> None:
    """Back from triage, the writer may still be storing its decisions (at 100k one a second,
    for seconds): each used to re-list the whole library (each listing dropping the last) and
    have the GUI thread read the page on screen again. Now the listing under way lands, then
    one more for every change meanwhile; the rows on screen are the stored ones at the end."""
    import threading

    from reader.ui.window import listing_work

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
    real_prepare = listing_work.prepare_listing

    def prepare(*args, **kwargs):  # the catch-up listing stays under way until the writes are seen
        held.set()
        assert gate.wait(30)
        return real_prepare(*args, **kwargs)

    monkeypatch.setattr(listing_work, "prepare_listing", prepare)
    relists: list[int] = []
    real_refresh = window.refresh_list
    monkeypatch.setattr(window, "refresh_list", lambda: relists.append(1) or real_refresh())
    try:
        press(qtbot, ctl, K.Key_Escape)
        assert not ctl.active
        qtbot.waitUntil(held.is_set)
        for _ in range(3):  # the first paint back (rows of before triage's last change: read here)
            window.table.viewport().repaint()
            QApplication.processEvents()
        read_here = model.pages_read_here
        monkeypatch.setattr(listing_work, "prepare_listing", real_prepare)
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
