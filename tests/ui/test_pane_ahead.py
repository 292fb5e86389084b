"""What the GUI thread no longer reads or renders itself (issue 31): the papers J/K reaches next
are read and their abstracts rendered on a worker while the user reads the open one; a new
list's first hit is read and rendered by the worker that made the list; rows of a page scrolled
to for the first time are read on a worker (the cells fill when they arrive). The old code did
each of these on the GUI thread, once per step, keystroke or page."""

from __future__ import annotations

import threading

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reader.library import Library
from reader.ui.list import model as model_module
from reader.ui.list.model import COL_TITLE
from reader.ui.paper import abstract_html as abstract_module
from reader.ui.window.main_window import MainWindow

from .helpers import key, search_now


class OnGui:
    """Counts calls made on the GUI thread of a few functions (by name)."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def wrap(self, name: str, fn):
        main = threading.main_thread()

        def counted(*args, **kwargs):
            if threading.current_thread() is main:
                self.calls[name] = self.calls.get(name, 0) + 1
            return fn(*args, **kwargs)

        return counted

    def __getitem__(self, name: str) -> int:
        return self.calls.get(name, 0)


def _counting(monkeypatch, library: Library) -> OnGui:
    seen = OnGui()
    monkeypatch.setattr(library, "paper", seen.wrap("paper", library.paper))
    monkeypatch.setattr(library, "rows", seen.wrap("rows", library.rows))
    monkeypatch.setattr(abstract_module, "abstract_html", seen.wrap("render", abstract_module.abstract_html))
    return seen


def _idle(qtbot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: not window.runner.busy)
    qtbot.wait(60)  # the read-ahead's worker delivers (a reader's pause between two keys)


def test_j_and_k_show_papers_read_and_rendered_on_a_worker(qtbot, window: MainWindow, library: Library,
                                                           monkeypatch) -> None:
    ids = list(window.model.ids())
    window.table.setFocus()
    window.select_paper(ids[0])
    _idle(qtbot, window)
    seen = _counting(monkeypatch, library)
    shown = []
    for k in [Qt.Key.Key_J] * 6 + [Qt.Key.Key_K] * 3:
        key(qtbot, window.table, k)
        QApplication.processEvents()
        shown.append(window.pane.paper_id)
        _idle(qtbot, window)
    assert shown == ids[1:7] + ids[5:2:-1]
    assert seen["paper"] == 0 and seen["render"] == 0, seen.calls  # the old code: one each per new paper
    pane = window.pane
    assert pane.paper is not None and pane.paper == library.paper(ids[3])  # as stored
    assert pane.titleEdit.text() == pane.paper.title and pane.abstractView.toPlainText().strip()


def test_a_change_is_read_again_not_taken_from_the_read_ahead(qtbot, window: MainWindow, library: Library) -> None:
    """A paper read ahead, then starred: J shows it starred (read anew, on the GUI thread)."""
    from reader.ui.operations import papers

    ids = list(window.model.ids())
    window.table.setFocus()
    window.select_paper(ids[0])
    _idle(qtbot, window)
    papers.set_starred(window.ops, [ids[1]], True)
    _idle(qtbot, window)
    key(qtbot, window.table, Qt.Key.Key_J)
    assert window.pane.paper_id == ids[1] and window.pane.starButton.isChecked()


def test_a_new_lists_first_hit_is_read_and_rendered_by_its_worker(qtbot, window: MainWindow, library: Library,
                                                                  monkeypatch) -> None:
    _idle(qtbot, window)
    seen = _counting(monkeypatch, library)
    for query in ("learning", "graph", "neural"):
        search_now(qtbot, window, query)
        QApplication.processEvents()
        first = window.model.ids()[0]
        assert window.pane.paper_id == first
        assert window.pane.terms  # shown with the search's words marked
        assert "ffc98a" in window.pane.abstractView.toHtml().lower()  # the hits' colour
    assert seen["paper"] == 0 and seen["render"] == 0, seen.calls


def test_rows_of_a_page_scrolled_to_are_read_on_a_worker(qtbot, window: MainWindow, library: Library,
                                                         monkeypatch) -> None:
    monkeypatch.setattr(model_module, "PAGE_SIZE", 8)
    window.refresh_list()  # listed again: the worker prepares the first page of 8
    qtbot.waitUntil(lambda: window.model.pages_read() == 1)
    _idle(qtbot, window)  # (a change delivered now would have the pages read so far read again here)
    count = window.model.rowCount()
    assert count > 40
    seen = _counting(monkeypatch, library)
    table = window.table
    table.scrollToBottom()
    table.viewport().repaint()
    QApplication.processEvents()
    last = window.model.index(count - 1, COL_TITLE)
    qtbot.waitUntil(lambda: bool(last.data()))
    table.viewport().repaint()
    middle = count // 2
    table.scrollTo(window.model.index(middle, COL_TITLE))
    table.viewport().repaint()
    qtbot.waitUntil(lambda: bool(window.model.index(middle, COL_TITLE).data()))
    assert seen["rows"] == 0, seen.calls  # the old code: a read per page painted
    # A write's change reads the pages on screen again at once (stale rows never shown).
    row = table.rowAt(0)
    pid = window.model.id_at(row)
    from reader.ui.operations import papers

    papers.set_starred(window.ops, [pid], True)
    qtbot.waitUntil(lambda: window.model.index(row, model_module.COL_STAR).data() == "★")
