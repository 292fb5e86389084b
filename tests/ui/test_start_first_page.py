"""Start (issue 31): the window's first fill on the GUI thread reads one page of the list, not
the whole library (at 100k its SQLite read held the first paint back); the whole list follows
from a worker, appended below the rows shown, the selected paper kept."""

from __future__ import annotations

import threading

from reader.library import Library
from reader.store import views
from reader.ui.list import search_bar
from reader.ui.window import library_screen
from reader.ui.window.main_window import MainWindow


def test_the_first_fill_reads_a_page_and_the_rest_comes_from_a_worker(qtbot, library: Library,
                                                                       monkeypatch) -> None:
    page = 10
    monkeypatch.setattr(search_bar, "FIRST_PAGE", page)
    monkeypatch.setattr(library_screen, "FIRST_PAGE", page, raising=False)
    main = threading.main_thread()
    read_on_gui: list[int] = []
    real = views.paper_ids

    def counted(*args, **kwargs):
        out = real(*args, **kwargs)
        if threading.current_thread() is main:
            read_on_gui.append(len(out))
        return out

    monkeypatch.setattr(views, "paper_ids", counted)
    monkeypatch.setattr("reader.library.core.paper_ids", counted)
    everything = library.paper_ids()
    read_on_gui.clear()
    assert len(everything) > page
    w = MainWindow(library, theme="light")
    qtbot.addWidget(w)
    assert read_on_gui and max(read_on_gui) <= page  # the GUI thread read one page
    assert w.model.ids() == everything[:page] and w.pane.paper_id == everything[0]
    w.show()
    w.table.selectRow(3)  # the user moved before the rest arrived
    qtbot.waitUntil(lambda: w.model.rowCount() == len(everything))
    assert w.model.ids() == everything  # in order, nothing twice
    assert w.pane.paper_id == everything[3] and w.table.currentIndex().row() == 3
    assert max(read_on_gui) <= page
    w.close()


def test_the_start_asks_whether_the_index_needs_a_sync_off_the_gui_thread(qtbot, library: Library,
                                                                          monkeypatch) -> None:
    """The question opens the index (0.6 s of the GUI thread at 100k, right after the first paint)."""
    asked_on: list[threading.Thread] = []
    real = library.index_needs_sync

    def asked() -> bool:
        asked_on.append(threading.current_thread())
        return real()

    monkeypatch.setattr(library, "index_needs_sync", asked)
    w = MainWindow(library, theme="light")
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.index_ready)
    assert asked_on and threading.main_thread() not in asked_on
    w.close()
