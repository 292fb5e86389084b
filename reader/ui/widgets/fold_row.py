"""A row that folds into a column when it is narrower than its items: the paper pane's meta and
button rows, so a narrow pane wraps them onto more lines instead of squeezing or overlapping."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QBoxLayout, QLayoutItem, QWidget

ROW, COLUMN = QBoxLayout.Direction.LeftToRight, QBoxLayout.Direction.TopToBottom


class FoldRow(QBoxLayout):
    """Its items side by side while they fit at their minimum widths, else one above the other.

    Its minimum width is the folded one whichever way it is laid out now, so the pane's minimum
    (which the window's splitter reads) does not depend on its current width."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6, column_spacing: int = 4) -> None:
        super().__init__(ROW, parent)
        self._spacing = {ROW: spacing, COLUMN: column_spacing}
        self.setSpacing(spacing)
        self.setContentsMargins(0, 0, 0, 0)
        # Both widths, measured once per invalidation (Qt asks for them several times per relayout,
        # each a walk over the items in Python: ~3 ms of every J/K step in the paper pane).
        self._row_width: int | None = None
        self._column_width: int | None = None

    def invalidate(self) -> None:  # Qt's name: an item's size changed, or the layout is activated
        self._row_width = self._column_width = None
        super().invalidate()

    def _items(self) -> list[QLayoutItem]:
        items = (self.itemAt(i) for i in range(self.count()))
        return [item for item in items if item is not None and not item.isEmpty()]

    def row_width(self) -> int:
        """The width the items need side by side."""
        if self._row_width is None:
            items = self._items()
            self._row_width = (sum(item.minimumSize().width() for item in items)
                               + self._spacing[ROW] * max(0, len(items) - 1))
        return self._row_width

    def folded(self) -> bool:
        return self.direction() == COLUMN

    def minimumSize(self) -> QSize:
        if self._column_width is None:
            self._column_width = max((item.minimumSize().width() for item in self._items()), default=0)
        return QSize(self._column_width, super().minimumSize().height())

    def setGeometry(self, rect: QRect) -> None:
        direction = ROW if rect.width() >= self.row_width() else COLUMN
        if direction != self.direction():
            self.setDirection(direction)  # relays the parent out, now with this row's new height
            self.setSpacing(self._spacing[direction])
        super().setGeometry(rect)
