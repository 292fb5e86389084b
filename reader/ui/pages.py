"""Pages that take a widget's place, and the one frozen context every page controller is built from.

Triage swaps the window's whole centre (library ↔ triage), the map swaps the list column
(list ↔ map): both put a stacked widget where the widget was, holding it as the first page
(`page_stack`), and both add a checkable View-menu action (`add_view_action`).

The window builds one `PageContext` once its widgets exist and hands it to each page controller
(map, triage, sources, vault, group, import/export): the operations context (library, runner,
undo stack, errors, status line), the change bridge, the two settings files, the window as the
plain QMainWindow its pages, actions and dialogs are parented to, its shortcut list, and the
list's pieces (`ListPieces`: widgets, and the few callables a page asks of the list). No
controller receives the MainWindow or a Protocol of it; what one page needs of another (the map
opens triage) is passed to that page's constructor beside the context."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QSettings, Qt, QUrl
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu, QStackedWidget, QWidget

from reader.library import Library, View

from .change_bridge import ChangeBridge
from .context import ListScope, OpContext
from .list.model import PaperModel
from .list.search_bar import SearchBar
from .list.table import PaperTable
from .paper.pane import PaperPane
from .tasks import TaskRunner
from .widgets.status_bar import StatusBar


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


@dataclass(frozen=True)
class ListPieces:
    """The library list as pages see it: its widgets, and what they ask of it (the window's)."""

    model: PaperModel
    table: PaperTable
    search_bar: SearchBar
    pane: PaperPane
    status: StatusBar
    view: Callable[[], View]  # the sidebar's view the list shows
    sort: Callable[[], tuple[int, Qt.SortOrder]]  # the library's sort (column, order)
    scope: Callable[[], ListScope]  # the selection, the shown paper, the query
    select_paper: Callable[[str, bool], None]  # (paper id, scroll): the whole library if hidden
    load_paper: Callable[[str | None], None]  # show a paper in the pane (the list's selection unchanged)
    paper_on: Callable[[], str | None]  # the paper the pane shows or is reading (pane_reads.current)
    save_note: Callable[[str, str], None]  # (paper id, text): written, merged with outside changes
    index_ready: Callable[[], bool]  # the search index is in step with the store


@dataclass(frozen=True)
class PageContext:
    """What a page controller is given: built once by the window, never the window itself."""

    ops: OpContext
    changes: ChangeBridge
    settings: QSettings  # this library's
    app_settings: QSettings  # every library's (preferences)
    window: QMainWindow  # pages, actions and dialogs are parented to it; its menu bar; its Close event
    shortcuts: list[QAction]  # the window's shortcuts (Help → Keyboard Shortcuts lists them)
    list: ListPieces
    open_link: Callable[[QUrl], bool]  # http(s) in the system browser

    @property
    def library(self) -> Library:
        return self.ops.library

    @property
    def runner(self) -> TaskRunner:
        return self.ops.runner

    def on_error(self, exc: BaseException) -> None:
        """A failed job: a message for the user's errors, else the crash reporter."""
        self.ops.on_error(exc)

    def notify(self, text: str, ms: int) -> None:
        """A status-bar line for `ms` milliseconds."""
        self.ops.notify(text, ms)

    @property
    def closing(self) -> bool:
        """The window is closing: its runner takes no more work."""
        return self.ops.is_closing()


class TriageOpener(Protocol):
    """What the map uses of triage: start it on chosen papers, and its View-menu action."""

    @property
    def action(self) -> QAction: ...
    def open(self, ids: Sequence[str] | None = None) -> None: ...


def menu_named(ctx: PageContext, title: str) -> QMenu:
    """The window's menu called `title` (e.g. "&View"; made when missing)."""
    bar = ctx.window.menuBar()
    for action in bar.actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and action.text().replace("&", "") == title.replace("&", ""):
            return menu
    return bar.addMenu(title)


def view_menu(ctx: PageContext) -> QMenu:
    """The window's View menu (made when missing)."""
    return menu_named(ctx, "&View")


def add_window_action(ctx: PageContext, action: QAction, *, listed: bool = True) -> None:
    """An action of the window (its shortcut works anywhere in it), listed with the shortcuts."""
    ctx.window.addAction(action)
    if listed:
        ctx.shortcuts.append(action)


def add_view_action(ctx: PageContext, action: QAction) -> None:
    """A page's action: a window shortcut, listed with the others (Help → Keyboard Shortcuts), in View."""
    add_window_action(ctx, action)
    view_menu(ctx).addAction(action)
