"""The library screen: sidebar, search bar, paper table and paper pane, wired to the Library.

`LibraryScreen` is the main window's base (window/main_window.py adds the pages, menus, theme and
closing, and gives the page controllers their `PageContext`): it owns the state every part of the
window shares (the library, its two settings files, the task runner, the undo stack, the change
bridge, the `OpContext` of operations), builds the list's widgets, and follows the Library for
its list and the open paper. What the user does lives elsewhere: writes with their undo in
operations/ (given the narrow `OpContext`, never the window), notes in paper/notes.py, the search
bar in list/search_bar.py. Nothing here decides what redraws after a write: the Library publishes
each committed change (and the poll in change_bridge.py those of other processes); the sidebar,
status bar, vault scheduler and triage queue follow them on their own, and the list and the
open paper follow them here (`_changes_seen`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QUndoStack
from PySide6.QtWidgets import QMainWindow, QMessageBox, QVBoxLayout, QWidget

from reader.events import OUTSIDE, Change, Changes
from reader.library import Library, View
from reader.listing import Listing
from reader.models import ViewKind
from reader.search.results import SearchResults

from ..change_bridge import ChangeBridge
from ..context import ListScope, OpContext
from ..list import empty_state
from ..list.model import (
    COL_ADDED,
    COL_TITLE,
    NEW,
    RELISTED,
    SORT_KEYS,
    SORTED,
    PaperModel,
    PreparedListing,
    RowCache,
    listing_change,
    prepare_listing,
)
from ..list.search_bar import FIRST_PAGE, SearchBar
from ..list.sidebar import Sidebar, view_key
from ..list.table import PaperTable
from ..operations import IdsArg, papers, scope, searches, tags
from ..paper import notes
from ..paper.abstract_html import ReadAhead
from ..paper.edits import connect_edits
from ..paper.note_merge import MERGE_OUTSIDE, NoteMerges
from ..paper.pane import PaperPane
from ..tasks import TaskRunner
from ..widgets.status_bar import StatusBar
from . import settings
from .actions import Menus
from .index_sync import IndexSync
from .listing_work import ListingWork, screen_pages
from .messages import Messages
from .pane_reads import PaneReads
from .splitter import SIZES as SPLITTER_SIZES
from .splitter import MainSplitter

RELATED_DELAY_MS = 250
TERMS_DELAY_MS = 120
MAX_WANTED = 1000  # selected papers whose rows the list worker finds (more: looked up here)


class LibraryScreen(QMainWindow):
    """The list and the paper, and what the window's parts share; every write goes through
    `self.runner` (one writer thread)."""

    # Built in _build_widgets:
    pane: PaperPane
    model: PaperModel
    table: PaperTable
    status: StatusBar
    empty_state: empty_state.EmptyState
    searchBar: SearchBar  # its objectName
    menus: Menus  # the menu bar's actions (the window fills it: actions.py)

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.library = library
        self.settings = settings.library_settings(library.paths.settings_file)  # this library's
        self.app_settings = settings.global_settings()  # every library's: window, theme, columns
        settings.migrate(self.settings, self.app_settings)
        settings.remember_library(self.app_settings, library.paths.root)
        self.messages = Messages(self, lambda: self.closing, self._notify)
        self.runner = TaskRunner(self)
        # The index's warm-up (hooked by IndexSync.start) and the day's check and backup (a
        # thread Library.open started) wait while the user steps or types.
        self.input_watch = self.runner.input_watch
        library.yield_housekeeping_to(self.input_watch.wait_for_idle)
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
        self.list_generation = 0  # bumped each time the table's ids are replaced (tests wait on it)
        self._pending_listing: tuple[Listing | PreparedListing, tuple | None, int] | None = None
        self.listings_dropped = 0  # listings replaced by a newer one before they were shown
        self._lists_asked = 0  # listings requested (a worker drops its own once a newer one is)
        # While a page has taken the library page's place (triage), a stored change does not
        # re-list the hidden list (at 100k: 0.2 s of a worker's GIL per decision, beside the
        # card being shown); it is re-listed once the page is back, and a paper to select then
        # (triage's last card) is selected in that fresh list.
        self._list_stale = False
        self._relist_asked = 0  # the listing that brings a stale list up to date
        self._relist_again = False  # changes stored while that listing was read: one more for them all
        self._select_after_relist: tuple[str, bool] | None = None
        self.reads = PaneReads(self)  # the papers the pane shows, read on workers
        self.list_rows = RowCache()  # rows the list's worker read, kept until a change is seen
        self._build_widgets()
        self.splitter.installEventFilter(self)  # the library page shown again: a stale list re-lists
        self.index_sync = IndexSync(self.ops, self.status, self._index_caught_up)

    def start_list(self) -> None:
        """Once the pages are in (the map follows the list): the first listing, then the list
        follows the sidebar, the Library's changes and the index."""
        # First fill synchronously so the table is usable at once; later fills are async.
        # A "more like these" view ranks the library: too slow for the GUI thread. A plain
        # view's first page only (200 ids: 1 ms), the whole list after it from a worker (at
        # 100k its 0.3 s of SQLite held the first paint back).
        self.reads.at_start = True
        try:
            self._first_fill()
        finally:
            self.reads.at_start = False
        self.sidebar.summaryChanged.connect(self._summary_changed)
        self.sidebar.follow(self.library, self.runner, self.changes.changed, self.handle_error)
        self.changes.changed.connect(self._changes_seen)
        self.changes.outsideIndexed.connect(self._outside_indexed)
        QTimer.singleShot(0, self.index_sync.start)

    def _first_fill(self) -> None:
        if self.view.ranked:
            self.refresh_list()
        elif self.searchBar.query() or self.view.kind == ViewKind.NEW:
            first = self.searchBar.list_job(self.library, self.view, *self.sort_args(), loaded=0)
            self._apply_listing(first(), self.searchBar.listed_key)
        else:
            whole = self.searchBar.list_job(self.library, self.view, *self.sort_args(), loaded=0)
            key = self.searchBar.listed_key
            page = self.library.paper_ids(self.view, *self.sort_args(), limit=FIRST_PAGE)
            self._apply_listing(Listing("", None, page), key)
            if len(page) >= FIRST_PAGE:
                lib = self.library
                self.runner.read("list", lambda: prepare_listing(lib, whole()),
                                 lambda found: self._list_ready(found, key), self.handle_error)

    @property
    def relevanceAction(self) -> QAction:  # the search bar enables it while a search is listed
        return self.menus.relevance

    @property
    def index_ready(self) -> bool:
        sync = getattr(self, "index_sync", None)  # a list request can come while the window is built
        return sync is not None and sync.ready

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
        self.searchBox.textChanged.connect(lambda _text: self.input_watch.touch())
        self.searchBar.submitted.connect(self._search_submitted)
        self._related_timer = QTimer(self)
        self._related_timer.setSingleShot(True)
        self._related_timer.setInterval(RELATED_DELAY_MS)
        self._related_timer.timeout.connect(self._related_due)
        # The abstract's highlights follow the query's words once the keys pause (a re-render
        # per keystroke held the table's update back).
        self._terms_timer = QTimer(self)
        self._terms_timer.setSingleShot(True)
        self._terms_timer.setInterval(TERMS_DELAY_MS)
        self._terms_timer.timeout.connect(lambda: self.pane.render_abstract())

        self.model = PaperModel(self.library, self)
        self.model.run_read = lambda job, done, failed: self.runner.read("page", job, done, failed)
        self.model.run_rows = lambda job, done, failed: self.runner.read("rows", job, done, failed)
        self.model.sortRequested.connect(self.searchBar.sort_requested)
        self.table = PaperTable(self.model, self, self.sort_column, self.sort_order)
        self.table.selectionModel().currentRowChanged.connect(self._current_row_changed)
        self.empty_state = empty_state.install(self)

        self.pane = pane = PaperPane(self)
        self.table.doubleClicked.connect(lambda _: pane.titleEdit.setFocus())
        connect_edits(pane, ops, self.bulk_ids)
        pane.noteSaveRequested.connect(self.save_note)
        pane.relatedActivated.connect(self.select_paper)

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

    # ------------------------------------------------------------------ list
    def sort_args(self) -> tuple[str, bool]:
        return SORT_KEYS.get(self.sort_column, "added"), self.sort_order == Qt.SortOrder.DescendingOrder

    def refresh_list(self) -> None:
        """Re-query the ids (view, sort, search) off the GUI thread; the newest request wins."""
        bar = self.searchBar
        bar.stop_timer()
        bar.set_searching(bool(bar.query()) or self.view.ranked)
        job = bar.list_job(self.library, self.view, *self.sort_args(), loaded=self.model.rowCount())
        key, lib = bar.listed_key, self.library
        # The papers to keep selected: their rows (and the current one's page) are found by the
        # worker, so the GUI thread's part of a listing does not grow with its length.
        built = hasattr(self, "table")  # the header's sort indicator asks while the table is built
        wanted = [self.current_id(), *self.selected_ids()[:MAX_WANTED]] if built else []
        self._lists_asked = asked = self._lists_asked + 1
        # A new list (another query or view) opens its first hit: read and rendered here too.
        first = built and listing_change(self.model.listing_key, key) == NEW
        # Catching up after triage: the rows on screen are read with the list (see screen_pages).
        catching_up = built and (self._list_stale or self._relist_asked) and self.model.rowCount()
        work = ListingWork(
            lib, job, lambda: asked == self._lists_asked, wanted, self.list_rows, self.reads.epoch,
            screen_pages(self.table, self.model.rowCount()) if catching_up else [], first,
            self._pending_select, self.reads.current if built else None, self.pane.dark if built else False,
            self.pane.abstracts if built else None, self.pane.group_marks if built else None)

        def ready(out: tuple[PreparedListing, ReadAhead | None] | None) -> None:
            if out is not None:
                if out[1] is not None:
                    self.reads.took(out[1], work.epoch, keep=False)
                self._list_ready(out[0], key, asked)

        self.runner.read("list", work, ready, self._list_failed)

    def _list_failed(self, exc: BaseException) -> None:
        self._relist_asked, self._select_after_relist = 0, None  # selections are not held any longer
        if self._relist_again:  # the changes it would have caught up: their rows read when painted
            self._relist_again = False
            self.model.invalidate()
        self.handle_error(exc)

    def _list_ready(self, found: Listing | PreparedListing | None, key: tuple | None = None,
                    asked: int = 0) -> None:
        """A listing arrived: shown at the end of this pass of the event loop, after whatever
        else is queued, so that several arriving together (a burst of keys) cost one reset:
        only the newest is applied. None: a listing a newer request made stale."""
        if found is None:
            return
        if key is not None and key != self.searchBar.listed_key:
            # A listing asked for before the newest one (at start-up the header's sort indicator
            # asked for the whole library before the saved view was restored): its late result
            # showed every paper under a sidebar that said Starred.
            return
        pending, self._pending_listing = self._pending_listing, (found, key, asked)
        if pending is None:
            QTimer.singleShot(0, self._apply_pending_listing)
        else:
            self.listings_dropped += 1

    def _apply_pending_listing(self) -> None:
        pending, self._pending_listing = self._pending_listing, None
        if pending is not None and not self.closing:
            found, key, asked = pending
            if key is None or key == self.searchBar.listed_key:
                self._apply_listing(found, key)
                if self._relist_asked and asked >= self._relist_asked:
                    self._relisted()

    def _apply_listing(self, listed: Listing | PreparedListing, key: tuple | None = None) -> None:
        found = listed.found if isinstance(listed, PreparedListing) else listed
        # What the old listing held (a search's every match) is let go on a worker: freeing
        # it here cost the GUI thread time that grew with the number of matches.
        junk: list[Any] = [self.search_results, self.model.more_fetch()]
        self.search_results = results = found.results
        terms = list(results.terms) if results else []
        current_id, current_row, selected = self.current_id(), self.table.currentIndex().row(), self.selected_ids()
        shown, new_terms = self.pane.paper, terms != self.pane.terms
        self.pane.terms = terms  # a paper the listing selects is shown with them
        self.list_generation += 1
        change = self.model.set_listing(listed, key)
        if change == NEW:  # a new query, view or collection: its first hit, at the top
            self.table.scrollToTop()
            self._reselect([], None, 0)
        elif change == SORTED:  # the selected paper stays selected (and in view) if still listed
            self._reselect(selected, current_id, 0)
        elif change == RELISTED:  # after a write: the same paper, else the row where it was
            self._reselect(selected, current_id, current_row)
        self.searchBar.show_state(found.query, results, found.total)
        empty_state.update(self, self.empty_state, found.query)
        if new_terms and self.pane.paper is shown:
            self._terms_timer.start()  # the same paper: its highlights follow once the keys pause
        elif self.pane.paper is not shown:
            self._terms_timer.stop()  # another paper, shown with the listing's terms already
        if any(x is not None for x in junk):
            self.runner.read("release", junk.clear, None)
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
            self.load_paper(None)  # (a read still under way for the pane is dropped too)
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
        self.reads.changed(changes.ids)  # read before this change: perhaps not as stored now
        # Catching up after triage (the writer may still be storing its decisions, one change a
        # second at 100k), the rows on screen are kept as they are: the listing under way lands,
        # then one more for every change meanwhile, and those workers read the rows on screen
        # again, not this thread (a page per change, before).
        catching_up = bool(self._relist_asked)
        if not catching_up:
            self.model.invalidate()
        pid, shown = self.pane.paper_id, self.pane.paper
        if pid and shown is not None and (not changes.ids or pid in changes.ids):
            paper = self.library.paper(pid)
            if paper is not None:
                if outside and paper.note != shown.note and pid in self.pane.unsaved_notes():
                    self.note_merges.changed_under_editor(pid, shown.note, paper.note, MERGE_OUTSIDE)
                self.pane.set_paper(paper)  # the same paper: what is typed stays
        if self.page_hidden():
            self._list_stale = True  # re-listed when the page is back (eventFilter)
            return
        if catching_up:
            self._relist_again = True  # (one 100k re-list per change, each dropping the last, before)
            return
        if pid:
            self.reads.read_around(pid)  # J/K's next papers that this change touched, read again
        self.refresh_list()

    def page_hidden(self) -> bool:
        """A page (triage) has taken the library page's place in the shown window."""
        return self.isVisible() and not self.splitter.isVisible()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.splitter and event.type() == QEvent.Type.Show and self._list_stale:
            self._relist_stale()
        return super().eventFilter(watched, event)

    def _relist_stale(self) -> None:
        """The library page is back: the list re-lists what was stored meanwhile."""
        self.refresh_list()  # (still stale while it asks: it reads the rows on screen too)
        self._list_stale = False
        self._relist_asked = self._lists_asked

    def _relisted(self) -> None:
        """The listing that caught the list up is shown: select the paper asked for meanwhile."""
        self._relist_asked = 0
        target, self._select_after_relist = self._select_after_relist, None
        if target is not None:
            self.select_paper(target[0], scroll=target[1])
        if self._relist_again:  # changes stored while it was read: one more listing for them all
            self._relist_again = False
            self._list_stale = True
            self._relist_stale()

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
                         bar.listed_as_you_type, self.search_results, self.reads.pending_flags())

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

    def _current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self.input_watch.touch()
        pid = self.model.id_at(current.row()) if current.isValid() else None
        if pid != self.reads.current:
            self.load_paper(pid)

    def load_paper(self, pid: str | None) -> None:
        """Show `pid` in the pane (read on a worker unless it was read ahead: pane_reads)."""
        self.reads.show(pid)

    def paper_shown(self, pid: str) -> None:
        """The pane shows `pid`: related papers once J/K stops (a Whoosh query per step would
        compete for the GIL)."""
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

    def select_paper(self, pid: str, *, scroll: bool = True) -> None:
        """Select a paper; if the current list hides it, show the whole library first. Without
        `scroll` the list stays where it is (the paper current, shown in the pane). A list being
        caught up (after triage) is asked once it is."""
        if self._list_stale or self._relist_asked:
            self._select_after_relist = (pid, scroll)
            if self._list_stale:
                self._relist_stale()
            return
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
        """Focus the list (Esc, Enter in the search; the window focuses the map when it is shown)."""
        self.pane.flush_note()
        self.table.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_tag_input(self) -> None:
        if self.pane.paper_id:
            self.pane.tagEditor.input.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_note(self) -> None:
        self.pane.focus_note()

    # ------------------------------------------------------------------ messages
    def handle_error(self, exc: BaseException) -> None:
        self.messages.error(exc)

    def show_message(self, title: str, text: str, icon: QMessageBox.Icon, name: str) -> QMessageBox | None:
        return self.messages.show(title, text, icon, name)


