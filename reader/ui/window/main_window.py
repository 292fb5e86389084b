"""The main window: sidebar, search bar, paper table and paper pane, wired to the Library.

What the user does lives elsewhere: writes with their undo in operations/ (given the narrow
`OpContext`, never the window), notes in notes.py, the search bar in search_bar.py,
import/export in import_export.py, menus in actions.py. Nothing here decides what redraws after
a write: the Library publishes each committed change (and the poll in change_bridge.py those of
other processes); the sidebar, status bar, vault scheduler and triage queue follow them on their
own, and the window follows them for its list and the open paper (`_changes_seen`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, QUrl
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QShowEvent,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QApplication,
    QMainWindow,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from reader.events import OUTSIDE, Change, Changes
from reader.library import Library, View
from reader.listing import Listing
from reader.search.results import SearchResults

from ..change_bridge import ChangeBridge
from ..context import ListScope, OpContext
from ..dialogs.about import show_about
from ..dialogs.common import ask_rebuild
from ..group.sync import GroupSync
from ..list import empty_state
from ..list.model import COL_ADDED, COL_TITLE, NEW, RELISTED, SORT_KEYS, SORTED, PaperModel
from ..list.search_bar import SearchBar
from ..list.sidebar import Sidebar, view_key
from ..list.table import PaperTable
from ..map.controller import MapController
from ..operations import IdsArg, papers, scope, searches, tags
from ..pages import ListPieces, PageContext
from ..paper import notes
from ..paper.edits import connect_edits
from ..paper.note_merge import MERGE_OUTSIDE, NoteMerges
from ..paper.pane import PaperPane
from ..sources import SourcesController
from ..tasks import TaskRunner
from ..triage.controller import TriageController
from ..vault.sync import VaultSync
from ..widgets import theme as themes
from ..widgets.status_bar import StatusBar
from . import libraries, settings, window_size
from .actions import MenuSlots, build_actions
from .import_export import ImportExport, accepts_drag
from .index_sync import IndexSync
from .messages import Messages
from .preferences import show_preferences
from .splitter import SIZES as SPLITTER_SIZES
from .splitter import MainSplitter

RELATED_DELAY_MS = 250


class MainWindow(QMainWindow):
    """Everything the user sees; every write goes through `self.runner` (one writer thread)."""

    # Built in _build_widgets:
    pane: PaperPane
    model: PaperModel
    table: PaperTable
    status: StatusBar
    empty_state: empty_state.EmptyState
    searchBar: SearchBar  # its objectName

    def __init__(self, library: Library, *, theme: str | None = None) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.setWindowTitle("Reader")
        self.library = library
        self.settings = settings.library_settings(library.paths.settings_file)  # this library's
        self.app_settings = settings.global_settings()  # every library's: window, theme, columns
        settings.migrate(self.settings, self.app_settings)
        settings.remember_library(self.app_settings, library.paths.root)
        self.messages = Messages(self, lambda: self.closing, self._notify)
        self.runner = TaskRunner(self)
        self.runner.error.connect(self.handle_error)
        self.undo_stack = QUndoStack(self)
        self.ops = OpContext(library, self.runner, self.undo_stack, self, self.handle_error, self._notify,
                             lambda: self.closing)
        self.note_merges = NoteMerges()  # notes changed under the editor (vault, other processes)
        self.changes = ChangeBridge(library, self.runner, self)  # every committed change, on the GUI thread
        self.view = View()
        self.sort_column = COL_ADDED  # the library's sort (a search has its own: searchBar.search_sort)
        self.sort_order = Qt.SortOrder.DescendingOrder
        self.search_results: SearchResults | None = None
        self.recovered_notes: list[Path] = []
        self._pending_select: str | None = None
        self._pending_import: list[str] = []  # an import's new papers: the list goes to the first listed
        self.closing = False
        self._placed = False  # keep_on_screen ran after the first show
        self.list_generation = 0  # bumped each time the table's ids are replaced (tests wait on it)
        self.theme = theme or settings.saved_theme(self.app_settings)

        self._build_widgets()
        # What every page controller is given (pages.py), never the window itself. Its callables
        # look the window's methods up when called (a test may replace one).
        self.page = ctx = PageContext(self.ops, self.changes, self.settings, self.app_settings, self, [], ListPieces(
            self.model, self.table, self.searchBar, self.pane, self.status, view=lambda: self.view,
            sort=lambda: (self.sort_column, self.sort_order), scope=lambda: self.list_scope(),
            select_paper=lambda pid, scroll: self.select_paper(pid, scroll=scroll),
            load_paper=lambda pid: self.load_paper(pid), save_note=lambda pid, text: self.save_note(pid, text),
            index_ready=lambda: self.index_ready), lambda url: self.open_link(url))
        self.index_sync = IndexSync(self.ops, self.status, self._index_caught_up)
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
        self.apply_theme(self.theme)
        hints = QApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._system_theme_changed)
        # First fill synchronously so the table is usable at once; later fills are async.
        # A "more like these" view ranks the library: too slow for the GUI thread.
        if self.view.ranked:
            self.refresh_list()
        else:
            first = self.searchBar.list_job(self.library, self.view, *self.sort_args(), loaded=0)
            self._list_ready(first(), self.searchBar.listed_key)
        self.sidebar.summaryChanged.connect(self._summary_changed)
        self.sidebar.follow(library, self.runner, self.changes.changed, self.handle_error)
        self.changes.changed.connect(self._changes_seen)
        self.changes.outsideIndexed.connect(self._outside_indexed)
        QTimer.singleShot(0, self.index_sync.start)

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

    @property
    def relevanceAction(self) -> QAction:
        return self.menus.relevance

    @property
    def index_ready(self) -> bool:
        sync = getattr(self, "index_sync", None)  # a list request can come while the window is built
        return sync is not None and sync.ready

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

    # ------------------------------------------------------------------ construction
    def _build_widgets(self) -> None:
        self.sidebar = Sidebar(self)
        self.sidebar.viewSelected.connect(self.set_view)
        self.sidebar.searchSelected.connect(self._saved_search_selected)
        ops = self.ops
        self.sidebar.renameTagRequested.connect(lambda old: self._tag_renamed(old, tags.ask_rename_tag(ops, old)))
        self.sidebar.mergeTagRequested.connect(
            lambda old: self._tag_renamed(old, tags.ask_merge_tag(ops, old, self.sidebar.tag_names())))
        self.sidebar.deleteTagRequested.connect(self.delete_tag)
        self.sidebar.renameSearchRequested.connect(lambda s: searches.ask_rename_search(ops, s))
        self.sidebar.deleteSearchRequested.connect(lambda s: searches.delete_saved_search(ops, s["id"]))
        self.sidebar.saveSearchRequested.connect(lambda: searches.save_current_search(ops, self.searchBar.query()))

        self.searchBar = SearchBar(self, self)
        self.searchBox = self.searchBar.searchBox
        self.searchBar.searchRequested.connect(self.refresh_list)
        self.searchBar.submitted.connect(self._search_submitted)
        self._related_timer = QTimer(self)
        self._related_timer.setSingleShot(True)
        self._related_timer.setInterval(RELATED_DELAY_MS)
        self._related_timer.timeout.connect(self._related_due)

        self.model = PaperModel(self.library, self)
        self.model.run_read = lambda job, done, failed: self.runner.read("page", job, done, failed)
        self.model.sortRequested.connect(self.searchBar.sort_requested)
        self.table = PaperTable(self.model, self, self.sort_column, self.sort_order)
        self.table.selectionModel().currentRowChanged.connect(self._current_row_changed)
        self.empty_state = empty_state.install(self)

        self.pane = pane = PaperPane(self)
        self.table.doubleClicked.connect(lambda _: pane.titleEdit.setFocus())
        connect_edits(pane, ops, self.bulk_ids)
        pane.noteSaveRequested.connect(self.save_note)
        pane.relatedActivated.connect(self.select_paper)
        pane.linkActivated.connect(self.open_link)

        middle = QWidget(self)
        middle_layout = QVBoxLayout(middle)
        middle_layout.setContentsMargins(0, 0, 0, 0)
        middle_layout.setSpacing(2)
        middle_layout.addWidget(self.searchBar)
        middle_layout.addWidget(self.table, 1)

        self.splitter = MainSplitter(self)  # how a narrow window shares its columns
        for i, (widget, stretch) in enumerate(((self.sidebar, 0), (middle, 3), (self.pane, 2))):
            self.splitter.addWidget(widget)
            self.splitter.setStretchFactor(i, stretch)
        self.splitter.setSizes(list(SPLITTER_SIZES))
        self.setCentralWidget(self.splitter)
        self.status = StatusBar(self, self.runner)
        self.setStatusBar(self.status)

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
        self.setStyleSheet(themes.line_edit_css(dark))  # dialogs parented here follow it too
        self.pane.dark = dark
        self.pane.render_abstract()
        self.pane.render_links()
        if getattr(self, "map", None) is not None:
            self.map.set_dark(dark)

    def _system_theme_changed(self, *_: object) -> None:
        if self.theme == "system":  # follow the system while the theme is "system"
            self.apply_theme("system")

    # ------------------------------------------------------------------ list
    def sort_args(self) -> tuple[str, bool]:
        return SORT_KEYS.get(self.sort_column, "added"), self.sort_order == Qt.SortOrder.DescendingOrder

    def refresh_list(self) -> None:
        """Re-query the ids (view, sort, search) off the GUI thread; the newest request wins."""
        bar = self.searchBar
        bar.stop_timer()
        bar.set_searching(bool(bar.query()) or self.view.ranked)
        job = bar.list_job(self.library, self.view, *self.sort_args(), loaded=self.model.rowCount())
        key = bar.listed_key
        self.runner.read("list", job, lambda found: self._list_ready(found, key), self.handle_error)

    def _list_ready(self, found: Listing, key: tuple | None = None) -> None:
        if key is not None and key != self.searchBar.listed_key:
            # A listing asked for before the newest one (at start-up the header's sort indicator
            # asked for the whole library before the saved view was restored): its late result
            # showed every paper under a sidebar that said Starred.
            return
        self.search_results = results = found.results
        terms = list(results.terms) if results else []
        current_id, current_row, selected = self.current_id(), self.table.currentIndex().row(), self.selected_ids()
        self.list_generation += 1
        change = self.model.set_listing(found, key)
        if change == NEW:  # a new query, view or collection: its first hit, at the top
            self.table.scrollToTop()
            self._reselect([], None, 0)
        elif change == SORTED:  # the selected paper stays selected (and in view) if still listed
            self._reselect(selected, current_id, 0)
        elif change == RELISTED:  # after a write: the same paper, else the row where it was
            self._reselect(selected, current_id, current_row)
        self.searchBar.show_state(found.query, results, found.total)
        empty_state.update(self, self.empty_state, found.query)
        if terms != self.pane.terms:
            self.pane.terms = terms
            self.pane.render_abstract()
        if self.model.rowCount() and self.current_id() is None:
            self._reselect([], None, 0)
        if self._pending_import and not self._go_to_imported() and change == NEW:
            self._pending_import = []  # another list now: the import's papers are not looked for

    def show_imported(self, ids: list[str]) -> None:
        """After an import: the first of its new papers the list shows is selected and scrolled to
        (the view stayed on the paper selected before, at the end of 3,739 rows). The list may not
        hold them yet (its re-list follows the import's change): then at the next listing."""
        self._pending_import = list(ids)
        self._go_to_imported()

    def _go_to_imported(self) -> bool:
        found = bool(self._pending_import) and self.table.go_to_first_of(set(self._pending_import))
        if found:
            self._pending_import = []
        return found

    def _reselect(self, selected: list[str], current_id: str | None, current_row: int) -> None:
        target, self._pending_select = self._pending_select or current_id, None
        index = self.table.reselect(target, selected, current_row)
        if index is None:
            self.pane.set_paper(None)
        else:
            self._current_row_changed(index, QModelIndex())

    def _search_submitted(self) -> None:
        self.refresh_list()
        self.focus_table()

    def set_view(self, view: View) -> None:
        self.view = view
        self.sidebar.current_key = view_key(view)
        self.refresh_list()

    def _saved_search_selected(self, search: dict) -> None:
        self.view = View()
        self.searchBox.setText(search["query"])
        self.refresh_list()

    def refresh_sidebar(self) -> None:
        self.sidebar.refresh()

    def _summary_changed(self, counts: Any, tag_names: list[str]) -> None:
        self.counts = counts  # the last library counts (the rebuild question names the total)
        self.status.show_counts(counts)
        self.pane.tagEditor.set_known_tags(tag_names)

    def _changes_seen(self, changes: Changes) -> None:
        """Something was stored (here or by another process): the rows, the open paper and the list.

        The list keeps its selection and the rows fetched so far (see _list_ready); the pane keeps
        a note being typed, and an outside change to that note is merged with it when it is saved."""
        if self.closing or changes.kinds == {Change.INDEX}:
            return
        outside = changes.origin == OUTSIDE or Change.OUTSIDE in changes.kinds
        self.model.invalidate()
        pid, shown = self.pane.paper_id, self.pane.paper
        if pid and shown is not None and (not changes.ids or pid in changes.ids):
            paper = self.library.paper(pid)
            if paper is not None:
                if outside and paper.note != shown.note and pid in self.pane.unsaved_notes():
                    self.note_merges.changed_under_editor(pid, shown.note, paper.note, MERGE_OUTSIDE)
                self.pane.set_paper(paper)  # the same paper: what is typed stays
        self.refresh_list()

    def _outside_indexed(self) -> None:
        if self.searchBar.query() or self.view.ranked:
            self.refresh_list()  # the index now holds what the other process changed

    def _index_caught_up(self) -> None:
        if self.searchBar.query():
            self.refresh_list()
        if self.pane.paper_id:
            self.load_related(self.pane.paper_id)

    # ------------------------------------------------------------------ what operations act on
    def list_scope(self) -> ListScope:
        """The list as the user sees it now: what an action on "the selection" covers."""
        bar = self.searchBar
        return ListScope(self.selected_ids(), self.pane.paper, list(self.model.ids()), bar.query(), self.view,
                         bar.listed_as_you_type, self.search_results)

    def bulk_ids(self) -> IdsArg:
        return scope.bulk_ids(self.library, self.list_scope())

    def save_note(self, pid: str, text: str) -> None:
        notes.save_note(self.ops, self.pane, self.note_merges, pid, text)

    def delete_pressed(self) -> None:
        """Delete: the selected highlight when the highlight list has focus, else the selected papers."""
        if self.pane.highlightList.hasFocus():
            self.pane.remove_selected_highlight()
            return
        self.pane.flush_note()
        papers.delete_papers(self.ops, self.list_scope())

    def rename_tag(self, old: str, new: str) -> None:
        tags.rename_tag(self.ops, old, new)
        self._tag_renamed(old, new)

    def _tag_renamed(self, old: str, new: str | None) -> None:
        if new is not None and self.view == View("tag", old):
            self.set_view(View("tag", new))  # the list follows its tag

    def delete_tag(self, name: str) -> None:
        tags.delete_tag(self.ops, name)
        if self.view == View("tag", name):
            self.sidebar.select_view(View())

    def _notify(self, text: str, ms: int) -> None:
        self.statusBar().showMessage(text, ms)

    # ------------------------------------------------------------------ selection
    def current_id(self) -> str | None:
        return self.table.current_id()

    def selected_ids(self) -> list[str]:
        return self.table.selected_ids()

    def divide_among_group(self) -> None:
        """Edit → Divide among the group: the map's or the list's selection (two or more papers),
        else the whole list, shared out by topic (reader.group.divide)."""
        sc = self.list_scope()
        chosen = self.map.selected_ids() if self.map.active else sc.selected
        ids: IdsArg = chosen if len(chosen) > 1 else scope.all_matching_ids(self.library, sc)
        self.group_sync.divide(ids, self.searchBar.query())

    def _current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        pid = self.model.id_at(current.row()) if current.isValid() else None
        if pid != self.pane.paper_id:
            self.load_paper(pid)

    def load_paper(self, pid: str | None) -> None:
        paper = self.library.paper(pid) if pid else None
        self.pane.set_paper(paper)
        if paper:
            # Related papers wait until J/K stops: a Whoosh query per step would compete for the GIL.
            self._related_timer.start()

    def _related_due(self) -> None:
        if self.pane.paper_id:
            self.load_related(self.pane.paper_id)

    def load_related(self, pid: str) -> None:
        lib = self.library

        def compute() -> list[tuple[str, str]]:
            if not self.index_ready:
                return []
            pairs = lib.related(pid, limit=10)
            rows = lib.rows([p for p, _ in pairs])
            return [(p, rows[p].title) for p, _ in pairs if p in rows]

        def done(items: list[tuple[str, str]]) -> None:
            if self.pane.paper_id == pid:
                self.pane.set_related(items)

        self.runner.read("related", compute, done, self.handle_error)

    def move_current(self, step: int) -> None:
        """J/K: the next or previous paper of the list, or of the map's selection (MapController.step)."""
        if getattr(self, "map", None) is None or not self.map.step(step):
            self.table.move_current(step)

    def select_paper(self, pid: str, *, scroll: bool = True) -> None:
        """Select a paper; if the current list hides it, show the whole library first. Without
        `scroll` the list stays where it is (the paper current, shown in the pane)."""
        row = self.model.row_of(pid)
        if row >= 0 and not scroll:
            index = self.model.index(row, COL_TITLE)
            flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            self.table.selectionModel().setCurrentIndex(index, flags)
            return
        if row >= 0:
            self.table.go_to_row(row)
            return
        self._pending_select = pid
        self.view = View()
        self.sidebar.show_view(self.view)
        self.searchBar.clear_silently()
        self.refresh_list()

    # ------------------------------------------------------------------ focus
    def focus_search(self) -> None:
        self.searchBox.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.searchBox.selectAll()

    def focus_table(self) -> None:
        """Focus the list, or the map when it is shown in the list's place (Esc, Enter in the search)."""
        self.pane.flush_note()
        shown = self.map.stack.currentWidget() if getattr(self, "map", None) is not None else None
        (shown or self.table).setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_tag_input(self) -> None:
        if self.pane.paper_id:
            self.pane.tagEditor.input.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_note(self) -> None:
        self.pane.focus_note()

    # ------------------------------------------------------------------ drag and drop
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        accepts_drag(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.transfer.drop(event)

    # ------------------------------------------------------------------ messages
    def handle_error(self, exc: BaseException) -> None:
        self.messages.error(exc)

    def show_message(self, title: str, text: str, icon: QMessageBox.Icon, name: str) -> QMessageBox | None:
        return self.messages.show(title, text, icon, name)

    def open_link(self, url: QUrl) -> bool:
        """Open http/https links in the system browser; ignore every other scheme."""
        if url.scheme().lower() not in ("http", "https"):
            return False
        return QDesktopServices.openUrl(url)


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
        self.messages.close_all()
        if recovered:
            self.recovered_notes = recovered
            notes.tell_recovered(recovered)
        event.accept()
