"""The main window as a whole: object names, a keyboard-driven session, J/K, settings, theme, plain-text display."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QApplication,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QTableView,
    QTextBrowser,
)

from reader.errors import LibraryEnvironmentError
from reader.library import Library, View
from reader.ui.dialogs.common import ExportOptions
from reader.ui.window.main_window import MainWindow

from .helpers import import_in_window, key, paper


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
    assert window.status.countsLabel.text() == "56 papers · 0 starred · 0/56 read"


def test_search_star_tag_note_undo_redo_export(qtbot, window: MainWindow, library: Library, tmp_path: Path) -> None:
    qtbot.keyClicks(window.searchBox, "sparse attention")
    qtbot.waitUntil(lambda: window.searchBox.text() and window.search_results is not None
                    and window.search_results.query.strip() == "sparse attention")
    assert 0 < window.model.rowCount() < 56
    assert "result" in window.searchBar.resultLabel.text()
    # Open the first result with a click.
    table = window.table
    rect = table.visualRect(window.model.index(0, 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    pid = window.model.id_at(0)
    assert window.pane.paper_id == pid
    assert "sparse" in window.pane.abstractView.toPlainText().lower()
    assert window.pane.terms  # the matched terms are highlighted in the abstract

    key(qtbot, table, Qt.Key.Key_S)
    qtbot.waitUntil(lambda: paper(library, pid).starred)
    qtbot.waitUntil(lambda: window.pane.starButton.isChecked())

    key(qtbot, table, Qt.Key.Key_T)
    assert window.pane.tagEditor.input.hasFocus()
    qtbot.keyClicks(window.pane.tagEditor.input, "must-read")
    key(qtbot, window.pane.tagEditor.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: paper(library, pid).tags == ["must-read"])
    qtbot.waitUntil(lambda: "must-read" in window.sidebar.tag_names())

    key(qtbot, window.pane.tagEditor.input, Qt.Key.Key_Escape)
    assert table.hasFocus()
    key(qtbot, table, Qt.Key.Key_N)
    assert window.pane.noteEditor.hasFocus()
    qtbot.keyClicks(window.pane.noteEditor, "Great baseline")
    qtbot.waitUntil(lambda: paper(library, pid).note == "Great baseline")  # autosave <= 1 s

    key(qtbot, window.pane.noteEditor, Qt.Key.Key_Escape)
    assert table.hasFocus()
    qtbot.waitUntil(lambda: window.undo_stack.count() == 3 and not window.runner.busy)
    key(qtbot, table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: paper(library, pid).note == "" and window.pane.noteEditor.toPlainText() == "")
    key(qtbot, table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: paper(library, pid).tags == [])
    key(qtbot, table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: paper(library, pid).tags == ["must-read"])
    key(qtbot, table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: paper(library, pid).note == "Great baseline")
    qtbot.waitUntil(lambda: window.pane.noteEditor.toPlainText() == "Great baseline")

    out = tmp_path / "list.md"
    window.transfer.export_to(out, ExportOptions(kind="reading_list", scope="selection", title="My list"))
    qtbot.waitUntil(lambda: window.last_export is not None)
    text = out.read_text(encoding="utf-8")
    assert "My list" in text
    assert "★" in text and "must-read" in text and "Great baseline" in text
    assert paper(library, pid).title in text


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
    assert current is not None and not current.starred and not current.read
    assert window.table.currentIndex().row() == 1


def test_settings_restored(qtbot, window: MainWindow, library: Library) -> None:
    window.sidebar.select_view(View("unread"))
    header = window.table.horizontalHeader()
    # A shown column (Tags and Authors stay hidden while no listed paper has any).
    col = next(c for c in (3, 4, 7) if not header.isSectionHidden(c))
    header.resizeSection(col, 222)
    window.searchBar.sort_requested(4, Qt.SortOrder.AscendingOrder)
    qtbot.waitUntil(lambda: not window.runner.busy)
    window.close()
    again = MainWindow(library, theme="dark")
    qtbot.addWidget(again)
    assert again.view == View("unread")
    assert again.table.horizontalHeader().sectionSize(col) == 222
    assert again.sort_column == 4 and again.sort_order == Qt.SortOrder.AscendingOrder
    assert again.pane.dark
    again.close()


def test_theme_switch(window: MainWindow) -> None:
    window.apply_theme("dark")
    assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() < 100
    assert window.pane.dark
    assert window.theme_actions["dark"].isChecked()
    window.apply_theme("light")
    assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() > 150
    assert not window.pane.dark


def test_imported_html_is_shown_as_text(qtbot, window: MainWindow, library: Library, tmp_path: Path) -> None:
    src = tmp_path / "<b>html<b> papers.jsonl"
    src.write_text(
        '{"title": "A <i>tagged</i> title", "venue": "<b>X</b>", "authors": ["<img src=\'file:///etc/hosts\'>"], '
        '"abstract": "An abstract long enough to be imported, about markup injected into metadata."}\n{broken\n',
        encoding="utf-8")
    import_in_window(qtbot, window, src)
    pid = next(i for i in library.paper_ids() if library.paper(i).venue == "<b>X</b>")
    window.select_paper(pid)
    qtbot.waitUntil(lambda: window.pane.paper_id == pid)
    meta = window.pane.metaLabel
    assert meta.textFormat() == Qt.TextFormat.PlainText
    assert "<b>X</b>" in meta.text() and "<img src='file:///etc/hosts'>" in meta.text()
    box = window.findChild(QMessageBox, "importSummary")
    assert box is not None and box.textFormat() == Qt.TextFormat.PlainText
    assert "<b>html<b> papers.jsonl" in box.text()
    box.close()
    for label in (window.searchBar.resultLabel, window.searchBar.problemLabel, window.status.countsLabel, window.status.taskLabel,
                  window.pane.noteStatus):
        assert label.textFormat() == Qt.TextFormat.PlainText, label.objectName()
    # A title renders as the abstract does: its markup is read, never passed to Qt as HTML
    # (tooltips have no plain-text switch: what is left is escaped).
    row = window.model.row_of(pid)
    tip = window.model.data(window.model.index(row, 1), Qt.ItemDataRole.ToolTipRole)
    assert "A tagged title" in tip and "<i>" not in tip
    assert window.model.index(row, 1).data() == "A tagged title"


def test_error_message_is_plain_text(qtbot, window: MainWindow) -> None:
    window.handle_error(LibraryEnvironmentError("cannot write <b>/data/<i>lib</i></b>"))
    box = window.findChild(QMessageBox, "errorMessage")
    assert box is not None and box.textFormat() == Qt.TextFormat.PlainText
    assert "<b>/data/<i>lib</i></b>" in box.text()
    box.close()
