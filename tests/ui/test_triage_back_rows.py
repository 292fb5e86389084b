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
