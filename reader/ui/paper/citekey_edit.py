"""The paper pane's citation key field: shows the key, edits it (checked as typed), Enter commits."""

from __future__ import annotations

from PySide6.QtCore import QRegularExpression, Qt, Signal
from PySide6.QtGui import QKeyEvent, QRegularExpressionValidator
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QWidget

from reader.text.citekeys import MAX_KEY_CHARS


class CitationKeyEdit(QWidget):
    """`Key [vaswani2017attention]`: the library refuses a key another paper has; an emptied
    field asks for a key made again from the paper. Esc puts the stored key back."""

    keyEdited = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("citationKey")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel("Key", self)
        self.edit = QLineEdit(self)
        self.edit.setObjectName("citationKeyEdit")
        self.edit.setAccessibleName("Citation key")
        self.edit.setToolTip("Citation key for BibTeX, CSL-JSON and RIS exports (\\cite{…}); "
                             "letters, digits and _ - : . / +. Empty it to make one again.")
        # Only characters a key may hold can be typed (the library checks uniqueness).
        self.edit.setValidator(QRegularExpressionValidator(
            QRegularExpression(f"[A-Za-z0-9_\\-:./+]{{0,{MAX_KEY_CHARS}}}"), self.edit))
        self.edit.setMinimumWidth(self.edit.fontMetrics().horizontalAdvance("vaswani2017attention") + 16)
        self.edit.setMaximumWidth(260)
        label.setBuddy(self.edit)
        layout.addWidget(label)
        layout.addWidget(self.edit)
        self._stored = ""
        self.edit.editingFinished.connect(self._finished)

    def set_key(self, key: str) -> None:
        """Show the stored key (not while the user is typing one)."""
        self._stored = key
        if not self.edit.hasFocus() or not self.edit.isModified():
            self.edit.setText(key)
            self.edit.setModified(False)
            if not self.edit.hasFocus():
                self.edit.setCursorPosition(0)  # a long key shows its start (the author), not its end

    def revert(self) -> None:
        """Back to the stored key (a refused edit)."""
        self.edit.setText(self._stored)
        self.edit.setModified(False)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.edit.isModified():
            self.revert()
            return
        super().keyPressEvent(event)

    def _finished(self) -> None:
        text = self.edit.text().strip()
        if self.edit.isModified() and text != self._stored:
            self.edit.setModified(False)
            self.keyEdited.emit(text)
