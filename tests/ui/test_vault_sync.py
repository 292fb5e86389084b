"""Live vault sync in the window: notes travel both ways within 3 s, the dialog, settings and status."""

from __future__ import annotations

import re
import time
from datetime import datetime
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from reader.ui.vault.sync import FOLDER_KEY, QUERY_KEY, status_text
from reader.vault import DEFAULT_QUERY, SyncReport
from reader.vault.merge import has_conflict

ID_LINE = re.compile(r"^id: ['\"]?([0-9a-f]{16})", re.M)


def file_of(folder: Path, pid: str) -> Path | None:
    for path in folder.rglob("*.md"):
        m = ID_LINE.search(path.read_text(encoding="utf-8"))
        if m and m.group(1) == pid:
            return path
    return None


def connect(qtbot, window, folder: Path, query: str = "") -> None:
    done = window.vault_sync.syncs
    window.vault_sync.configure(folder, query)
    qtbot.waitUntil(lambda: window.vault_sync.syncs > done and window.vault_sync.watching())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "vault"
    path.mkdir()
    return path


def test_a_note_typed_in_reader_reaches_its_file_and_a_file_edit_reaches_the_editor(qtbot, window, folder):
    connect(qtbot, window, folder)
    pid = window.pane.paper_id
    assert pid is not None

    # Reader -> vault: typed, autosaved, synced within 3 s, without any other action.
    window.pane.noteEditor.setFocus()
    qtbot.keyClicks(window.pane.noteEditor, "typed in Reader")
    t0 = time.monotonic()
    qtbot.waitUntil(lambda: (p := file_of(folder, pid)) is not None
                    and "typed in Reader" in p.read_text(encoding="utf-8"))
    out_seconds = time.monotonic() - t0
    path = file_of(folder, pid)
    assert path is not None
    qtbot.waitUntil(lambda: not window.runner.busy and window.vault_sync._task is None)
    assert window.vault_sync.report is not None and not window.vault_sync.report.conflicts

    # Vault -> Reader: another program rewrites the note in the file; the editor shows it.
    time.sleep(0.05)  # a distinct mtime from the sync's own write
    text = path.read_text(encoding="utf-8")
    assert "\ntyped in Reader\n" in text
    path.write_text(text.replace("\ntyped in Reader\n", "\nrewritten in Obsidian\n"), encoding="utf-8")
    t0 = time.monotonic()
    qtbot.waitUntil(lambda: window.pane.noteEditor.toPlainText() == "rewritten in Obsidian")
    in_seconds = time.monotonic() - t0
    assert window.library.paper(pid).note == "rewritten in Obsidian"
    assert window.pane.paper_id == pid
    print(f"\nvault: Reader -> file {out_seconds:.2f} s, file -> editor {in_seconds:.2f} s")

    # The change from the vault is one undo step.
    qtbot.waitUntil(lambda: window.undo_stack.undoText().startswith("Sync from vault"))
    window.undo_stack.undo()
    qtbot.waitUntil(lambda: window.library.paper(pid).note == "typed in Reader")
    qtbot.waitUntil(lambda: window.pane.noteEditor.toPlainText() == "typed in Reader")
    # ... and the undone note goes out to the file again.
    qtbot.waitUntil(lambda: "\ntyped in Reader\n" in path.read_text(encoding="utf-8"))


def test_typing_during_a_sync_that_changes_the_note_keeps_both_texts(qtbot, window, folder):
    pid = window.pane.paper_id
    window.pane.noteEditor.setFocus()
    qtbot.keyClicks(window.pane.noteEditor, "first")
    qtbot.waitUntil(lambda: window.library.paper(pid).note == "first")
    connect(qtbot, window, folder)
    path = file_of(folder, pid)
    assert path is not None
    vs = window.vault_sync
    vs.shutdown()  # drive the syncs by hand: no watcher, no timer
    qtbot.waitUntil(lambda: not window.runner.busy)

    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\nfirst\n", "\nfirst, and from the vault\n"), encoding="utf-8")
    done = vs.syncs
    # The sync is queued, then the user types on before its result is shown.
    window.runner.write(lambda: time.sleep(0.3))  # keep the writer busy so the typing lands mid-sync
    vs.sync_now()
    qtbot.keyClicks(window.pane.noteEditor, " typed on")
    qtbot.waitUntil(lambda: vs.syncs > done)
    # The editor kept what is being typed (on a loaded machine the note may already have been
    # saved and merged by now: then the editor shows the merged note, the typing in it) ...
    assert "first typed on" in window.pane.noteEditor.toPlainText()
    # ... and once typing stops, both texts are in the note (in Reader and the editor).
    qtbot.waitUntil(lambda: "first typed on" in window.library.paper(pid).note)
    note = window.library.paper(pid).note
    assert "first, and from the vault" in note and has_conflict(note)
    qtbot.waitUntil(lambda: window.pane.noteEditor.toPlainText() == note)
    assert not window.pane.note_dirty()
    # The next sync sends the merged note to the file and reports the conflict.
    done = vs.syncs
    vs.sync_now()
    qtbot.waitUntil(lambda: vs.syncs > done)
    assert "first typed on" in path.read_text(encoding="utf-8")
    assert "first, and from the vault" in path.read_text(encoding="utf-8")
    assert vs.report is not None and [c["id"] for c in vs.report.conflicts] == [pid]
    assert "1 conflict" in vs.button.text()


