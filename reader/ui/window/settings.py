"""The window's remembered state, in two QSettings files.

Global (every library; `paths.global_settings_file`): window geometry and splitters, theme,
columns, preferences such as "mark read when moving on", and the recent libraries. Per library
(`LibraryPaths.settings_file`): its sort, sidebar view and "like" entries, vault and triage
session. Settings a library kept before they became global move out of it once (`migrate`)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtWidgets import QSplitter

from reader.library import View
from reader.paths import global_settings_file

from ..list.sidebar import Sidebar, view_key
from ..list.table import PaperTable
from ..paper.pane import PaperPane

VIEW_KINDS = ("all", "unread", "starred", "notes", "collection", "venue", "tag", "like_starred", "like_tag")
MARK_READ_KEY = "triage/markReadOnMove"  # the triage view's checkbox (triage_controller reads it)
# Keys that belong to the app, not to one library (moved out of a library's file once).
GLOBAL_KEYS = ("geometry", "windowState", "splitter", "paneSplitter", "theme", MARK_READ_KEY)
OBSOLETE_KEYS = ("header",)  # the old column state (Qt bytes for 8 columns): columns start afresh
RECENT_KEY = "recentLibraries"
MAX_RECENT = 8


def global_settings() -> QSettings:
    path = global_settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    return QSettings(str(path), QSettings.Format.IniFormat)


def library_settings(settings_file: Path) -> QSettings:
    return QSettings(str(settings_file), QSettings.Format.IniFormat)


def migrate(library: QSettings, app: QSettings) -> list[str]:
    """Move the global keys a library's file still holds into the global file (where the global
    file has none yet: the first library migrated wins), and drop them from the library's.
    Returns the keys moved or dropped; a second call finds nothing."""
    moved = []
    for key in (*GLOBAL_KEYS, *OBSOLETE_KEYS):
        if not library.contains(key):
            continue
        if key in GLOBAL_KEYS and not app.contains(key):
            app.setValue(key, library.value(key))
        library.remove(key)
        moved.append(key)
    if moved:
        library.sync()
        app.sync()
    return moved


class SettingsHost(Protocol):
    """The window's parts whose state is remembered."""

    app_settings: QSettings  # global: window, theme, columns
    settings: QSettings  # this library's: views, sort, vault
    sort_column: int
    sort_order: Qt.SortOrder
    view: View
    theme: str

    @property
    def splitter(self) -> QSplitter: ...
    @property
    def pane(self) -> PaperPane: ...
    @property
    def table(self) -> PaperTable: ...
    @property
    def sidebar(self) -> Sidebar: ...
    def saveGeometry(self) -> QByteArray: ...  # Qt's names
    def restoreGeometry(self, geometry: QByteArray) -> bool: ...
    def saveState(self) -> QByteArray: ...
    def restoreState(self, state: QByteArray) -> bool: ...


def restore_settings(w: SettingsHost) -> None:
    g, s = w.app_settings, w.settings
    for key, restore in (("geometry", w.restoreGeometry), ("windowState", w.restoreState),
                         ("splitter", w.splitter.restoreState), ("paneSplitter", w.pane.splitter.restoreState)):
        if g.value(key) is not None:
            restore(g.value(key))
    if g.value("columns") is not None:
        w.table.columns.restore(g.value("columns"))
    try:
        w.sort_column = int(str(s.value("sortColumn", w.sort_column)))
        w.sort_order = Qt.SortOrder(int(str(s.value("sortOrder", w.sort_order.value))))
    except (TypeError, ValueError):
        pass
    w.table.horizontalHeader().setSortIndicator(w.sort_column, w.sort_order)
    w.sidebar.set_like_tags(_strings(s.value("likeTags")))
    w.sidebar.set_collapsed_sections(_strings(s.value("collapsedSections")))
    kind, _, value = str(s.value("sidebar", "all:")).partition(":")
    if kind in VIEW_KINDS:
        w.view = View(kind, value or None)
        w.sidebar.show_view(w.view)


def save_settings(w: SettingsHost) -> None:
    g, s = w.app_settings, w.settings
    g.setValue("geometry", w.saveGeometry())
    g.setValue("windowState", w.saveState())
    g.setValue("splitter", w.splitter.saveState())
    g.setValue("paneSplitter", w.pane.splitter.saveState())
    g.setValue("columns", w.table.columns.state())
    g.setValue("theme", w.theme)
    s.setValue("sortColumn", w.sort_column)
    s.setValue("sortOrder", w.sort_order.value)
    s.setValue("sidebar", view_key(w.view))
    s.setValue("likeTags", w.sidebar.like_tags())
    s.setValue("collapsedSections", w.sidebar.collapsed_sections())
    g.sync()
    s.sync()


def saved_theme(app: QSettings) -> str:
    return str(app.value("theme", "system"))


def recent_libraries(app: QSettings) -> list[Path]:
    """The libraries opened most recently, newest first (folders that still exist)."""
    return [Path(p) for p in _strings(app.value(RECENT_KEY)) if Path(p).is_dir()]


def remember_library(app: QSettings, root: Path) -> list[Path]:
    """Put `root` first in the recent libraries."""
    root = Path(root).resolve()
    paths = [root] + [p for p in recent_libraries(app) if p.resolve() != root]
    app.setValue(RECENT_KEY, [str(p) for p in paths[:MAX_RECENT]])
    app.sync()
    return paths[:MAX_RECENT]


def _strings(value: object) -> list[str]:
    """A QSettings list: None, one string or a list, depending on the platform's backend."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value] if isinstance(value, list | tuple) else []
