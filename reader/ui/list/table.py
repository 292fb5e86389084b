"""The paper table: compact columns, row selection, J/K moves and keeping the selection across re-lists."""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QItemSelectionModel, QModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

from .columns import ColumnFitter
from .model import COL_TITLE, PaperModel

SELECT = QItemSelectionModel.SelectionFlag
MOVE = QAbstractItemView.CursorAction


class PaperTable(QTableView):
    """Rows of papers (ids from the PaperModel); knows which ids are current and selected."""

    def __init__(self, model: PaperModel, parent: QWidget, sort_column: int, sort_order: Qt.SortOrder) -> None:
        super().__init__(parent)
        self.setObjectName("paperTable")
        self.setAccessibleName("Papers")
        self.paper_model = model
        self.setModel(model)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setShowGrid(False)
        self.setAlternatingRowColors(True)
        self.setTabKeyNavigation(False)
        vh = self.verticalHeader()
        vh.setVisible(False)
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # no per-row size hints: 100k rows stay fast
        vh.setDefaultSectionSize(parent.fontMetrics().height() + 8)
        hh = self.horizontalHeader()
        hh.setHighlightSections(False)
        hh.setStretchLastSection(False)
        hh.setSortIndicator(sort_column, sort_order)
        self.columns = ColumnFitter(self, model)  # widths, order, hidden columns, the header menu
        self.setSortingEnabled(True)

    def moveCursor(self, action: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier) -> QModelIndex:
        """Home/End go to the first/last paper (a table's default moves along the row, which
        selecting whole rows makes a no-op)."""
        if action in (MOVE.MoveHome, MOVE.MoveEnd) and self.paper_model.rowCount():
            row = 0 if action == MOVE.MoveHome else self.paper_model.rowCount() - 1
            return self.paper_model.index(row, max(self.currentIndex().column(), 0))
        return super().moveCursor(action, modifiers)

    def current_id(self) -> str | None:
        index = self.currentIndex()
        return self.paper_model.id_at(index.row()) if index.isValid() else None

    def selected_ids(self) -> list[str]:
        rows = sorted({i.row() for i in self.selectionModel().selectedRows()})
        return [pid for pid in (self.paper_model.id_at(r) for r in rows) if pid]

    def go_to_row(self, row: int) -> None:
        """Make `row` current and the only selected row, scrolled into view."""
        index = self.paper_model.index(row, COL_TITLE)
        self.selectionModel().setCurrentIndex(index, SELECT.ClearAndSelect | SELECT.Rows)
        self.scrollTo(index)

    def move_current(self, step: int) -> None:
        count = self.paper_model.rowCount()
        if not count:
            return
        row = self.currentIndex().row()
        self.go_to_row(0 if row < 0 else min(max(row + step, 0), count - 1))

    def reselect(self, target: str | None, selected: list[str], current_row: int) -> QModelIndex | None:
        """After a re-list: select `selected` again with `target` current (else the row near the old one).

        Returns the new current index, or None when the list is empty."""
        model = self.paper_model
        rows = sorted(r for r in (model.row_of(i) for i in selected) if r >= 0)
        row = model.row_of(target) if target else -1
        if row < 0:
            if not model.rowCount():
                return None
            row = min(max(current_row, 0), model.rowCount() - 1)
            rows = [row]
        if row not in rows:
            rows = [row]
        selection = QItemSelection()
        last = model.columnCount() - 1
        for r in rows:
            selection.select(model.index(r, 0), model.index(r, last))
        sm = self.selectionModel()
        sm.setCurrentIndex(model.index(row, COL_TITLE), SELECT.NoUpdate)
        sm.select(selection, SELECT.ClearAndSelect | SELECT.Rows)
        self.scrollTo(model.index(row, COL_TITLE))
        return model.index(row, 0)
