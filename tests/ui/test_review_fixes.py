"""Review fixes: notes kept when saving fails, imported HTML shown as text, uncapped filter searches."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from reader.errors import LibraryEnvironmentError
from reader.services import Library, View
from reader.ui import main_window
from reader.ui.dialogs import ExportOptions
from reader.ui.main_window import RECOVERED_NOTES_DIR, MainWindow
from reader.ui.paper_pane import NOTE_NOT_SAVED

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
    assert library.paper(pid)["note"] == ""
    assert window.pane.unsaved_notes() == {pid: "do not lose me"}

    close_boxes(qtbot, window)
    window.pane._retry_timer.stop()  # the K below must be what retries (on the next flush)
    qtbot.keyClick(window.table, Qt.Key.Key_K)  # back: the typed text is shown again, marked unsaved
    assert window.pane.paper_id == pid
    assert window.pane.noteEditor.toPlainText() == "do not lose me"
    qtbot.waitUntil(lambda: library.paper(pid)["note"] == "do not lose me")
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
    assert library.paper(pid)["note"] == "second try works"
    assert not (library.paths.root / RECOVERED_NOTES_DIR).exists()


def test_imported_html_is_shown_as_text(qtbot, window: MainWindow, library: Library, tmp_path: Path) -> None:
    src = tmp_path / "<b>html<b> papers.jsonl"
    src.write_text(
        '{"title": "A <i>tagged</i> title", "venue": "<b>X</b>", "authors": ["<img src=\'file:///etc/hosts\'>"], '
        '"abstract": "An abstract long enough to be imported, about markup injected into metadata."}\n{broken\n',
        encoding="utf-8")
    window.import_paths([src])
    qtbot.waitUntil(lambda: window.last_import_summaries != [], timeout=20000)
    pid = next(i for i in library.paper_ids() if library.paper(i)["venue"] == "<b>X</b>")
    window.select_paper(pid)
    qtbot.waitUntil(lambda: window.pane.paper_id == pid)
    meta = window.pane.metaLabel
    assert meta.textFormat() == Qt.TextFormat.PlainText
    assert "<b>X</b>" in meta.text() and "<img src='file:///etc/hosts'>" in meta.text()
    box = window.findChild(QMessageBox, "importSummary")
    assert box is not None and box.textFormat() == Qt.TextFormat.PlainText
    assert "<b>html<b> papers.jsonl" in box.text()
    box.close()
    for label in (window.resultLabel, window.problemLabel, window.countsLabel, window.taskLabel,
                  window.pane.noteStatus):
        assert label.textFormat() == Qt.TextFormat.PlainText, label.objectName()
    # Tooltips have no plain-text switch: the title is escaped so Qt shows the tags literally.
    row = window.model.row_of(pid)
    tip = window.model.data(window.model.index(row, 1), Qt.ItemDataRole.ToolTipRole)
    assert "&lt;i&gt;tagged&lt;/i&gt;" in tip


def test_error_message_is_plain_text(qtbot, window: MainWindow) -> None:
    window.handle_error(LibraryEnvironmentError("cannot write <b>/data/<i>lib</i></b>"))
    box = window.findChild(QMessageBox, "errorMessage")
    assert box is not None and box.textFormat() == Qt.TextFormat.PlainText
    assert "<b>/data/<i>lib</i></b>" in box.text()
    box.close()


def search(qtbot, window: MainWindow, query: str) -> None:
    window.searchBox.setText(query)
    window.refresh_list()
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == query,
                    timeout=5000)


def test_filter_only_search_lists_every_match(qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(main_window, "SEARCH_LIMIT", 10)
    search(qtbot, window, "year:2025")
    assert window.model.rowCount() == 56
    assert window.resultLabel.text() == "56 results"
    search(qtbot, window, "tag:none-yet OR venue:icml")
    assert window.model.rowCount() == 56
    search(qtbot, window, "model")  # words: the best SEARCH_LIMIT, by relevance
    assert window.model.rowCount() == 10
    assert window.resultLabel.text().startswith("10 of ")


def test_export_and_bulk_actions_cover_the_whole_capped_search(qtbot, window: MainWindow, library: Library,
                                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(main_window, "SEARCH_LIMIT", 10)
    search(qtbot, window, "model")
    every = library.search("model", limit=None).ids
    assert window.model.rowCount() == 10 < len(every)

    out = tmp_path / "search.md"
    window.export_to(out, ExportOptions(scope="view", kind="reading_list"))
    qtbot.waitUntil(lambda: window.last_export is not None and not window.runner.busy, timeout=10000)
    text = out.read_text(encoding="utf-8")
    assert all(library.paper(pid)["title"] in text for pid in every)

    window.table.setFocus()
    window.table.selectAll()
    qtbot.keyClick(window.table, Qt.Key.Key_S)  # star "everything": every match, not the 10 shown
    qtbot.waitUntil(lambda: library.counts().starred == len(every), timeout=10000)
    assert set(library.paper_ids(View("starred"))) == set(every)


def test_run_without_a_display_says_so_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from reader.ui import app

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")

    def no_qt(*_args: object) -> None:
        raise AssertionError("Qt must not be started without a display")

    monkeypatch.setattr(app, "make_app", no_qt)
    monkeypatch.setattr(app, "open_window", no_qt)
    assert app.run(tmp_path / "lib") == 1
    err = capsys.readouterr().err
    assert err == "reader: no display found (set DISPLAY, or QT_QPA_PLATFORM=offscreen for tests)\n"
    assert not (tmp_path / "lib").exists()


@pytest.mark.parametrize(("env", "platform", "ok"), [
    ({}, "linux", False),
    ({"DISPLAY": ":0"}, "linux", True),
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", True),
    ({"DISPLAY": ""}, "linux", False),
    ({}, "darwin", True),
    ({}, "win32", True),
])
def test_display_available(env: dict[str, str], platform: str, ok: bool) -> None:
    from reader.ui.app import display_available

    assert display_available(env, platform) is ok
