"""Notes: autosave, save on leaving, retry after a failed save, recovery files on quit."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from reader.errors import LibraryEnvironmentError
from reader.library import Library
from reader.ui.paper.notes import RECOVERED_NOTES_DIR
from reader.ui.paper.pane import NOTE_NOT_SAVED
from reader.ui.window.main_window import MainWindow

from .helpers import key, paper

LOCKED = "The library is locked by another program (is Reader open twice?)."


def fail_set_note(monkeypatch: pytest.MonkeyPatch, times: int | None) -> list[str]:
    """Make Library.set_note raise `times` times (None: always); returns the texts it was asked for."""
    real = Library.set_note
    calls: list[str] = []

    def set_note(self: Library, paper_id: str, text: str) -> None:
        calls.append(text)
        if times is None or len(calls) <= times:
            raise LibraryEnvironmentError(LOCKED)
        real(self, paper_id, text)

    monkeypatch.setattr(Library, "set_note", set_note)
    return calls


def close_boxes(qtbot, window: MainWindow) -> None:
    """Close the error boxes and give the window its focus back (letter shortcuts need it)."""
    for box in window.findChildren(QMessageBox):
        box.close()
    window.activateWindow()
    window.table.setFocus()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def test_note_typed_then_closed_at_once_is_saved(qtbot, window: MainWindow, data_dir: Path) -> None:
    pid = window.pane.paper_id
    window.focus_note()
    qtbot.keyClicks(window.pane.noteEditor, "Typed just before quitting")
    window.close()  # no wait: closeEvent flushes through the writer
    with Library.open(data_dir) as reopened:
        assert paper(reopened, pid).note == "Typed just before quitting"


def test_note_saved_on_selection_change(qtbot, window: MainWindow, library: Library) -> None:
    pid = window.pane.paper_id
    window.focus_note()
    qtbot.keyClicks(window.pane.noteEditor, "first")
    window.focus_table()
    key(qtbot, window.table, Qt.Key.Key_J)
    assert window.pane.paper_id != pid
    qtbot.waitUntil(lambda: paper(library, pid).note == "first")


def test_failed_note_save_keeps_text_and_retries(qtbot, window: MainWindow, library: Library,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fail_set_note(monkeypatch, times=1)
    pid = window.pane.paper_id
    window.focus_note()
    qtbot.keyClicks(window.pane.noteEditor, "do not lose me")
    window.focus_table()
    qtbot.keyClick(window.table, Qt.Key.Key_J)  # leaving the paper saves the note: this write fails
    assert window.pane.paper_id != pid
    qtbot.waitUntil(lambda: window.findChild(QMessageBox, "errorMessage") is not None)
    qtbot.waitUntil(lambda: not window.runner.busy)
    assert "locked" in window.findChild(QMessageBox, "errorMessage").text()
    assert library.paper(pid).note == ""
    assert window.pane.unsaved_notes() == {pid: "do not lose me"}

    close_boxes(qtbot, window)
    window.pane._retry_timer.stop()  # the K below must be what retries (on the next flush)
    qtbot.keyClick(window.table, Qt.Key.Key_K)  # back: the typed text is shown again, marked unsaved
    assert window.pane.paper_id == pid
    assert window.pane.noteEditor.toPlainText() == "do not lose me"
    qtbot.waitUntil(lambda: library.paper(pid).note == "do not lose me")
    qtbot.waitUntil(lambda: window.pane.noteStatus.text() == "Saved")
    assert window.pane.unsaved_notes() == {}
    assert calls == ["do not lose me", "do not lose me"]


def test_failed_note_shows_not_saved_when_reselected(qtbot, window: MainWindow, library: Library,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    fail_set_note(monkeypatch, times=None)
    pid = window.pane.paper_id
    window.focus_note()
    qtbot.keyClicks(window.pane.noteEditor, "typed")
    window.pane.flush_note()
    qtbot.waitUntil(lambda: window.pane.noteStatus.text() == NOTE_NOT_SAVED)
    assert window.pane._retry_timer.isActive()  # retried later on its own
    close_boxes(qtbot, window)
    qtbot.keyClick(window.table, Qt.Key.Key_J)
    qtbot.waitUntil(lambda: not window.runner.busy)
    assert window.pane.paper_id != pid
    assert window.pane.noteEditor.toPlainText() == ""  # the next paper's (empty) note
    qtbot.keyClick(window.table, Qt.Key.Key_K)
    assert window.pane.paper_id == pid
    assert window.pane.noteEditor.toPlainText() == "typed"
    assert window.pane.noteStatus.text() == NOTE_NOT_SAVED
    close_boxes(qtbot, window)


def test_unsaved_note_on_quit_goes_to_a_recovery_file(qtbot, window: MainWindow, library: Library,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    fail_set_note(monkeypatch, times=None)
    pid = window.pane.paper_id
    window.focus_note()
    qtbot.keyClicks(window.pane.noteEditor, "rescue this note")
    window.close()
    recovered = library.paths.root / RECOVERED_NOTES_DIR / f"{pid}.md"
    assert recovered.read_text(encoding="utf-8") == "rescue this note"
    assert window.recovered_notes == [recovered]


def test_note_that_failed_is_written_on_quit_when_possible(qtbot, window: MainWindow, library: Library,
                                                           data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fail_set_note(monkeypatch, times=1)
    pid = window.pane.paper_id
    window.focus_note()
    qtbot.keyClicks(window.pane.noteEditor, "second try works")
    window.pane.flush_note()
    qtbot.waitUntil(lambda: window.pane.noteStatus.text() == NOTE_NOT_SAVED)
    window.close()
    assert library.paper(pid).note == "second try works"
    assert not (library.paths.root / RECOVERED_NOTES_DIR).exists()
