"""Notes: autosave with its undo, retry after a failed save, and recovery files when quitting fails."""

from __future__ import annotations

import os
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from .crash import NO_DIALOG_ENV
from .operations import change
from .tasks import Task

if TYPE_CHECKING:
    from .main_window import MainWindow

RECOVERED_NOTES_DIR = "recovered-notes"  # under the library root: notes that could not be stored on quit


def save_note(window: MainWindow, pid: str, text: str) -> Task | None:
    """Write a note; the pane counts it as saved only when the write succeeded."""
    pane = window.pane

    def failed(exc: BaseException) -> None:
        first = not pane.note_failed_before(pid)
        pane.note_failed(pid, text)
        if first:  # one message per note, not one per retry
            window.handle_error(exc)
        else:
            window.statusBar().showMessage(f"The note is still not saved: {exc}", 10000)

    def stored(note: str) -> None:
        pane.note_stored(pid, text)
        window.vault_sync.note_saved(pid, text, note)  # shows a note merged with the vault's

    # Consecutive autosaves of one note merge into one undo step (merge_key). The vault sync
    # stores it: a note the vault changed while it was being typed keeps both texts.
    vault = window.vault_sync
    return change(window, "Edit note", [pid], lambda: vault.store_note(pid, text), merge_key=("note", pid),
                  on_done=stored, on_error=failed)


def save_notes_on_quit(window: MainWindow, timeout: float = 30.0) -> list[Path]:
    """Write every unsaved note synchronously; what still fails goes to a recovery file.

    Returns the recovery files written (the user is told about them)."""
    lib = window.library
    recovered: list[Path] = []
    for pid, text in window.pane.unsaved_notes().items():
        def write(pid: str = pid, text: str = text) -> None:
            current = lib.paper(pid)
            if current is not None and current.note != text:
                window.vault_sync.store_note(pid, text)

        try:
            window.runner.write_sync(write, timeout)
        except Exception as exc:  # noqa: BLE001 - whatever failed, the text must survive
            path = write_recovered_note(lib.paths.root, pid, text)
            if path is None:
                sys.stderr.write(f"reader: the note of paper {pid} could not be saved ({exc}):\n{text}\n")
                continue
            sys.stderr.write(f"reader: the note of paper {pid} could not be saved ({exc}); "
                             f"it was written to {path}\n")
            recovered.append(path)
        window.pane.forget_unsaved_note(pid)
    return recovered


def write_recovered_note(root: Path, paper_id: str, text: str) -> Path | None:
    """Save a note that could not be stored to `root/recovered-notes/<paper id>.md` (None if even that fails)."""
    folder = Path(root) / RECOVERED_NOTES_DIR
    path = folder / f"{paper_id}.md"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.read_text(encoding="utf-8") != text:
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            path = folder / f"{paper_id}-{stamp}.md"  # never overwrite an earlier recovery
        path.write_text(text, encoding="utf-8")
    except OSError:
        return None
    return path


def tell_recovered(window: MainWindow, paths: list[Path]) -> None:
    """Quitting with notes that could not be stored: say where they are (blocks unless in tests)."""
    window.recovered_notes = paths
    text = (f"{len(paths)} note{'s' if len(paths) != 1 else ''} could not be saved to the library "
            f"and {'were' if len(paths) != 1 else 'was'} written to:\n\n{paths[0].parent}\n\n"
            "Paste them back into the papers' notes when the library is writable again.")
    if os.environ.get(NO_DIALOG_ENV) or QApplication.platformName() == "offscreen":
        return
    box = QMessageBox(QMessageBox.Icon.Warning, "Reader — notes recovered", text, QMessageBox.StandardButton.Ok)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.exec()
