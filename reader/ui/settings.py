"""The window's remembered state (geometry, splitters, columns, sort, sidebar view and "like" entries, theme) in QSettings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from reader.services import View

from .sidebar import view_key

if TYPE_CHECKING:
    from .main_window import MainWindow

VIEW_KINDS = ("all", "unread", "starred", "notes", "collection", "tag", "like_starred", "like_tag")


def restore_settings(w: MainWindow) -> None:
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


def save_settings(w: MainWindow) -> None:
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
