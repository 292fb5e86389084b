"""Undo commands that swap whole-paper snapshots (Library.snapshot / Library.restore)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QUndoCommand, QUndoStack

from reader.models import Paper

# Writes snapshots back and removes the papers with the given ids (see operations.restore_snapshots).
Restorer = Callable[[list[Paper], list[str]], None]


class SnapshotCommand(QUndoCommand):
    """Holds each touched paper's state before and after; undo/redo write one of them back.

    The change itself already ran when the command is pushed, so the first redo() is skipped.
    Papers present before but not after (deleted) are removed on redo, and the reverse on undo.
    Merging is done by `push_change`, not by overriding id()/mergeWith(): PySide6 6.12 drops a
    reference to None on every push when id() is overridden in Python (a crash at exit).
    """

    def __init__(self, restore: Restorer, text: str, before: list[Paper], after: list[Paper], merge_key: Any = None):
        super().__init__(text)
        self._restore = restore
        self.before = before
        self.after = after
        self.merge_key = merge_key
        self._pushed = False

    def _ids(self, snaps: list[Paper]) -> set[str]:
        return {s.id for s in snaps}

    def redo(self) -> None:
        if not self._pushed:
            self._pushed = True
            return
        gone = sorted(self._ids(self.before) - self._ids(self.after))
        self._restore(self.after, gone)

    def undo(self) -> None:
        added = sorted(self._ids(self.after) - self._ids(self.before))
        self._restore(self.before, added)


def push_change(stack: QUndoStack, command: SnapshotCommand) -> None:
    """Push `command`, or fold it into the top command when both edit the same note."""
    index = stack.index()
    if command.merge_key is not None and index == stack.count() and index > 0:
        top = stack.command(index - 1)
        if isinstance(top, SnapshotCommand) and top.merge_key == command.merge_key:
            top.after = command.after  # consecutive autosaves of one note: one undo step
            return
    stack.push(command)
