"""While triage has taken the library page's place, a decision does not re-list the hidden
list nor read the hidden sidebar's sections again (at 100k: 0.2 s and 0.1 s of a worker's GIL
per decision, beside the card being shown); the status bar's counts still follow. Back from
triage, the list and the sidebar catch up once, and the last card's paper is selected in the
fresh list, as before."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reader.library import Library, View
from reader.models import ViewKind
from reader.ui.window.main_window import MainWindow

from .test_triage_view import open_triage, press, settle

K = Qt.Key


def test_decisions_in_triage_leave_the_hidden_list_and_sidebar_until_back(
        qtbot, window: MainWindow, library: Library, monkeypatch) -> None:
    window.sidebar.select_view(View(ViewKind.UNREAD))
    qtbot.waitUntil(lambda: window.view == View(ViewKind.UNREAD) and window.model.rowCount() == 56)
    settle(qtbot, window)
    listed = list(window.model.ids())
    ctl = open_triage(qtbot, window)
    q = ctl.queue
    assert q is not None and q.current == listed[0]
    settle(qtbot, window)

    relists: list[int] = []
    venues: list[int] = []
    real_refresh, real_venues = window.refresh_list, library.venues
    monkeypatch.setattr(window, "refresh_list", lambda: relists.append(1) or real_refresh())
    monkeypatch.setattr(library, "venues", lambda: venues.append(1) or real_venues())

    press(qtbot, ctl, K.Key_S)  # star p0
    press(qtbot, ctl, K.Key_J)
    press(qtbot, ctl, K.Key_X)  # skip p1 (the read mark of p0 stored first)
    press(qtbot, ctl, K.Key_S)  # star p2
    press(qtbot, ctl, K.Key_J)  # on p3
    ctl.flush_reads()  # p2's read mark
    qtbot.waitUntil(lambda: {listed[0], listed[1], listed[2]} <= set(library.paper_ids(View(ViewKind.READ))))
    settle(qtbot, window)
    assert window.changes.delivered and relists == [] and venues == []  # old code: one each per stored change
    qtbot.waitUntil(lambda: window.status.countsLabel.text() == "56 papers · 2 starred · 3/56 read")
    assert window.model.ids() == listed  # the hidden list as it was

    press(qtbot, ctl, K.Key_Escape)
    assert not ctl.active
    qtbot.waitUntil(lambda: window.model.ids() == listed[3:])  # unread: the three read ones are gone
    qtbot.waitUntil(lambda: window.current_id() == listed[3])
    assert window.view == View(ViewKind.UNREAD) and window.pane.paper_id == listed[3]
    assert window.selected_ids() == [listed[3]]
    assert relists == [1]
    qtbot.waitUntil(lambda: venues == [1])
    qtbot.waitUntil(lambda: window.sidebar.counts is not None and window.sidebar.counts.starred == 2)
