"""The window's remembered state (geometry, splitters, columns, sort, sidebar view and "like" entries, theme) in QSettings."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtWidgets import QSplitter, QTableView

from reader.services import View

from .paper_pane import PaperPane
from .sidebar import Sidebar, view_key

VIEW_KINDS = ("all", "unread", "starred", "notes", "collection", "tag", "like_starred", "like_tag")


class SettingsHost(Protocol):
    """The window's parts whose state is remembered."""

    settings: QSettings
    sort_column: int
    sort_order: Qt.SortOrder
    view: View
    theme: str

    @property
    def splitter(self) -> QSplitter: ...
    @property
    def pane(self) -> PaperPane: ...
    @property
    def table(self) -> QTableView: ...
    @property
    def sidebar(self) -> Sidebar: ...
    def saveGeometry(self) -> QByteArray: ...  # noqa: N802 - Qt's names
    def restoreGeometry(self, geometry: QByteArray) -> bool: ...  # noqa: N802
    def saveState(self) -> QByteArray: ...  # noqa: N802
    def restoreState(self, state: QByteArray) -> bool: ...  # noqa: N802


def restore_settings(w: SettingsHost) -> None:
    s = w.settings
    for key, restore in (("geometry", w.restoreGeometry), ("windowState", w.restoreState),
                         ("splitter", w.splitter.restoreState), ("paneSplitter", w.pane.splitter.restoreState),
                         ("header", w.table.horizontalHeader().restoreState)):
        if s.value(key) is not None:
            restore(s.value(key))
    try:
        w.sort_column = int(str(s.value("sortColumn", w.sort_column)))
        w.sort_order = Qt.SortOrder(int(str(s.value("sortOrder", w.sort_order.value))))
    except (TypeError, ValueError):
        pass
    w.table.horizontalHeader().setSortIndicator(w.sort_column, w.sort_order)
    w.sidebar.set_like_tags(_strings(s.value("likeTags")))
    kind, _, value = str(s.value("sidebar", "all:")).partition(":")
    if kind in VIEW_KINDS:
        w.view = View(kind, value or None)
        w.sidebar.show_view(w.view)


def save_settings(w: SettingsHost) -> None:
    s = w.settings
    s.setValue("geometry", w.saveGeometry())
    s.setValue("windowState", w.saveState())
    s.setValue("splitter", w.splitter.saveState())
    s.setValue("paneSplitter", w.pane.splitter.saveState())
    s.setValue("header", w.table.horizontalHeader().saveState())
    s.setValue("sortColumn", w.sort_column)
    s.setValue("sortOrder", w.sort_order.value)
    s.setValue("sidebar", view_key(w.view))
    s.setValue("likeTags", w.sidebar.like_tags())
    s.setValue("theme", w.theme)
    s.sync()


def _strings(value: object) -> list[str]:
    """A QSettings list: None, one string or a list, depending on the platform's backend."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value] if isinstance(value, list | tuple) else []
