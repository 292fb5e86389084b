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
from reader.text import title_plain
from reader.ui.list import model as model_module
from reader.ui.list.model import COL_TITLE
from reader.ui.paper import abstract_html as abstract_module
from reader.ui.window.main_window import MainWindow

from .helpers import key, search_now, shown


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


def test_a_change_is_read_again_not_taken_from_the_read_ahead(qtbot, window: MainWindow, library: Library,
                                                              monkeypatch) -> None:
    """A paper read ahead, then starred: J shows it starred, read anew on a worker (the GUI
    thread read it itself, before); the papers the change did not touch are kept."""
    from reader.ui.operations import papers

    ids = list(window.model.ids())
    window.table.setFocus()
    window.select_paper(ids[0])
    _idle(qtbot, window)
    qtbot.waitUntil(lambda: all(p in window.reads.ahead for p in ids[1:4]))
    kept = window.reads.ahead[ids[2]]
    seen = _counting(monkeypatch, library)
    papers.set_starred(window.ops, [ids[1]], True)
    _idle(qtbot, window)
    assert window.reads.ahead.get(ids[2]) is kept  # untouched by the change: not read again
    key(qtbot, window.table, Qt.Key.Key_J)
    assert shown(qtbot, window) == ids[1] and window.pane.starButton.isChecked()
    assert seen["paper"] == 0, seen.calls


def _holding(monkeypatch, held_id: str, *, fail: bool = False) -> threading.Event:
    """The pane's reads of `held_id` are made, then wait on the returned event before they are
    delivered (a slow disk, a busy core); with `fail`, they then raise."""
    from reader.ui.window import pane_reads

    gate, real = threading.Event(), pane_reads.read_ahead

    def read_ahead(lib, ids, *args):
        out = real(lib, ids, *args)
        if held_id in ids:
            gate.wait(10)
            if fail:
                raise RuntimeError("the disk went away")
        return out

    monkeypatch.setattr(pane_reads, "read_ahead", read_ahead)
    return gate


def test_a_paper_not_read_ahead_is_read_on_a_worker_its_title_shown_at_once(
        qtbot, window: MainWindow, library: Library, monkeypatch) -> None:
    """A click far from the open paper: the GUI thread does not read it (the old code read it
    there: 300-770 ms on a row not in the file cache). The pane shows the list's title at once,
    nothing to edit, then the paper as stored."""
    ids = list(window.model.ids())
    window.table.setFocus()
    window.select_paper(ids[0])
    _idle(qtbot, window)
    far = ids[30]
    stored = library.paper(far)
    assert stored is not None and far not in window.reads.ahead
    gate = _holding(monkeypatch, far)
    seen = _counting(monkeypatch, library)
    window.table.go_to_row(30)
    pane = window.pane
    assert window.reads.current == far and pane.paper is None
    assert pane.titleEdit.text() == title_plain(stored.title) and not pane.titleEdit.isEnabled()
    assert not pane.tabs.isEnabled() and not pane.starButton.isEnabled()  # no note typed into nothing
    gate.set()
    assert shown(qtbot, window) == far and pane.paper == stored
    assert pane.titleEdit.isEnabled() and pane.abstractView.toPlainText().strip()
    assert seen["paper"] == 0 and seen["render"] == 0, seen.calls


def _on_first(qtbot, window: MainWindow) -> list[str]:
    ids = list(window.model.ids())
    window.table.setFocus()
    window.select_paper(ids[0])
    _idle(qtbot, window)
    return ids


def test_a_read_overtaken_or_failing_after_the_user_moved_on_is_not_shown(qtbot, window: MainWindow,
                                                                           monkeypatch) -> None:
    """While a paper is read, the user moves on: the late read is not shown; a read that fails
    once the user is on a paper read ahead leaves that paper on screen, without a message."""
    ids = _on_first(qtbot, window)
    first, second = ids[30], ids[40]
    gate = _holding(monkeypatch, first)
    window.table.go_to_row(30)
    window.table.go_to_row(40)
    assert window.reads.current == second
    gate.set()
    assert shown(qtbot, window) == second
    qtbot.waitUntil(lambda: not window.reads.waiting and ids[41] in window.reads.ahead)
    assert window.pane.paper_id == second  # the first read, delivered late, was dropped

    errors: list[BaseException] = []
    monkeypatch.setattr(window, "handle_error", errors.append)
    third = ids[50]
    gate = _holding(monkeypatch, third, fail=True)
    window.table.go_to_row(50)
    assert window.reads.waiting == third
    window.table.go_to_row(41)  # read ahead around the second: shown at once
    assert window.pane.paper_id == ids[41]
    gate.set()
    qtbot.wait(200)
    assert window.pane.paper_id == ids[41] and window.pane.titleEdit.isEnabled() and errors == []


def test_a_change_meanwhile_reads_the_waiting_paper_again_only_if_it_touched_it(
        qtbot, window: MainWindow, monkeypatch) -> None:
    from reader.ui.operations import papers

    ids = _on_first(qtbot, window)
    target = ids[50]
    gate = _holding(monkeypatch, target)
    window.table.go_to_row(50)
    reads = window.reads.reads_one
    papers.set_starred(window.ops, [ids[3]], True)  # another paper
    _idle(qtbot, window)
    gate.set()
    assert shown(qtbot, window) == target and window.reads.reads_one == reads  # read once

    target = ids[54]
    gate = _holding(monkeypatch, target)
    window.table.go_to_row(54)
    papers.set_starred(window.ops, [target], True)  # the read was made before the star
    _idle(qtbot, window)
    gate.set()
    assert shown(qtbot, window) == target and window.pane.starButton.isChecked()  # read again


def test_while_a_paper_is_read_s_toggles_its_star_and_an_emptied_list_drops_it(
        qtbot, window: MainWindow, library: Library, monkeypatch) -> None:
    from reader.ui.operations import papers

    ids = _on_first(qtbot, window)
    target = ids[30]
    papers.set_starred(window.ops, [target], True)
    _idle(qtbot, window)
    qtbot.waitUntil(lambda: window.model.cached_row(30) is not None and window.model.cached_row(30).starred)
    window.reads.ahead.pop(target, None)
    gate = _holding(monkeypatch, target)
    window.table.go_to_row(30)
    assert window.pane.paper is None and window.reads.waiting == target
    papers.toggle_star(window.ops, window.list_scope())  # S: the row says starred, so unstar
    _idle(qtbot, window)
    stored = library.paper(target)
    assert stored is not None and not stored.starred
    gate.set()
    assert shown(qtbot, window) == target and not window.pane.starButton.isChecked()

    other = ids[45]
    gate = _holding(monkeypatch, other)
    window.table.go_to_row(45)
    search_now(qtbot, window, "zzqqxnothinglikethis")
    qtbot.waitUntil(lambda: window.model.rowCount() == 0)
    assert window.reads.waiting is None
    gate.set()
    qtbot.wait(200)
    assert window.pane.paper is None  # not shown under an empty list


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
