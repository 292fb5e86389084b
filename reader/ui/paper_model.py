"""Table model over paper ids; rows are fetched lazily from the library in cached pages."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QFont

from .plain import tooltip

COL_STAR, COL_TITLE, COL_METHOD, COL_VENUE, COL_YEAR, COL_TAGS, COL_NOTE, COL_ADDED = range(8)
COLUMNS = ("★", "Title", "Method", "Venue", "Year", "Tags", "✎", "Added")
SORT_KEYS = {
    COL_STAR: "starred",
    COL_TITLE: "title",
    COL_METHOD: "method",
    COL_VENUE: "venue",
    COL_YEAR: "year",
    COL_TAGS: "tags",
    COL_NOTE: "note",
    COL_ADDED: "added",
}
ID_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
READ_ROLE = Qt.ItemDataRole.UserRole + 3
PAGE_SIZE = 200
MAX_PAGES = 64  # ~12,800 rows of cache; a screen shows ~40

_Index = QModelIndex | QPersistentModelIndex


class PaperModel(QAbstractTableModel):
    """Holds only the ordered ids of the current view; Library.rows() fills pages on demand."""

    sortRequested = Signal(int, object)  # column, Qt.SortOrder

    def __init__(self, library: Any, parent: Any = None) -> None:
        super().__init__(parent)
        self._library = library
        self._ids: list[str] = []
        self._row_of: dict[str, int] | None = None
        self._pages: OrderedDict[int, list[Any]] = OrderedDict()
        self._bold = QFont()
        self._bold.setBold(True)

    # -- ids ----------------------------------------------------------------------------
    def set_ids(self, ids: list[str]) -> None:
        self.beginResetModel()
        self._ids = list(ids)
        self._row_of = None
        self._pages.clear()
        self.endResetModel()

    def ids(self) -> list[str]:
        return self._ids

    def id_at(self, row: int) -> str | None:
        return self._ids[row] if 0 <= row < len(self._ids) else None

    def row_of(self, paper_id: str) -> int:
        """Row of a paper id, or -1; the reverse map is built once per id list."""
        if self._row_of is None:
            self._row_of = {pid: i for i, pid in enumerate(self._ids)}
        return self._row_of.get(paper_id, -1)

    def invalidate(self) -> None:
        """Forget cached rows (after a write) and repaint what is visible."""
        self._pages.clear()
        if self._ids:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._ids) - 1, len(COLUMNS) - 1))

    def row_data(self, row: int) -> Any:
        """The PaperRow at `row` (fetching its page if needed), or None."""
        if not 0 <= row < len(self._ids):
            return None
        page = row // PAGE_SIZE
        rows = self._pages.get(page)
        if rows is None:
            page_ids = self._ids[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
            found = self._library.rows(page_ids)
            rows = [found.get(pid) for pid in page_ids]
            self._pages[page] = rows
            while len(self._pages) > MAX_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(page)
        return rows[row - page * PAGE_SIZE]

    # -- Qt model API -------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return {COL_STAR: "Starred", COL_NOTE: "Has a note"}.get(section, COLUMNS[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == ID_ROLE:
            return self._ids[index.row()]
        if role not in (
            Qt.ItemDataRole.DisplayRole,
            Qt.ItemDataRole.FontRole,
            Qt.ItemDataRole.ToolTipRole,
            Qt.ItemDataRole.TextAlignmentRole,
            SORT_ROLE,
            READ_ROLE,
        ):
            return None
        row = self.row_data(index.row())
        if row is None:
            return None
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return _display(row, col)
        if role == Qt.ItemDataRole.FontRole:
            return None if row.read else self._bold  # unread rows are bold, like a mail client
        if role == READ_ROLE:
            return bool(row.read)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if col in (COL_STAR, COL_NOTE, COL_YEAR):
                return int(Qt.AlignmentFlag.AlignCenter)
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            return tooltip(row.title) if col == COL_TITLE and row.title else None
        return _sort_value(row, col)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        # The library sorts (it sees every row); the window re-queries the ids.
        self.sortRequested.emit(column, order)


def _display(row: Any, col: int) -> str:
    if col == COL_STAR:
        return "★" if row.starred else ""
    if col == COL_TITLE:
        return row.title or ""
    if col == COL_METHOD:
        return row.method or ""
    if col == COL_VENUE:
        return row.venue or ""
    if col == COL_YEAR:
        return str(row.year) if row.year else ""
    if col == COL_TAGS:
        return ", ".join(row.tags)
    if col == COL_NOTE:
        return "✎" if row.has_note else ""
    if col == COL_ADDED:
        return (row.added_at or "")[:10]
    return ""


def _sort_value(row: Any, col: int) -> Any:
    if col == COL_STAR:
        return int(bool(row.starred))
    if col == COL_YEAR:
        return row.year or 0
    if col == COL_NOTE:
        return int(bool(row.has_note))
    return _display(row, col).casefold()