def test_the_dialog_sets_remembers_and_disconnects_the_vault(qtbot, window, folder, library):
    assert not window.vault_sync.button.isVisible()
    window.findChild(type(window.undoAction), "vaultAction").trigger()
    dialog = window.vault_sync.dialog
    assert dialog is not None and dialog.objectName() == "vaultDialog" and dialog.isVisible()
    assert dialog.queryEdit.text() == DEFAULT_QUERY
    assert not dialog.disconnectButton.isVisible()

    dialog.folderEdit.setText(str(folder / "missing" / "deeper"))
    qtbot.mouseClick(dialog.syncButton, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and "no such folder" in dialog.errorLabel.text()

    dialog.folderEdit.setText(str(folder))
    dialog.queryEdit.setText("is:starred")
    done = window.vault_sync.syncs
    qtbot.mouseClick(dialog.syncButton, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    qtbot.waitUntil(lambda: window.vault_sync.syncs > done)
    assert window.settings.value(FOLDER_KEY) == str(folder)
    assert window.settings.value(QUERY_KEY) == "is:starred"
    assert window.vault_sync.button.isVisible()
    assert window.vault_sync.button.text().startswith("Vault: synced ")
    assert (folder / ".reader-vault").exists()

    # A new window on the same library comes back to the vault and its query.
    from reader.ui.window.main_window import MainWindow

    other = MainWindow(library, theme="light")
    qtbot.addWidget(other)
    assert other.vault_sync.folder == folder and other.vault_sync.query == "is:starred"
    qtbot.waitUntil(lambda: other.vault_sync.syncs > 0)
    other.close()

    window.vault_sync.ask()
    dialog = window.vault_sync.dialog
    assert dialog.folderEdit.text() == str(folder) and dialog.disconnectButton.isVisibleTo(dialog)
    qtbot.mouseClick(dialog.disconnectButton, Qt.MouseButton.LeftButton)
    assert window.vault_sync.folder is None and window.settings.value(FOLDER_KEY) is None
    assert not window.vault_sync.button.isVisible() and not window.vault_sync.watching()
    assert (folder / ".reader-vault").exists()  # disconnecting leaves the folder alone


def test_status_text():
    report = SyncReport(vault="/v", query=DEFAULT_QUERY)
    when = datetime(2026, 1, 2, 12, 3).astimezone()
    assert status_text(report, when) == "Vault: synced 12:03"
    report.conflicts = [{"path": "a.md", "id": "1"}, {"path": "b.md", "id": "2"}]
    report.damaged = [{"path": "c.md", "reason": "x"}]
    assert status_text(report, when) == "Vault: synced 12:03 · 2 conflicts · 1 damaged file"
    assert status_text(report, when, running=True) == "Vault: syncing…"
    assert status_text(None, None, error="/v: no such folder") == "Vault: error — /v: no such folder"
    assert status_text(None, None) == "Vault: not synced yet"


def test_the_status_shows_damaged_files_and_opens_the_report(qtbot, window, folder, monkeypatch):
    pid = window.pane.paper_id
    window.pane.noteEditor.setFocus()
    qtbot.keyClicks(window.pane.noteEditor, "a note")
    qtbot.waitUntil(lambda: window.library.paper(pid).note == "a note")
    connect(qtbot, window, folder)
    path = file_of(folder, pid)
    assert path is not None
    broken = path.read_text(encoding="utf-8").replace("<!-- /reader:note -->", "")
    path.write_text(broken, encoding="utf-8")
    qtbot.waitUntil(lambda: "1 damaged file" in window.vault_sync.button.text())
    assert path.read_text(encoding="utf-8") == broken  # left alone

    qtbot.mouseClick(window.vault_sync.button, Qt.MouseButton.LeftButton)
    dialog = window.vault_sync.report_dialog
    assert dialog is not None and dialog.isVisible() and dialog.objectName() == "vaultReport"
    assert path.name in dialog.text.toPlainText() and "damaged" in dialog.text.toPlainText()
    dialog.close()

    opened = []
    monkeypatch.setattr("reader.ui.vault.sync.QDesktopServices.openUrl", lambda url: opened.append(url))
    window.open_vault()
    assert [u.toLocalFile() for u in opened] == [str(folder)]


def test_a_missing_vault_folder_is_an_error_in_the_status(qtbot, window, folder):
    connect(qtbot, window, folder)
    folder.rename(folder.with_name("moved"))
    window.vault_sync.sync_now()
    assert "Vault: error" in window.vault_sync.button.text()
    assert "missing" in window.vault_sync.button.text()


def test_our_own_writes_do_not_wake_the_watcher(qtbot, window, folder):
    pid = window.pane.paper_id
    window.pane.noteEditor.setFocus()
    qtbot.keyClicks(window.pane.noteEditor, "one")
    connect(qtbot, window, folder)
    qtbot.waitUntil(lambda: (p := file_of(folder, pid)) is not None and "\none\n" in p.read_text(encoding="utf-8"))
    qtbot.keyClicks(window.pane.noteEditor, " two")  # a rewrite of an existing file, too
    qtbot.waitUntil(lambda: "\none two\n" in file_of(folder, pid).read_text(encoding="utf-8"))
    vs = window.vault_sync
    qtbot.waitUntil(lambda: vs._task is None and not vs._timer.isActive() and not window.runner.busy)
    settled, woken = vs.syncs, vs.wakeups
    qtbot.wait(1500)  # the watcher's quiet period is 0.5 s
    assert (vs.syncs, vs.wakeups) == (settled, woken)
    assert woken == 0


def test_a_note_typed_just_before_quitting_reaches_the_file(qtbot, library, folder):
    from reader.ui.window.main_window import MainWindow

    w = MainWindow(library, theme="light")
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.index_ready and w.pane.paper_id is not None)
    connect(qtbot, w, folder)
    pid = w.pane.paper_id
    w.pane.noteEditor.setFocus()
    qtbot.keyClicks(w.pane.noteEditor, "last words")
    w.close()  # before the autosave and the debounced sync
    path = file_of(folder, pid)
    assert path is not None and "\nlast words\n" in path.read_text(encoding="utf-8")
