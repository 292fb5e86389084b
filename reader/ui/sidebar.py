"""The sidebar: library views with live counts, collections, tags and saved searches."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import QHeaderView, QMenu, QTreeWidget, QTreeWidgetItem, QWidget

from reader.services import View

KEY_ROLE = Qt.ItemDataRole.UserRole + 1
LIBRARY_VIEWS = (("all", "All"), ("unread", "Unread"), ("starred", "Starred"), ("notes", "With notes"))
COUNT_ATTRS = {"all": "total", "unread": "unread", "starred": "starred", "notes": "with_notes"}


def view_key(view: View) -> str:
    return f"{view.kind}:{view.value or ''}"


class Sidebar(QTreeWidget):
    """A two-column tree (name, count); selecting an entry emits viewSelected / searchSelected."""

    viewSelected = Signal(object)  # View
    searchSelected = Signal(dict)  # saved search {"id", "name", "query"}
    renameTagRequested = Signal(str)
    mergeTagRequested = Signal(str)
    deleteTagRequested = Signal(str)
    renameSearchRequested = Signal(dict)
    deleteSearchRequested = Signal(dict)
    saveSearchRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sidebar")
        self.setColumnCount(2)
        self.setHeaderHidden(True)
        self.setRootIsDecorated(False)
        self.setIndentation(10)
        self.setUniformRowHeights(True)
        self.header().setStretchLastSection(False)
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context_menu)
        self.itemSelectionChanged.connect(self._selection_changed)
        self._sections: dict[str, QTreeWidgetItem] = {}
        for name in ("Library", "Collections", "Tags", "Saved searches"):
            item = QTreeWidgetItem(self, [name.upper(), ""])
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            font = item.font(0)
            font.setBold(True)
            font.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
            item.setFont(0, font)
            item.setExpanded(True)
            self._sections[name] = item
        for kind, label in LIBRARY_VIEWS:
            self._add(self._sections["Library"], label, 0, ("view", View(kind)))
        self.expandAll()
        self.current_key = view_key(View())
        self.select_key(self.current_key)

    def _add(self, parent: QTreeWidgetItem, name: str, count: int | None, key: tuple) -> QTreeWidgetItem:
        item = QTreeWidgetItem(parent, [name, "" if count is None else str(count)])
        item.setData(0, KEY_ROLE, key)
        item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        item.setToolTip(0, name)
        return item

    def _items(self) -> list[QTreeWidgetItem]:
        return [s.child(i) for s in self._sections.values() for i in range(s.childCount())]

    @staticmethod
    def _key_of(item: QTreeWidgetItem) -> str | None:
        key = item.data(0, KEY_ROLE)
        if not key:
            return None
        if key[0] == "view":
            return view_key(key[1])
        return f"search:{key[1]['id']}"

    def update_data(self, counts: Any, collections: list, tags: list, searches: list[dict]) -> None:
        """Rebuild the dynamic sections and the counts, keeping the selection, silently."""
        self.blockSignals(True)
        try:
            lib = self._sections["Library"]
            for i in range(lib.childCount()):
                item = lib.child(i)
                kind = item.data(0, KEY_ROLE)[1].kind
                item.setText(1, str(getattr(counts, COUNT_ATTRS[kind], "")))
            for name, rows in (
                ("Collections", [(n, c, ("view", View("collection", n))) for n, c in collections]),
                ("Tags", [(n, c, ("view", View("tag", n))) for n, c in tags]),
                ("Saved searches", [(s["name"], None, ("search", s)) for s in searches]),
            ):
                section = self._sections[name]
                section.takeChildren()
                for label, count, key in rows:
                    self._add(section, label, count, key)
                section.setHidden(not rows and name != "Tags")
            self.select_key(self.current_key)
        finally:
            self.blockSignals(False)

    def select_key(self, key: str) -> bool:
        for item in self._items():
            if self._key_of(item) == key:
                self.setCurrentItem(item)
                return True
        return False

    def select_view(self, view: View) -> None:
        """Select a view (emitting viewSelected), falling back to All."""
        if not self.select_key(view_key(view)):
            self.select_key(view_key(View()))

    def tag_names(self) -> list[str]:
        section = self._sections["Tags"]
        return [section.child(i).text(0) for i in range(section.childCount())]

    def _selection_changed(self) -> None:
        items = self.selectedItems()
        if not items:
            return
        key = items[0].data(0, KEY_ROLE)
        if not key:
            return
        self.current_key = self._key_of(items[0]) or self.current_key
        if key[0] == "view":
            self.viewSelected.emit(key[1])
        else:
            self.searchSelected.emit(key[1])

    def _context_menu(self, pos: QPoint) -> None:
        item = self.itemAt(pos)
        key = item.data(0, KEY_ROLE) if item else None
        menu = QMenu(self)
        if key and key[0] == "view" and key[1].kind == "tag":
            name = key[1].value
            menu.addAction("Rename tag…", lambda: self.renameTagRequested.emit(name))
            menu.addAction("Merge into…", lambda: self.mergeTagRequested.emit(name))
            menu.addAction("Delete tag", lambda: self.deleteTagRequested.emit(name))
        elif key and key[0] == "search":
            search = key[1]
            menu.addAction("Rename saved search…", lambda: self.renameSearchRequested.emit(search))
            menu.addAction("Delete saved search", lambda: self.deleteSearchRequested.emit(search))
        menu.addAction("Save current search…", self.saveSearchRequested.emit)
        menu.popup(self.viewport().mapToGlobal(pos))
