"""Undo commands that swap whole-paper snapshots (Library.snapshot / Library.restore)."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtGui import QUndoCommand

NOTE_MERGE_ID = 1001


class Restorer(Protocol):
    def restore_snapshots(self, snapshots: list[dict], remove_ids: list[str]) -> None: ...


class SnapshotCommand(QUndoCommand):
    """Holds each touched paper's state before and after; undo/redo write one of them back.

    The change itself already ran when the command is pushed, so the first redo() is skipped.
    Papers present before but not after (deleted) are removed on redo, and the reverse on undo.
    """

    def __init__(self, target: Restorer, text: str, before: list[dict], after: list[dict], merge_key: Any = None):
        super().__init__(text)
        self._target = target
        self.before = before
        self.after = after
        self.merge_key = merge_key
        self._pushed = False

    def _ids(self, snaps: list[dict]) -> set[str]:
        return {s["id"] for s in snaps}

    def redo(self) -> None:
        if not self._pushed:
            self._pushed = True
            return
        gone = sorted(self._ids(self.before) - self._ids(self.after))
        self._target.restore_snapshots(self.after, gone)

    def undo(self) -> None:
        added = sorted(self._ids(self.after) - self._ids(self.before))
        self._target.restore_snapshots(self.before, added)

    def id(self) -> int:
        return NOTE_MERGE_ID if self.merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        # Consecutive autosaves of the same note become one undo step.
        if isinstance(other, SnapshotCommand) and other.merge_key == self.merge_key:
            self.after = other.after
            return True
        return False
