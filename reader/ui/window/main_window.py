"""The main window: the library screen (library_screen.py) with the pages assembled around it.

It builds each page controller from the one `PageContext` (pages.py): triage in the centre,
the map in the list's place, the fetching actions, the vault and reading-group syncs, imports
and exports. It fills the menu bar (actions.py), restores the remembered settings and geometry
(settings.py, window_size.py), applies the theme, and on closing saves what is typed, waits
for the writer and writes the settings. What each page does lives in its package."""

from __future__ import annotations

import sys
from typing import Any

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QShowEvent,
)
from PySide6.QtWidgets import QApplication, QMessageBox

from reader.library import Library

from ..dialogs.about import show_about
from ..dialogs.common import ask_rebuild
from ..group.sync import GroupSync
from ..idle_gc import IdleCollector
from ..map.controller import MapController
from ..operations import IdsArg, papers, scope, searches
from ..pages import ListPieces, PageContext
from ..paper import notes
from ..sources import SourcesController
from ..triage.controller import TriageController
from ..vault.sync import VaultSync
from ..widgets import theme as themes
from . import libraries, settings, window_size
from .actions import MenuSlots, build_actions
from .import_export import ImportExport, accepts_drag
from .library_screen import LibraryScreen
from .preferences import show_preferences


class MainWindow(LibraryScreen):
    """Everything the user sees: the library screen (library_screen.py), and the pages, menus,
    theme and closing assembled around it."""

    def __init__(self, library: Library, *, theme: str | None = None) -> None:
        super().__init__(library)  # the shared state and the list's widgets
        self.setObjectName("mainWindow")
        self.setWindowTitle("Reader")
        self._placed = False  # keep_on_screen ran after the first show
        self.theme = theme or settings.saved_theme(self.app_settings)
        self.pane.linkActivated.connect(self.open_link)
        # What every page controller is given (pages.py), never the window itself. Its callables
        # look the window's methods up when called (a test may replace one).
        self.page = ctx = PageContext(self.ops, self.changes, self.settings, self.app_settings, self, [], ListPieces(
            self.model, self.table, self.searchBar, self.pane, self.status, view=lambda: self.view,
            sort=lambda: (self.sort_column, self.sort_order), scope=lambda: self.list_scope(),
            select_paper=lambda pid, scroll: self.select_paper(pid, scroll=scroll),
            load_paper=lambda pid: self.load_paper(pid), paper_on=lambda: self.reads.current,
            save_note=lambda pid, text: self.save_note(pid, text),
            index_ready=lambda: self.index_ready), lambda url: self.open_link(url))
        # Live sync with a Markdown vault (File → Markdown vault…)
        self.vault_sync = VaultSync(ctx, self.note_merges)
        self.open_vault = self.vault_sync.open_folder  # triage's summary offers it
        # The reading group (File → Reading group…): syncs on a timer, after decisions, on folder changes.
        self.group_sync = GroupSync(ctx)
        self.pane.group_marks = self.group_sync.marks_of
        self.transfer = ImportExport(ctx, self.index_sync, self.show_message, self.sidebar.tag_names)
        self.transfer.imported.connect(self.show_imported)
        self.empty_state.sampleRequested.connect(self.transfer.import_sample)
        self.menus = build_actions(self, self._menu_slots(), self.undo_stack, ctx.shortcuts)
        settings.restore_settings(self)
        window_size.restore(self, self.app_settings)  # on the screen, as last on this screen
        self.triage = TriageController(ctx, open_vault=self.open_vault)  # View → Triage, in the centre
        self.map = MapController(ctx, self.triage, self.transfer.ask_export)  # View → Map, in place of the list
        self.sources = SourcesController(ctx)  # Edit → Add by identifier…, the arXiv feeds
        self.setAcceptDrops(True)
        # Full cycle collections at idle, on this thread (idle_gc.py), while the window is open.
        self.idle_gc = IdleCollector(self.input_watch, self)
        self.idle_gc.install()
        self.apply_theme(self.theme)
        hints = QApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._system_theme_changed)
        self.start_list()

    # The menus' actions, and what the window kept of them (tests and triage use these names).
    @property
    def shortcut_actions(self) -> list[QAction]:
        return self.menus.shortcut_actions

    @property
    def theme_actions(self) -> dict[str, QAction]:
        return self.menus.theme_actions

    @property
    def undoAction(self) -> QAction:  # Qt-style names, as the actions' object names
        return self.menus.undo

    @property
    def redoAction(self) -> QAction:
        return self.menus.redo

    # Import/export results (the smoke test and tests read them here).
    @property
    def last_import_summaries(self) -> list:
        return self.transfer.last_import_summaries

    @property
    def last_import_text(self) -> str:
        return self.transfer.last_import_text

    @property
    def last_export(self) -> Any:
        return self.transfer.last_export

    def _menu_slots(self) -> MenuSlots:
        pane, ops = self.pane, self.ops
        return MenuSlots(
            import_=self.transfer.ask_import, export=self.transfer.ask_export, vault=self.vault_sync.ask,
            reindex=self.ask_rebuild_index, copy_markdown=self.transfer.copy_markdown,
            copy_bibtex=self.transfer.copy_bibtex, delete=self.delete_pressed,
            save_search=lambda: searches.save_current_search(ops, self.searchBar.query()),
            toggle_star=lambda: papers.toggle_star(ops, self.list_scope()),
            toggle_read=lambda: papers.toggle_read(ops, self.list_scope()),
            add_tag=self.focus_tag_input, edit_note=self.focus_note,
            highlight=lambda: pane.request_highlight("yellow"), move=self.move_current, find=self.focus_search,
            back=self.focus_table, sort_by_relevance=self.searchBar.sort_by_relevance, apply_theme=self.apply_theme,
            about=lambda: show_about(self, self.library.paths.root), preferences=lambda: show_preferences(self, self),
            library_menu=lambda menu, before: libraries.install(self, menu, before, type(self)),
            add_venue=lambda: self.sources.ask_add_venue(), group=self.group_sync.ask, divide=self.divide_among_group)

    def ask_rebuild_index(self) -> QMessageBox:
        """File → Rebuild search index: asked first, naming the total as last counted."""
        counts = getattr(self, "counts", None)  # none until the sidebar's first count
        total = counts.total if counts is not None else self.model.total()
        return ask_rebuild(self, total, lambda: self.index_sync.reindex())

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._placed:
            self._placed = True
            QTimer.singleShot(0, self._first_shown)

    def _first_shown(self) -> None:
        """Once shown: the frame is known, pull it in if it reaches past the screen; and take the
        keyboard (without a window manager the window was never active, so no shortcut worked:
        Ctrl+O did nothing while File → Open library… did), the list focused."""
        if self.closing:
            return
        window_size.keep_on_screen(self)
        self.activateWindow()
        if QApplication.focusWidget() is None:
            self.table.setFocus(Qt.FocusReason.ActiveWindowFocusReason)

    def apply_theme(self, theme: str) -> None:
        if theme not in themes.THEMES:
            theme = "system"
        self.theme = theme
        self.theme_actions[theme].setChecked(True)
        app = QApplication.instance()
        dark = themes.apply_theme(app, theme) if isinstance(app, QApplication) else False
        self.setStyleSheet(themes.window_css(dark))  # dialogs parented here follow it too
        self.pane.dark = dark
        self.pane.render_abstract()
        self.pane.render_links()
        if getattr(self, "map", None) is not None:
            self.map.set_dark(dark)

    def _system_theme_changed(self, *_: object) -> None:
        if self.theme == "system":  # follow the system while the theme is "system"
            self.apply_theme("system")

    def divide_among_group(self) -> None:
        """Edit → Divide among the group: the map's or the list's selection (two or more papers),
        else the whole list, shared out by topic (reader.group.divide)."""
        sc = self.list_scope()
        chosen = self.map.selected_ids() if self.map.active else sc.selected
        ids: IdsArg = chosen if len(chosen) > 1 else scope.all_matching_ids(self.library, sc)
        self.group_sync.divide(ids, self.searchBar.query())

    # ------------------------------------------------------------------ the map in the list's place
    def move_current(self, step: int) -> None:
        """J/K: the next or previous paper of the list, or of the map's selection (MapController.step)."""
        if getattr(self, "map", None) is None or not self.map.step(step):
            self.table.move_current(step)

    def focus_table(self) -> None:
        """Focus the list, or the map when it is shown in the list's place (Esc, Enter in the search)."""
        self.pane.flush_note()
        shown = self.map.stack.currentWidget() if getattr(self, "map", None) is not None else None
        (shown or self.table).setFocus(Qt.FocusReason.ShortcutFocusReason)

    def open_link(self, url: QUrl) -> bool:
        """Open http/https links in the system browser; ignore every other scheme."""
        if url.scheme().lower() not in ("http", "https"):
            return False
        return QDesktopServices.openUrl(url)

    # ------------------------------------------------------------------ drag and drop
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        accepts_drag(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.transfer.drop(event)

    # ------------------------------------------------------------------ closing
    def flush(self, timeout: float = 30.0) -> None:
        """Save what is being typed and wait for every queued write (blocks the GUI thread)."""
        self.pane.commit_edits()
        self.runner.drain(timeout)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.closing:
            event.accept()
            return
        self.pane.commit_title()  # notes: save_notes_on_quit below, synchronously
        for task in list(self.status.tasks):
            task.cancel()  # an import/sync in progress stops between batches
        try:
            self.runner.drain(60.0)
        except Exception as exc:  # never keep the user from quitting
            sys.stderr.write(f"reader: waiting for pending writes failed: {exc}\n")
        # The results of those writes reach the pane only through the event loop, which is
        # ending: write every note not confirmed stored once more, synchronously.
        recovered = notes.save_notes_on_quit(self.ops, self.pane, self.note_merges)
        self.closing = True
        self.changes.close()
        settings.save_settings(self)
        self.runner.shutdown(wait=True)
        self.idle_gc.uninstall()
        self.messages.close_all()
        if recovered:
            self.recovered_notes = recovered
            notes.tell_recovered(recovered)
        event.accept()
