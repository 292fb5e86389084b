"""User operations and their undo: star/read/tag in bulk, delete, highlights, title, tags, saved searches, scope."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QApplication

from reader.library import Library, View
from reader.ui.dialogs.common import ExportOptions
from reader.ui.list import search_bar
from reader.ui.operations import papers, scope, searches
from reader.ui.window.main_window import MainWindow

from .helpers import key, paper, search_now


def test_bulk_star_read_tag_on_a_multi_selection(qtbot, window: MainWindow, library: Library) -> None:
    window.table.selectRow(0)
    window.table.selectionModel().select(
        window.model.index(2, 0), window.table.selectionModel().SelectionFlag.Select
        | window.table.selectionModel().SelectionFlag.Rows)
    ids = window.selected_ids()
    assert len(ids) == 2
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_S)
    qtbot.keyClick(window.table, Qt.Key.Key_R)
    papers.add_tags(window.ops, scope.target_ids(window.list_scope()), ["bulk"])
    qtbot.waitUntil(lambda: all(library.paper(i).starred and library.paper(i).read
                                and "bulk" in library.paper(i).tags for i in ids))
    window.transfer.copy_markdown()
    qtbot.waitUntil(lambda: "bulk" in QApplication.clipboard().text())
    text = QApplication.clipboard().text()
    assert all(library.paper(i).title in text for i in ids)


def test_delete_then_undo_restores_paper_tags_and_note(qtbot, window: MainWindow, library: Library) -> None:
    pid = window.pane.paper_id
    papers.add_tags(window.ops, [pid], ["keep"])
    window.save_note(pid, "my note")
    qtbot.waitUntil(lambda: paper(library, pid).note == "my note" and not window.runner.busy)
    window.focus_table()
    key(qtbot, window.table, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: library.paper(pid) is None and not window.runner.busy)
    qtbot.waitUntil(lambda: window.model.rowCount() == 55)
    assert window.pane.paper_id != pid
    key(qtbot, window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: library.paper(pid) is not None)
    restored = paper(library, pid)
    assert restored.tags == ["keep"] and restored.note == "my note"
    qtbot.waitUntil(lambda: window.model.rowCount() == 56)


def test_export_and_bulk_actions_cover_the_whole_capped_search(qtbot, window: MainWindow, library: Library,
                                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_bar, "FIRST_PAGE", 10)
    window.model.run_read = lambda job, done, failed: None  # later pages never arrive (not scrolled to)
    search_now(qtbot, window, "model")
    every = library.search("model", limit=None).ids
    assert window.model.rowCount() == 10 < len(every)

    out = tmp_path / "search.md"
    window.transfer.export_to(out, ExportOptions(scope="view", kind="reading_list"))
    qtbot.waitUntil(lambda: window.last_export is not None and not window.runner.busy)
    text = out.read_text(encoding="utf-8")
    assert all(library.paper(pid).title in text for pid in every)

    window.table.setFocus()
    window.table.selectAll()
    qtbot.keyClick(window.table, Qt.Key.Key_S)  # star "everything": every match, not the 10 shown
    qtbot.waitUntil(lambda: library.counts().starred == len(every))
    assert set(library.paper_ids(View("starred"))) == set(every)


def test_highlight_title_and_links(qtbot, window: MainWindow, library: Library, monkeypatch) -> None:
    pid = window.pane.paper_id
    cursor = window.pane.abstractView.textCursor()
    cursor.setPosition(0)
    cursor.setPosition(12, cursor.MoveMode.KeepAnchor)
    window.pane.abstractView.setTextCursor(cursor)
    expected = window.pane.abstractView.toPlainText()[:12]
    window.pane.highlightComment.setText("key idea")
    assert window.pane.request_highlight("green")
    qtbot.waitUntil(lambda: len(paper(library, pid).highlights) == 1)
    h = paper(library, pid).highlights[0]
    assert (h.start, h.end, h.quote, h.color, h.comment) == (0, 12, expected, "green", "key idea")
    qtbot.waitUntil(lambda: window.pane.highlightList.count() == 1)

    window.pane.titleEdit.setText("My own title")
    window.pane.titleEdit.editingFinished.emit()
    qtbot.waitUntil(lambda: paper(library, pid).title == "My own title")
    qtbot.waitUntil(lambda: not window.runner.busy)
    window.undo_stack.undo()
    qtbot.waitUntil(lambda: paper(library, pid).title != "My own title")
    window.undo_stack.undo()
    qtbot.waitUntil(lambda: paper(library, pid).highlights == [])

    opened: list[str] = []
    monkeypatch.setattr("reader.ui.window.main_window.QDesktopServices.openUrl", lambda url: opened.append(url.toString()) or True)
    assert not window.open_link(QUrl("javascript:alert(1)"))
    assert not window.open_link(QUrl("file:///etc/passwd"))
    assert window.open_link(QUrl("https://example.org/paper"))
    assert opened == ["https://example.org/paper"]


def test_sidebar_views_tags_and_saved_searches(qtbot, window: MainWindow, library: Library) -> None:
    ids = window.model.ids()[:3]
    papers.add_tags(window.ops, ids, ["rl"])
    papers.set_starred(window.ops, ids[:1], True)
    qtbot.waitUntil(lambda: "rl" in window.sidebar.tag_names())
    window.sidebar.select_view(View("tag", "rl"))
    qtbot.waitUntil(lambda: window.model.rowCount() == 3)
    window.rename_tag("rl", "reinforcement")
    qtbot.waitUntil(lambda: window.sidebar.tag_names() == ["reinforcement"])
    qtbot.waitUntil(lambda: window.view == View("tag", "reinforcement") and window.model.rowCount() == 3)
    window.sidebar.select_view(View("starred"))
    qtbot.waitUntil(lambda: window.model.rowCount() == 1)
    assert "1 starred" in window.status.countsLabel.text()
    window.sidebar.select_view(View())
    window.searchBox.setText("diffusion")
    qtbot.waitUntil(lambda: window.search_results is not None)
    searches.save_current_search(window.ops, window.searchBar.query(), "Diffusion")
    qtbot.waitUntil(lambda: [s["name"] for s in library.saved_searches()] == ["Diffusion"])
    window.delete_tag("reinforcement")
    qtbot.waitUntil(lambda: library.tags() == [] and not window.runner.busy)
    key(qtbot, window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: library.tags() == [("reinforcement", 3)])
