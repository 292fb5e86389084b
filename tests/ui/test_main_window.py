"""The main window driven with keys and clicks: search, star, tag, note, undo, export, delete."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from PySide6.QtWidgets import QLineEdit, QMessageBox, QPlainTextEdit, QTableView, QTextBrowser

from reader.services import Library, View
from reader.ui.dialogs import ExportOptions
from reader.ui.main_window import MainWindow


def key(qtbot, widget, k, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(widget, k, modifier)


def paper(library: Library, pid: str) -> dict:
    found = library.paper(pid)
    assert found is not None
    return found


def test_object_names_present(window: MainWindow) -> None:
    expected = {
        "sidebar": object, "searchBox": QLineEdit, "paperTable": QTableView, "titleEdit": QPlainTextEdit,
        "starButton": object, "tagEditor": object, "abstractView": QTextBrowser,
        "noteEditor": QPlainTextEdit, "relatedList": object,
    }
    for name, kind in expected.items():
        found = window.findChild(kind, name)
        assert found is not None, name
    assert window.model.rowCount() == 56
    assert window.countsLabel.text() == "56 papers · 0 starred · 0/56 read"


def test_search_star_tag_note_undo_redo_export(qtbot, window: MainWindow, library: Library, tmp_path: Path) -> None:
    qtbot.keyClicks(window.searchBox, "sparse attention")
    qtbot.waitUntil(lambda: window.searchBox.text() and window.search_results is not None
                    and window.search_results.query.strip() == "sparse attention", timeout=5000)
    assert 0 < window.model.rowCount() < 56
    assert "result" in window.resultLabel.text()
    # Open the first result with a click.
    table = window.table
    rect = table.visualRect(window.model.index(0, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    pid = window.model.id_at(0)
    assert window.pane.paper_id == pid
    assert "sparse" in window.pane.abstractView.toPlainText().lower()
    assert window.pane.terms  # the matched terms are highlighted in the abstract

    key(qtbot, table, Qt.Key.Key_S)
    qtbot.waitUntil(lambda: paper(library, pid)["starred"])
    qtbot.waitUntil(lambda: window.pane.starButton.isChecked())

    key(qtbot, table, Qt.Key.Key_T)
    assert window.pane.tagEditor.input.hasFocus()
    qtbot.keyClicks(window.pane.tagEditor.input, "must-read")
    key(qtbot, window.pane.tagEditor.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: paper(library, pid)["tags"] == ["must-read"])
    qtbot.waitUntil(lambda: "must-read" in window.sidebar.tag_names())

    key(qtbot, window.pane.tagEditor.input, Qt.Key.Key_Escape)
    assert table.hasFocus()
    key(qtbot, table, Qt.Key.Key_N)
    assert window.pane.noteEditor.hasFocus()
    qtbot.keyClicks(window.pane.noteEditor, "Great baseline")
    qtbot.waitUntil(lambda: paper(library, pid)["note"] == "Great baseline", timeout=3000)  # autosave <= 1 s

    key(qtbot, window.pane.noteEditor, Qt.Key.Key_Escape)
    assert table.hasFocus()
    qtbot.waitUntil(lambda: window.undo_stack.count() == 3 and not window.runner.busy)
    key(qtbot, table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: paper(library, pid)["note"] == "" and window.pane.noteEditor.toPlainText() == "")
    key(qtbot, table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: paper(library, pid)["tags"] == [])
    key(qtbot, table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: paper(library, pid)["tags"] == ["must-read"])
    key(qtbot, table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: paper(library, pid)["note"] == "Great baseline")
    qtbot.waitUntil(lambda: window.pane.noteEditor.toPlainText() == "Great baseline")

    out = tmp_path / "list.md"
    window.export_to(out, ExportOptions(kind="reading_list", scope="selection", title="My list"))
    qtbot.waitUntil(lambda: window.last_export is not None)
    text = out.read_text(encoding="utf-8")
    assert "My list" in text
    assert "★" in text and "must-read" in text and "Great baseline" in text
    assert paper(library, pid)["title"] in text


def test_note_typed_then_closed_at_once_is_saved(qtbot, window: MainWindow, data_dir: Path) -> None:
    pid = window.pane.paper_id
    window.focus_note()
    qtbot.keyClicks(window.pane.noteEditor, "Typed just before quitting")
    window.close()  # no wait: closeEvent flushes through the writer
    with Library.open(data_dir) as reopened:
        assert paper(reopened, pid)["note"] == "Typed just before quitting"


def test_note_saved_on_selection_change(qtbot, window: MainWindow, library: Library) -> None:
    pid = window.pane.paper_id
    window.focus_note()
    qtbot.keyClicks(window.pane.noteEditor, "first")
    window.focus_table()
    key(qtbot, window.table, Qt.Key.Key_J)
    assert window.pane.paper_id != pid
    qtbot.waitUntil(lambda: paper(library, pid)["note"] == "first")


def test_import_through_dialog_code_path(qtbot, window: MainWindow, library: Library, tmp_path: Path) -> None:
    src = tmp_path / "papers.jsonl"
    good = [
        '{"title": "Tiny test paper one", "abstract": "We study a tiny problem about tadpoles and ponds in great detail here."}',
        '{"title": "Tiny test paper two", "abstract": "A second abstract on frogs, lily pads and the physics of jumping far."}',
    ]
    src.write_text(good[0] + "\n{not json\n" + good[1] + "\n", encoding="utf-8")
    window.table.selectRow(3)
    selected = window.current_id()
    window.import_paths([src])
    assert window.progressBar.isVisible() and window.taskLabel.isVisible()
    qtbot.waitUntil(lambda: window.last_import_summaries != [], timeout=20000)
    summary = window.last_import_summaries[0]
    assert (summary.new, summary.duplicates, len(summary.skipped)) == (2, 0, 1)
    assert "2 new" in window.last_import_text and "line 2" in window.last_import_text
    box = window.findChild(QMessageBox, "importSummary")
    assert box is not None and box.isVisible()
    box.close()
    qtbot.waitUntil(lambda: window.model.rowCount() == 58)
    assert window.current_id() == selected  # the table updated without losing the selection
    qtbot.waitUntil(lambda: not window.progressBar.isVisible())
    assert window.countsLabel.text().startswith("58 papers")


def test_failed_import_keeps_typed_note(qtbot, window: MainWindow, library: Library, tmp_path: Path) -> None:
    pid = window.pane.paper_id
    window.focus_note()
    qtbot.keyClicks(window.pane.noteEditor, "keep me")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{nope\n", encoding="utf-8")
    window.import_paths([bad])
    qtbot.waitUntil(lambda: window.last_import_summaries != [], timeout=20000)
    assert window.last_import_summaries[0].error
    assert paper(library, pid)["note"] == "keep me"
    window.findChild(QMessageBox, "importSummary").close()


def test_delete_then_undo_restores_paper_tags_and_note(qtbot, window: MainWindow, library: Library) -> None:
    pid = window.pane.paper_id
    window.add_tags([pid], ["keep"])
    window.save_note(pid, "my note")
    qtbot.waitUntil(lambda: paper(library, pid)["note"] == "my note" and not window.runner.busy)
    window.focus_table()
    key(qtbot, window.table, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: library.paper(pid) is None and not window.runner.busy)
    qtbot.waitUntil(lambda: window.model.rowCount() == 55)
    assert window.pane.paper_id != pid
    key(qtbot, window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: library.paper(pid) is not None)
    restored = paper(library, pid)
    assert restored["tags"] == ["keep"] and restored["note"] == "my note"
    qtbot.waitUntil(lambda: window.model.rowCount() == 56)


def test_j_k_move_and_letters_do_not_fire_in_text_fields(qtbot, window: MainWindow, library: Library) -> None:
    window.focus_table()
    window.move_current(0)
    first = window.current_id()
    key(qtbot, window.table, Qt.Key.Key_J)
    assert window.table.currentIndex().row() == 1
    assert window.pane.paper_id == window.model.id_at(1)
    key(qtbot, window.table, Qt.Key.Key_K)
    assert window.current_id() == first
    key(qtbot, window.table, Qt.Key.Key_Down)
    assert window.table.currentIndex().row() == 1

    window.focus_note()
    qtbot.keyClicks(window.pane.noteEditor, "sjkrt")
    assert window.pane.noteEditor.toPlainText() == "sjkrt"
    window.focus_search()
    qtbot.keyClicks(window.searchBox, "s")
    assert window.searchBox.text() == "s"
    window.pane.titleEdit.setFocus()
    qtbot.keyClick(window.pane.titleEdit, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: not window.runner.busy)
    current = paper(library, window.pane.paper_id)
    assert not current["starred"] and not current["read"]
    assert window.table.currentIndex().row() == 1


def test_slash_focuses_search_and_problem_shown_inline(qtbot, window: MainWindow) -> None:
    window.focus_table()
    key(qtbot, window.table, Qt.Key.Key_Slash)
    assert window.searchBox.hasFocus()
    qtbot.keyClicks(window.searchBox, "title:(")
    qtbot.waitUntil(lambda: window.search_results is not None and window.problemLabel.isVisible())
    assert window.problemLabel.text()
    assert window.findChild(QMessageBox) is None


def test_did_you_mean(qtbot, window: MainWindow) -> None:
    window.searchBox.setText("difusion")
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == "difusion")
    if not window.search_results.suggestion:
        pytest.skip("the index offered no suggestion for this misspelling")
    assert window.suggestionLabel.isVisible()
    window._accept_suggestion()
    qtbot.waitUntil(lambda: window.model.rowCount() > 0 and window.searchBox.text() != "difusion")


def test_sidebar_views_tags_and_saved_searches(qtbot, window: MainWindow, library: Library) -> None:
    ids = window.model.ids()[:3]
    window.add_tags(ids, ["rl"])
    window.set_starred(ids[:1], True)
    qtbot.waitUntil(lambda: "rl" in window.sidebar.tag_names())
    window.sidebar.select_view(View("tag", "rl"))
    qtbot.waitUntil(lambda: window.model.rowCount() == 3)
    window.rename_tag("rl", "reinforcement")
    qtbot.waitUntil(lambda: window.sidebar.tag_names() == ["reinforcement"])
    qtbot.waitUntil(lambda: window.view == View("tag", "reinforcement") and window.model.rowCount() == 3)
    window.sidebar.select_view(View("starred"))
    qtbot.waitUntil(lambda: window.model.rowCount() == 1)
    assert "1 starred" in window.countsLabel.text()
    window.sidebar.select_view(View())
    window.searchBox.setText("diffusion")
    qtbot.waitUntil(lambda: window.search_results is not None)
    window.save_current_search("Diffusion")
    qtbot.waitUntil(lambda: [s["name"] for s in library.saved_searches()] == ["Diffusion"])
    window.delete_tag("reinforcement")
    qtbot.waitUntil(lambda: library.tags() == [] and not window.runner.busy)
    key(qtbot, window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: library.tags() == [("reinforcement", 3)])


def test_highlight_title_and_links(qtbot, window: MainWindow, library: Library, monkeypatch) -> None:
    pid = window.pane.paper_id
    cursor = window.pane.abstractView.textCursor()
    cursor.setPosition(0)
    cursor.setPosition(12, cursor.MoveMode.KeepAnchor)
    window.pane.abstractView.setTextCursor(cursor)
    expected = window.pane.abstractView.toPlainText()[:12]
    window.pane.highlightComment.setText("key idea")
    assert window.pane.request_highlight("green")
    qtbot.waitUntil(lambda: len(paper(library, pid)["highlights"]) == 1)
    h = paper(library, pid)["highlights"][0]
    assert (h["start"], h["end"], h["quote"], h["color"], h["comment"]) == (0, 12, expected, "green", "key idea")
    qtbot.waitUntil(lambda: window.pane.highlightList.count() == 1)

    window.pane.titleEdit.setText("My own title")
    window.pane.titleEdit.editingFinished.emit()
    qtbot.waitUntil(lambda: paper(library, pid)["title"] == "My own title")
    qtbot.waitUntil(lambda: not window.runner.busy)
    window.undo_stack.undo()
    qtbot.waitUntil(lambda: paper(library, pid)["title"] != "My own title")
    window.undo_stack.undo()
    qtbot.waitUntil(lambda: paper(library, pid)["highlights"] == [])

    opened: list[str] = []
    monkeypatch.setattr("reader.ui.main_window.QDesktopServices.openUrl", lambda url: opened.append(url.toString()) or True)
    assert not window.open_link(QUrl("javascript:alert(1)"))
    assert not window.open_link(QUrl("file:///etc/passwd"))
    assert window.open_link(QUrl("https://example.org/paper"))
    assert opened == ["https://example.org/paper"]


def test_settings_restored(qtbot, window: MainWindow, library: Library) -> None:
    window.sidebar.select_view(View("unread"))
    window.table.horizontalHeader().resizeSection(5, 222)
    window._sort_requested(4, Qt.SortOrder.AscendingOrder)
    qtbot.waitUntil(lambda: not window.runner.busy)
    window.close()
    again = MainWindow(library, theme="dark")
    qtbot.addWidget(again)
    assert again.view == View("unread")
    assert again.table.horizontalHeader().sectionSize(5) == 222
    assert again.sort_column == 4 and again.sort_order == Qt.SortOrder.AscendingOrder
    assert again.pane.dark
    again.close()
