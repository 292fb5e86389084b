"""The window's message boxes: window-modal but never blocking, plain text, closed on quit; and
its error handler (a user's error becomes a message, anything else goes to the crash reporter)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from reader.errors import ReaderError


class Messages:
    """The message boxes open on `parent`; none once `is_closing()`."""

    def __init__(self, parent: QWidget, is_closing: Callable[[], bool], notify: Callable[[str, int], None]) -> None:
        self.parent = parent
        self.is_closing = is_closing
        self.notify = notify  # the status-bar line
        self.boxes: list[QMessageBox] = []

    def error(self, exc: BaseException) -> None:
        """User-facing errors become a readable message; anything else is a bug: report it."""
        if isinstance(exc, ReaderError):
            self.notify(str(exc), 10000)
            self.show("Reader", str(exc), QMessageBox.Icon.Warning, "errorMessage")
            return
        sys.excepthook(type(exc), exc, exc.__traceback__)

    def show(self, title: str, text: str, icon: QMessageBox.Icon, name: str) -> QMessageBox | None:
        if self.is_closing():
            return None
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self.parent)
        box.setTextFormat(Qt.TextFormat.PlainText)  # file names, error text and titles come from data
        box.setObjectName(name)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.boxes.append(box)
        box.finished.connect(lambda _=0, b=box: self.boxes.remove(b) if b in self.boxes else None)
        box.open()  # window-modal but never blocks the event loop
        return box

    def close_all(self) -> None:
        for box in list(self.boxes):
            box.close()
