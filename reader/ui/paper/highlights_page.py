"""The paper pane's Highlights tab: the paper's highlights (double-click edits a comment, Delete
or Remove drops one), rebuilt only when they change."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from reader.models import Highlight

from ..widgets.plain import tooltip

ID_ROLE = Qt.ItemDataRole.UserRole + 1


class HighlightsPage(QWidget):
    def __init__(self, parent: QWidget, comment: Callable[[int], None], remove: Callable[[], None]) -> None:
        super().__init__(parent)
        self.list = QListWidget(self)
        self.list.setObjectName("highlightList")
        self.list.setAccessibleName("Highlights")
        self.list.itemActivated.connect(lambda item: comment(item.data(ID_ROLE)))
        action = QAction("Remove highlight", self.list)
        action.setShortcut(QKeySequence(Qt.Key.Key_Delete))
        action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        action.triggered.connect(remove)
        self.list.addAction(action)
        self.removeButton = QPushButton("Remove", self)
        self.removeButton.setObjectName("removeHighlightButton")
        self.removeButton.clicked.connect(remove)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.list, 1)
        bar = QHBoxLayout()
        hint = QLabel("Double-click a highlight to edit its comment.", self)
        hint.setWordWrap(True)  # a narrow pane: on two lines
        bar.addWidget(hint, 1)
        bar.addWidget(self.removeButton)
        layout.addLayout(bar)
        self._rows: list[tuple[Any, str, Any]] = []

    def show_highlights(self, highlights: Sequence[Highlight]) -> int:
        """List `highlights`, rebuilt only when they changed (clearing the list on every J/K step
        relaid the whole window out); returns how many there are."""
        rows: list[tuple[Any, str, Any]] = [
            (h.id, f"“{h.quote}”" + (f" — {h.comment}" if h.comment else ""), h.color) for h in highlights]
        if rows != self._rows:
            self._rows = rows
            self.list.clear()
            for hid, text, color in rows:
                item = QListWidgetItem(text, self.list)
                item.setData(ID_ROLE, hid)
                item.setToolTip(tooltip(f"{color} highlight"))
        return len(rows)

    def selected_id(self) -> int | None:
        item = self.list.currentItem()
        return None if item is None else item.data(ID_ROLE)
