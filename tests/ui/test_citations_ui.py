"""Citing from the window: the citation key field (edit, refuse, undo), Copy as BibTeX, the
Export dialog's BibTeX / CSL-JSON / RIS."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox

from reader.library import Library
from reader.models import ExportKind
from reader.ui.dialogs.common import ExportDialog, ExportOptions
from reader.ui.window.main_window import MainWindow

from .helpers import paper


def _type_key(qtbot, window: MainWindow, text: str) -> None:
    edit = window.pane.citationKey.edit
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key.Key_Return)


def test_key_field_shows_edits_and_undoes_the_key(qtbot, window: MainWindow, library: Library) -> None:
    pid = window.pane.paper_id
    edit = window.findChild(QLineEdit, "citationKeyEdit")
    assert edit is not None and edit.accessibleName() == "Citation key"
    old = paper(library, pid).citation_key
    assert edit.text() == old and old
    _type_key(qtbot, window, "smith2025mine")
    qtbot.waitUntil(lambda: paper(library, pid).citation_key == "smith2025mine" and not window.runner.busy)
    qtbot.waitUntil(lambda: edit.text() == "smith2025mine")
    window.undo_stack.undo()
    qtbot.waitUntil(lambda: paper(library, pid).citation_key == old and not window.runner.busy)
    qtbot.waitUntil(lambda: edit.text() == old)


def test_a_taken_key_is_refused_and_the_field_reverts(qtbot, window: MainWindow, library: Library) -> None:
    pid = window.pane.paper_id
    other = next(i for i in library.paper_ids() if i != pid)
    taken = paper(library, other).citation_key
    old = paper(library, pid).citation_key
    _type_key(qtbot, window, taken.upper())  # keys are unique ignoring case
    qtbot.waitUntil(lambda: "already used" in window.statusBar().currentMessage() and not window.runner.busy)
    window.findChild(QMessageBox, "errorMessage").close()
    assert paper(library, pid).citation_key == old
    assert window.pane.citationKey.edit.text() == old


def test_copy_as_bibtex_puts_the_selection_on_the_clipboard(qtbot, window: MainWindow, library: Library) -> None:
    action = next(a for a in window.shortcut_actions if a.objectName() == "copyBibtexAction")
    assert action.shortcut().toString() == "Ctrl+Shift+B"
    clashes = [a for a in window.shortcut_actions if a is not action and a.shortcut() == action.shortcut()]
    assert not clashes
    window.table.selectRow(0)
    window.table.selectionModel().select(
        window.model.index(2, 0), window.table.selectionModel().SelectionFlag.Select
        | window.table.selectionModel().SelectionFlag.Rows)
    ids = window.selected_ids()
    QApplication.clipboard().clear()
    action.trigger()
    qtbot.waitUntil(lambda: QApplication.clipboard().text().startswith("@"))
    parsed = bibtexparser.parse_string(QApplication.clipboard().text())
    assert sorted(e.key for e in parsed.entries) == sorted(paper(library, i).citation_key for i in ids)
    assert not parsed.failed_blocks


def test_export_dialog_offers_the_citation_formats(qtbot, window: MainWindow, library: Library,
                                                   tmp_path: Path) -> None:
    dialog = ExportDialog(window, [], 0, ExportOptions(kind=ExportKind.CSLJSON, scope="view"))
    qtbot.addWidget(dialog)
    assert dialog.options().kind == ExportKind.CSLJSON
    assert dialog.notesCheck.isEnabled() and not dialog.abstractsCheck.isEnabled()
    window.grab().save(str(tmp_path / "window.png"))
    for kind, name in ((ExportKind.BIBTEX, "refs.bib"), (ExportKind.CSLJSON, "refs.json"),
                       (ExportKind.RIS, "refs.ris")):
        window.transfer.export_to(tmp_path / name, ExportOptions(kind=kind, scope="view"))
        qtbot.waitUntil(lambda n=name: (tmp_path / n).exists() and not window.runner.busy)
    listed = window.model.rowCount()
    assert len(bibtexparser.parse_file(str(tmp_path / "refs.bib")).entries) == listed
    assert len(json.loads((tmp_path / "refs.json").read_text(encoding="utf-8"))) == listed
    assert (tmp_path / "refs.ris").read_text(encoding="utf-8").count("\nER  - ") == listed


def test_a_long_key_shows_its_start(qtbot, window: MainWindow) -> None:
    """The key field showed the end of a long key ("eometric2025framework"): the author was cut."""
    edit = window.pane.citationKey.edit
    window.pane.citationKey.set_key("geometric2025frameworkanalyzememorization")
    assert edit.cursorPosition() == 0
