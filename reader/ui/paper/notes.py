"""Notes: autosave with its undo, merging with a note changed meanwhile, retry after a failed save,
and recovery files when quitting fails."""

from __future__ import annotations

import os
import sys
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from ..context import OpContext
from ..crash import NO_DIALOG_ENV
from ..operations import change
from ..tasks import Task
from .note_merge import NoteMerges
from .pane import PaperPane

RECOVERED_NOTES_DIR = "recovered-notes"  # under the library root: notes that could not be stored on quit


def store_note(ctx: OpContext, merges: NoteMerges, pid: str, text: str, base: str | None = None) -> str:
    """On the writer: store a typed note, merged with one changed under the editor; returns the note stored."""
    lib = ctx.library
    paper = lib.paper(pid)
    return merges.store(pid, text, paper.note if paper is not None else None, lambda note: lib.set_note(pid, note),
                        base)


def save_note(ctx: OpContext, pane: PaperPane, merges: NoteMerges, pid: str, text: str) -> Task | None:
    """Write a note; the pane counts it as saved only when the write succeeded."""
    shown = pane.paper
    base = merges.base_for(pid, shown.note if shown is not None and shown.id == pid else None, text)

    def failed(exc: BaseException) -> None:
        merges.sent_done(pid, text)
        first = not pane.note_failed_before(pid)
        pane.note_failed(pid, text)
        if first:  # one message per note, not one per retry
            ctx.on_error(exc)
        else:
            ctx.notify(f"The note is still not saved: {exc}", 10000)

    def stored(note: str) -> None:
        merges.sent_done(pid, text)
        pane.note_stored(pid, text)
        if note != text and pane.paper_id == pid and not pane.note_dirty():
            pane.set_paper(ctx.library.paper(pid))  # a merged note, once the user stopped typing
        merges.settle(pane.unsaved_notes())

    # Consecutive autosaves of one note merge into one undo step (merge_key). A note a vault sync
    # or another process changed while it was being typed keeps both texts (note_merge.py).
    return change(ctx, "Edit note", [pid], lambda: store_note(ctx, merges, pid, text, base), merge_key=("note", pid),
                  on_done=stored, on_error=failed)


def save_notes_on_quit(ctx: OpContext, pane: PaperPane, merges: NoteMerges, timeout: float = 30.0) -> list[Path]:
    """Write every unsaved note synchronously; what still fails goes to a recovery file.

    Returns the recovery files written (the user is told about them)."""
    lib = ctx.library
    recovered: list[Path] = []
    for pid, text in pane.unsaved_notes().items():
        def write(pid: str = pid, text: str = text) -> None:
            current = lib.paper(pid)
            if current is not None and current.note != text:
                store_note(ctx, merges, pid, text)

        try:
            ctx.runner.write_sync(write, timeout)
        except Exception as exc:  # whatever failed, the text must survive
            path = write_recovered_note(lib.paths.root, pid, text)
            if path is None:
                sys.stderr.write(f"reader: the note of paper {pid} could not be saved ({exc}):\n{text}\n")
                continue
            sys.stderr.write(f"reader: the note of paper {pid} could not be saved ({exc}); "
                             f"it was written to {path}\n")
            recovered.append(path)
        pane.forget_unsaved_note(pid)
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


def tell_recovered(paths: list[Path]) -> None:
    """Quitting with notes that could not be stored: say where they are (blocks unless in tests)."""
    text = (f"{len(paths)} note{'s' if len(paths) != 1 else ''} could not be saved to the library "
            f"and {'were' if len(paths) != 1 else 'was'} written to:\n\n{paths[0].parent}\n\n"
            "Paste them back into the papers' notes when the library is writable again.")
    if os.environ.get(NO_DIALOG_ENV) or QApplication.platformName() == "offscreen":
        return
    box = QMessageBox(QMessageBox.Icon.Warning, "Reader — notes recovered", text, QMessageBox.StandardButton.Ok)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.exec()
