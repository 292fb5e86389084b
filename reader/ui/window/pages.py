"""Pages that take a widget's place, and what the page controllers need of the main window.

Triage swaps the window's whole centre (library ↔ triage), the map swaps the list column
(list ↔ map): both put a stacked widget where the widget was, holding it as the first page
(`page_stack`), and both add a checkable View-menu action (`add_view_action`). The
controllers are given the window as a typing Protocol (MapWindow, TriageWindow) rather than
the MainWindow class, which imports them. `window()` (QWidget's own: the top-level widget,
here the window itself) is what their pages, actions and dialogs are parented to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from PySide6.QtCore import QObject, QSettings, Qt, QUrl
from PySide6.QtGui import QAction, QUndoStack
from PySide6.QtWidgets import (
    QLineEdit,
    QMainWindow,
    QMenu,
    QMenuBar,
    QStackedWidget,
    QStatusBar,
    QWidget,
)

from reader.library import Library, View

from ..change_bridge import ChangeBridge
from ..context import ListScope, OpContext
from ..list.model import PaperModel
from ..list.search_bar import SearchBar
from ..list.table import PaperTable
from ..paper.pane import PaperPane
from ..tasks import TaskRunner
from .import_export import ImportExport


def page_stack(widget: QWidget, name: str) -> QStackedWidget:
    """A stacked widget named `name` put where `widget` is (the window's central widget, or a
    widget in its parent's layout), holding `widget` as its first page."""
    window = widget.window()
    if isinstance(window, QMainWindow) and window.centralWidget() is widget:
        stack = QStackedWidget(window)
        window.takeCentralWidget()
        stack.addWidget(widget)
        window.setCentralWidget(stack)
    else:
        parent = widget.parentWidget()
        layout = parent.layout() if parent is not None else None
        if parent is None or layout is None:
            raise ValueError(f"{widget.objectName() or widget!r} is in no layout: nothing to take the place of")
        stack = QStackedWidget(parent)
        layout.replaceWidget(widget, stack)
        stack.addWidget(widget)
    stack.setObjectName(name)
    return stack


class Window(Protocol):
    """What every page controller uses of the main window."""

    @property
    def library(self) -> Library: ...
    @property
    def runner(self) -> TaskRunner: ...
    @property
    def changes(self) -> ChangeBridge: ...
    @property
    def ops(self) -> OpContext: ...
    @property
    def model(self) -> PaperModel: ...
    @property
    def table(self) -> PaperTable: ...
    @property
    def view(self) -> View: ...
    @property
    def shortcut_actions(self) -> list[QAction]: ...
    @property
    def closing(self) -> bool: ...  # closed: its runner takes no more work
    def window(self) -> QWidget: ...
    def menuBar(self) -> QMenuBar: ...  # Qt's names
    def statusBar(self) -> QStatusBar: ...
    def addAction(self, action: QAction) -> None: ...
    def handle_error(self, exc: BaseException) -> None: ...


class TriageOpener(Protocol):
    """What the map uses of triage: start it on chosen papers, and its View-menu action."""

    @property
    def action(self) -> QAction: ...
    def open(self, ids: Sequence[str] | None = None) -> None: ...


class MapWindow(Window, Protocol):
    """What the map controller uses of the main window."""

    @property
    def searchBar(self) -> SearchBar: ...  # its objectName
    @property
    def transfer(self) -> ImportExport: ...
    @property
    def triage(self) -> TriageOpener: ...
    def load_paper(self, pid: str | None) -> None: ...


class TriageWindow(Window, Protocol):
    """What the triage controller (and its summary) uses of the main window."""

    @property
    def settings(self) -> QSettings: ...
    @property
    def app_settings(self) -> QSettings: ...
    @property
    def undo_stack(self) -> QUndoStack: ...
    @property
    def pane(self) -> PaperPane: ...
    @property
    def searchBox(self) -> QLineEdit: ...  # its objectName
    @property
    def sort_column(self) -> int: ...
    @property
    def sort_order(self) -> Qt.SortOrder: ...
    def centralWidget(self) -> QWidget | None: ...
    def list_scope(self) -> ListScope: ...
    def select_paper(self, pid: str) -> None: ...
    def save_note(self, pid: str, text: str) -> None: ...
    def open_link(self, url: QUrl) -> bool: ...
    def installEventFilter(self, watched: QObject) -> None: ...


def view_menu(window: Window) -> QMenu:
    """The window's View menu (made when missing)."""
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and action.text().replace("&", "") == "View":
            return menu
    return window.menuBar().addMenu("&View")


def add_view_action(window: Window, action: QAction) -> None:
    """A page's action: a window shortcut, listed with the others (Help → Keyboard Shortcuts), in View."""
    window.addAction(action)
    window.shortcut_actions.append(action)
    view_menu(window).addAction(action)
