"""The paper pane's title: wraps instead of clipping, shows LaTeX rendered, edits the stored text."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from reader.text.render import title_plain

from ..widgets.plain import set_tip

# A long title in a narrow pane (5 lines of "Improving Predictive Specificity of Description Logic
# Learners by Fortification" at 232 px) is shown whole: at 4 lines its last one was cut in half.
MAX_LINES = 6


class TitleEdit(QPlainTextEdit):
    """An editable title that wraps instead of clipping; Enter or leaving it commits.

    Shows the title rendered (`Cu$_2$O` as Cu₂O, like the table) and the stored text, LaTeX
    and all, while it has the focus: what is edited is what is stored."""

    editingFinished = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        font = QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.setFont(font)
        self.setFrameShape(QPlainTextEdit.Shape.NoFrame)
        self.setPlaceholderText("Title")
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTabChangesFocus(True)
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(lambda _: self._fit())
        self._raw = ""  # the stored title
        self._editing = False  # the stored text is shown (the field has the focus)
        self._floor = 0  # hold_height: no lower than this (a run of J/K steps)
        self._fit()

    def text(self) -> str:
        """The title as stored: what is typed while editing, else the one set."""
        return " ".join(self.toPlainText().split()) if self._editing else " ".join(self._raw.split())

    def setText(self, text: str) -> None:
        self._raw = text
        self.setPlainText(text if self._editing else title_plain(text))
        set_tip(self, title_plain(text))
        self._fit()

    def clear(self) -> None:
        self.setText("")

    def focusInEvent(self, event: Any) -> None:
        if not self._editing:
            self._editing = True
            if self.toPlainText() != self._raw:
                self.setPlainText(self._raw)  # edit the stored text
        super().focusInEvent(event)

    def _fit(self) -> None:
        lines = max(1, min(MAX_LINES, self.document().lineCount() if self.document().blockCount() > 1 else
                           self._visual_lines()))
        height = lines * self.fontMetrics().lineSpacing() + 2 * int(self.document().documentMargin()) + 6
        height = max(height, self._floor)
        if height != self.height() or height != self.minimumHeight() or height != self.maximumHeight():
            self.setFixedHeight(height)

    def hold_height(self, floor: int) -> None:
        """No shorter than `floor` (0: as tall as the title): the paper pane holds the tallest
        title of a run of J/K steps, so that a shorter one does not move everything below it."""
        if floor != self._floor:
            self._floor = floor
            self._fit()

    def _visual_lines(self) -> int:
        layout = self.document().firstBlock().layout()
        return layout.lineCount() if layout is not None and layout.lineCount() else 1

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._fit()

    def keyPressEvent(self, event: Any) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.editingFinished.emit()  # a title is one line
            return
        super().keyPressEvent(event)

    def focusOutEvent(self, event: Any) -> None:
        super().focusOutEvent(event)
        self.editingFinished.emit()  # reads text() while it still is what was typed
        self._raw = self.text()
        self._editing = False
        self.setPlainText(title_plain(self._raw))
