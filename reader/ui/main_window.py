"""The main window: sidebar, search, paper table and paper pane, wired to the Library."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QSettings,
    Qt,
    QTimer,
    QUrl,
)
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QDesktopServices,
    QDragEnterEvent,
    QDropEvent,
    QFont,
    QFontMetrics,
    QKeySequence,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from reader.errors import ReaderError
from reader.services import Library, View

from . import theme as themes
from .crash import NO_DIALOG_ENV
from .dialogs import ExportDialog, ExportOptions, ShortcutsDialog, import_summary_text
from .paper_model import (
    COL_ADDED,
    COL_METHOD,
    COL_NOTE,
    COL_STAR,
    COL_TAGS,
    COL_TITLE,
    COL_VENUE,
    COL_YEAR,
    SORT_KEYS,
    PaperModel,
)
from .paper_pane import PaperPane
from .plain import input_dialog, plain_label
from .sidebar import Sidebar, view_key
from .tasks import Task, TaskRunner
from .undo import SnapshotCommand, push_change

SEARCH_DEBOUNCE_MS = 150
SEARCH_LIMIT = 1000
RELATED_DELAY_MS = 250
MAINTAIN_INTERVAL_MS = 60_000
RECOVERED_NOTES_DIR = "recovered-notes"  # under the library root: notes that could not be stored on quit
# Title stretches; the rest are sized for their content: sample text (measured in the bold
# unread font) or a fixed width for the one-symbol columns.
COLUMN_SAMPLES = {COL_STAR: 26, COL_METHOD: "FlashAttn", COL_VENUE: "NeurIPS", COL_YEAR: "2025",
                  COL_TAGS: "to-read, rl", COL_NOTE: 26, COL_ADDED: "2025-01-01"}
SPLITTER_SIZES = (170, 730, 380)  # sidebar, list, paper pane at 1280 px: the titles get the room


IdsArg = Sequence[str] | Callable[[], list[str]]  # a fixed list, or resolved on the writer


def ids_getter(ids: IdsArg) -> Callable[[], list[str]]:
    """`ids` as a function the writer calls (several times: snapshot, op, snapshot)."""
    if callable(ids):
        return ids
    fixed = list(ids)
    return lambda: fixed


def is_filter_query(results: Any) -> bool:
    """A query of filters only (is:, has:, tag:, year:, venue:…): it has no words to rank by."""
    return bool(getattr(results, "filters_only", False) or not getattr(results, "terms", None))


def default_column_widths(font: QFont) -> dict[int, int]:
    """Compact widths for every column but the (stretching) title, from the bold row font."""
    bold = QFont(font)
    bold.setBold(True)
    metrics = QFontMetrics(bold)
    padding = 18  # cell margins plus room for the header's sort arrow
    return {col: sample if isinstance(sample, int) else metrics.horizontalAdvance(sample) + padding
            for col, sample in COLUMN_SAMPLES.items()}


def is_text_field(widget: QWidget | None) -> bool:
    """True when typed letters belong to the widget (single-letter shortcuts must not fire)."""
    if isinstance(widget, QLineEdit):
        return not widget.isReadOnly()
    if isinstance(widget, QPlainTextEdit | QTextEdit):
        return not widget.isReadOnly()
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return isinstance(widget, QAbstractSpinBox)


class MainWindow(QMainWindow):
    """Everything the user sees; every write goes through `self.runner` (one writer thread)."""

    def __init__(self, library: Library, *, theme: str | None = None) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.setWindowTitle("Reader")
        self.library = library
        self.settings = QSettings(str(library.paths.settings_file), QSettings.Format.IniFormat)
        self.runner = TaskRunner(self)
        self.runner.error.connect(self.handle_error)
        self.runner.started.connect(self._task_started)
        self.runner.progressed.connect(self._task_progress)
        self.runner.ended.connect(self._task_ended)
        self.undo_stack = QUndoStack(self)
        self.view = View()
        self.sort_column = COL_ADDED
        self.sort_order = Qt.SortOrder.DescendingOrder
        # While a search is active: None = relevance (the default), else (column, order).
        self.search_sort: tuple[int, Qt.SortOrder] | None = None
        self._searching = False
        self.search_results: Any = None
        self.index_ready = False
        self.last_import_summaries: list = []
        self.last_import_text = ""
        self.last_export: Any = None
        self.recovered_notes: list[Path] = []
        self._tasks: list[Task] = []
        self._pending_select: str | None = None
        self._message_boxes: list[QMessageBox] = []
        self._closing = False
        self.list_generation = 0  # bumped each time the table's ids are replaced (tests wait on it)
        self.theme = theme or str(self.settings.value("theme", "system"))

        self._build_widgets()
        self._build_actions()
        self._restore_settings()
        self.setAcceptDrops(True)
        self.apply_theme(self.theme)
        hints = QApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):  # follow the system while the theme is "system"
            hints.colorSchemeChanged.connect(lambda _=None: self.theme == "system" and self.apply_theme("system"))
        # First fill synchronously so the table is usable at once; later fills are async.
        self._list_ready(self._compute_list("", self.view, *self._sort_args()))
        self.refresh_sidebar()
        QTimer.singleShot(0, self.start_index_sync)

    # ------------------------------------------------------------------ construction
    def _build_widgets(self) -> None:
        self.sidebar = Sidebar(self)
        self.sidebar.viewSelected.connect(self.set_view)
        self.sidebar.searchSelected.connect(self._saved_search_selected)
        self.sidebar.renameTagRequested.connect(self._ask_rename_tag)
        self.sidebar.mergeTagRequested.connect(self._ask_merge_tag)
        self.sidebar.deleteTagRequested.connect(self.delete_tag)
        self.sidebar.renameSearchRequested.connect(self._ask_rename_search)
        self.sidebar.deleteSearchRequested.connect(lambda s: self.delete_saved_search(s["id"]))
        self.sidebar.saveSearchRequested.connect(lambda: self.save_current_search())

        self.searchBox = QLineEdit(self)
        self.searchBox.setObjectName("searchBox")
        self.searchBox.setPlaceholderText('Search  (e.g. sparse attention   tag:rl   is:starred   year:2020-2023)   — / or Ctrl+F')
        self.searchBox.setClearButtonEnabled(True)
        self.searchBox.textChanged.connect(self._search_text_changed)
        self.searchBox.returnPressed.connect(self._search_now_and_focus_table)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.refresh_list)
        # Single-paper index updates leave small segments; merge them now and then, off the GUI thread.
        self._maintain_timer = QTimer(self)
        self._maintain_timer.setInterval(MAINTAIN_INTERVAL_MS)
        self._maintain_timer.timeout.connect(self._maintain_index)
        self._maintain_timer.start()
        self._related_timer = QTimer(self)
        self._related_timer.setSingleShot(True)
        self._related_timer.setInterval(RELATED_DELAY_MS)
        self._related_timer.timeout.connect(lambda: self.pane.paper_id and self._load_related(self.pane.paper_id))
        self.resultLabel = QLabel(self)
        self.resultLabel.setObjectName("resultLabel")
        plain_label(self.resultLabel)
        self.suggestionLabel = QLabel(self)
        self.suggestionLabel.setObjectName("suggestionLabel")
        self.suggestionLabel.setTextFormat(Qt.TextFormat.RichText)
        self.suggestionLabel.linkActivated.connect(self._accept_suggestion)
        self.suggestionLabel.hide()
        self.problemLabel = QLabel(self)
        self.problemLabel.setObjectName("problemLabel")
        plain_label(self.problemLabel)
        self.problemLabel.setStyleSheet("color: #d9534f;")
        self.problemLabel.setWordWrap(True)
        self.problemLabel.hide()

        self.model = PaperModel(self.library, self)
        self.model.sortRequested.connect(self._sort_requested)
        self.table = QTableView(self)
        self.table.setObjectName("paperTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setTabKeyNavigation(False)
        vh = self.table.verticalHeader()
        vh.setVisible(False)
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)  # no per-row size hints: 100k rows stay fast
        vh.setDefaultSectionSize(self.fontMetrics().height() + 8)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setHighlightSections(False)
        hh.setStretchLastSection(False)
        hh.setSortIndicator(self.sort_column, self.sort_order)
        for col, width in default_column_widths(self.table.font()).items():
            self.table.setColumnWidth(col, width)
        hh.setSectionResizeMode(COL_TITLE, QHeaderView.ResizeMode.Stretch)  # the title takes what is left
        hh.setMinimumSectionSize(24)
        self.table.setSortingEnabled(True)
        self.table.selectionModel().currentRowChanged.connect(self._current_row_changed)
        self.table.doubleClicked.connect(lambda _: self.pane.titleEdit.setFocus())

        self.pane = PaperPane(self)
        self.pane.starToggled.connect(lambda on: self.set_starred(self.bulk_ids(), on))
        self.pane.readToggled.connect(lambda on: self.set_read(self.bulk_ids(), on))
        self.pane.tagAdded.connect(lambda tag: self.add_tags(self.bulk_ids(), [tag]))
        self.pane.tagRemoved.connect(lambda tag: self.remove_tags([self.pane.paper_id], [tag]))
        self.pane.titleEdited.connect(lambda title: self.set_title(self.pane.paper_id, title))
        self.pane.noteSaveRequested.connect(self.save_note)
        self.pane.highlightRequested.connect(
            lambda s, e, c, comment: self.add_highlight(self.pane.paper_id, s, e, c, comment))
        self.pane.highlightRemoveRequested.connect(self.remove_highlight)
        self.pane.highlightCommentRequested.connect(self._ask_highlight_comment)
        self.pane.relatedActivated.connect(self.select_paper)
        self.pane.linkActivated.connect(self.open_link)

        search_row = QHBoxLayout()
        search_row.setContentsMargins(6, 6, 6, 2)
        search_row.addWidget(self.searchBox, 1)
        search_row.addWidget(self.resultLabel)
        search_row.addWidget(self.suggestionLabel)
        middle = QWidget(self)
        middle_layout = QVBoxLayout(middle)
        middle_layout.setContentsMargins(0, 0, 0, 0)
        middle_layout.setSpacing(2)
        middle_layout.addLayout(search_row)
        middle_layout.addWidget(self.problemLabel)
        middle_layout.addWidget(self.table, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(middle)
        self.splitter.addWidget(self.pane)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 2)
        self.splitter.setSizes(list(SPLITTER_SIZES))
        self.setCentralWidget(self.splitter)

        status = self.statusBar()
        self.countsLabel = QLabel(self)
        self.countsLabel.setObjectName("countsLabel")
        plain_label(self.countsLabel)
        self.taskLabel = QLabel(self)
        self.taskLabel.setObjectName("taskLabel")
        plain_label(self.taskLabel)
        self.progressBar = QProgressBar(self)
        self.progressBar.setObjectName("progressBar")
        self.progressBar.setMaximumWidth(180)
        self.progressBar.setTextVisible(False)
        self.cancelButton = QPushButton("Cancel", self)
        self.cancelButton.setObjectName("cancelButton")
        self.cancelButton.clicked.connect(self.cancel_tasks)
        status.addWidget(self.countsLabel, 1)
        status.addPermanentWidget(self.taskLabel)
        status.addPermanentWidget(self.progressBar)
        status.addPermanentWidget(self.cancelButton)
        for w in (self.taskLabel, self.progressBar, self.cancelButton):
            w.hide()
        self.resize(1280, 800)

    def _action(self, text: str, slot: Callable, keys: Sequence[Any] = (), *, letter: bool = False,
                name: str | None = None) -> QAction:
        action = QAction(text, self)
        if name:
            action.setObjectName(name)
        if keys:
            action.setShortcuts([QKeySequence(k) for k in keys])
        if letter:
            # Single-letter keys only act outside text fields (the field normally eats them first).
            action.triggered.connect(lambda: None if is_text_field(QApplication.focusWidget()) else slot())
        else:
            action.triggered.connect(lambda: slot())
        self.addAction(action)
        self.shortcut_actions.append(action)
        return action

    def _build_actions(self) -> None:
        self.shortcut_actions: list[QAction] = []
        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        file_menu.addAction(self._action("&Import…", self.ask_import, ["Ctrl+I"], name="importAction"))
        file_menu.addAction(self._action("&Export…", self.ask_export, ["Ctrl+E"], name="exportAction"))
        file_menu.addSeparator()
        file_menu.addAction(self._action("Rebuild search index", self.reindex))
        file_menu.addSeparator()
        file_menu.addAction(self._action("&Quit", self.close, ["Ctrl+Q"], name="quitAction"))

        edit = mb.addMenu("&Edit")
        self.undoAction = self.undo_stack.createUndoAction(self, "&Undo")
        self.undoAction.setShortcuts([QKeySequence("Ctrl+Z")])
        self.redoAction = self.undo_stack.createRedoAction(self, "&Redo")
        self.redoAction.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        for a in (self.undoAction, self.redoAction):
            self.addAction(a)
            self.shortcut_actions.append(a)
            edit.addAction(a)
        edit.addSeparator()
        edit.addAction(self._action("Copy as &Markdown", self.copy_markdown, ["Ctrl+Shift+C"]))
        edit.addAction(self._action("&Delete papers", self.delete_selected, ["Delete"], name="deleteAction"))
        edit.addSeparator()
        edit.addAction(self._action("&Save current search…", lambda: self.save_current_search(), ["Ctrl+S"],
                                    name="saveSearchAction"))

        paper = mb.addMenu("&Paper")
        paper.addAction(self._action("Toggle &star", self.toggle_star, ["S"], letter=True))
        paper.addAction(self._action("Toggle &read", self.toggle_read, ["R"], letter=True))
        paper.addAction(self._action("Add &tag", self.focus_tag_input, ["T"], letter=True))
        paper.addAction(self._action("Edit &note", self.focus_note, ["N"], letter=True))
        paper.addAction(self._action("Highlight selection", lambda: self.pane.request_highlight("yellow"), ["H"],
                                     letter=True))
        paper.addSeparator()
        paper.addAction(self._action("&Next paper", lambda: self.move_current(1), ["J"], letter=True))
        paper.addAction(self._action("&Previous paper", lambda: self.move_current(-1), ["K"], letter=True))

        view = mb.addMenu("&View")
        view.addAction(self._action("&Find", self.focus_search, ["Ctrl+F"]))
        view.addAction(self._action("Find (/)", self.focus_search, ["/"], letter=True))
        view.addAction(self._action("Back to the list", self.focus_table, ["Esc"]))
        self.relevanceAction = self._action("Sort search results by &relevance", self.sort_by_relevance,
                                            name="relevanceAction")
        self.relevanceAction.setEnabled(False)
        view.addAction(self.relevanceAction)
        theme_menu = view.addMenu("&Theme")
        group = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for key in themes.THEMES:
            a = QAction(key.capitalize(), self, checkable=True)
            a.triggered.connect(lambda _=False, k=key: self.apply_theme(k))
            group.addAction(a)
            theme_menu.addAction(a)
            self.theme_actions[key] = a

        help_menu = mb.addMenu("&Help")
        help_menu.addAction(self._action("&Keyboard Shortcuts", self.show_shortcuts, ["F1"]))
        help_menu.addAction(self._action("&About Reader", self.show_about))

    # ------------------------------------------------------------------ settings
    def _restore_settings(self) -> None:
        s = self.settings
        if s.value("geometry") is not None:
            self.restoreGeometry(s.value("geometry"))
        if s.value("windowState") is not None:
            self.restoreState(s.value("windowState"))
        if s.value("splitter") is not None:
            self.splitter.restoreState(s.value("splitter"))
        if s.value("paneSplitter") is not None:
            self.pane.splitter.restoreState(s.value("paneSplitter"))
        if s.value("header") is not None:
            self.table.horizontalHeader().restoreState(s.value("header"))
        try:
            self.sort_column = int(s.value("sortColumn", self.sort_column))
            self.sort_order = Qt.SortOrder(int(s.value("sortOrder", self.sort_order.value)))
        except (TypeError, ValueError):
            pass
        self.table.horizontalHeader().setSortIndicator(self.sort_column, self.sort_order)
        key = str(s.value("sidebar", "all:"))
        kind, _, value = key.partition(":")
        if kind in ("all", "unread", "starred", "notes", "collection", "tag"):
            self.view = View(kind, value or None)
            self.sidebar.current_key = view_key(self.view)
            self.sidebar.blockSignals(True)
            self.sidebar.select_key(self.sidebar.current_key)
            self.sidebar.blockSignals(False)

    def _save_settings(self) -> None:
        s = self.settings
        s.setValue("geometry", self.saveGeometry())
        s.setValue("windowState", self.saveState())
        s.setValue("splitter", self.splitter.saveState())
        s.setValue("paneSplitter", self.pane.splitter.saveState())
        s.setValue("header", self.table.horizontalHeader().saveState())
        s.setValue("sortColumn", self.sort_column)
        s.setValue("sortOrder", self.sort_order.value)
        s.setValue("sidebar", view_key(self.view))
        s.setValue("theme", self.theme)
        s.sync()

    def apply_theme(self, theme: str) -> None:
        if theme not in themes.THEMES:
            theme = "system"
        self.theme = theme
        self.theme_actions[theme].setChecked(True)
        app = QApplication.instance()
        dark = themes.apply_theme(app, theme) if isinstance(app, QApplication) else False
        self.pane.dark = dark
        self.pane.render_abstract()

    # ------------------------------------------------------------------ index sync
    def start_index_sync(self) -> None:
        if self._closing:
            return
        if not self.library.index_needs_sync():
            self._index_synced(None)
            return
        self._sync_index_in_background()

    def _sync_index_in_background(self) -> Task | None:
        """Catch the search index up on its own thread: the writer stays free for edits meanwhile."""
        if self._closing:
            return None
        lib = self.library
        task = self.runner.background(lambda t: lib.sync_index(t.progress, t.cancelled), self._index_synced,
                                      self.handle_error, label="Indexing", with_task=True)
        self._tasks.append(task)
        return task

    def _index_synced(self, _: Any) -> None:
        self.index_ready = True
        if self.searchBox.text().strip():
            self.refresh_list()
        if self.pane.paper_id:
            self._load_related(self.pane.paper_id)

    def _maintain_index(self) -> None:
        if self._closing or not self.index_ready:
            return
        self.runner.background(self.library.maintain_index, None, self.handle_error)

    def reindex(self) -> None:
        lib = self.library
        task = self.runner.background(lambda t: lib.reindex(t.progress, t.cancelled),
                                      lambda _: self._index_synced(None), self.handle_error,
                                      label="Rebuilding the index", with_task=True)
        self._tasks.append(task)

    # ------------------------------------------------------------------ list
    def _sort_args(self) -> tuple[str, bool]:
        return SORT_KEYS.get(self.sort_column, "added"), self.sort_order == Qt.SortOrder.DescendingOrder

    def _search_sort_args(self) -> tuple[str, bool] | None:
        if self.search_sort is None:
            return None
        column, order = self.search_sort
        return SORT_KEYS[column], order == Qt.SortOrder.DescendingOrder

    def _compute_list(self, query: str, view: View, sort: str, descending: bool,
                      search_sort: tuple[str, bool] | None = None) -> tuple:
        """Runs on a worker: the ids to show (and the search results when a query is typed)."""
        lib = self.library
        if not query:
            return query, None, lib.paper_ids(view, sort, descending)
        results = lib.search(query, view=view, limit=SEARCH_LIMIT)
        if is_filter_query(results) and len(results.hits) >= SEARCH_LIMIT:
            # Filters only (is:, tag:, year:…): no relevance to cut at, so list every match.
            results = lib.search(query, view=view, limit=None)
        ids = [h.id for h in results.hits]
        order = search_sort
        if order is None and is_filter_query(results):
            order = (sort, descending)  # only is:/has: filters: no relevance, keep the table's own order
        if order is not None and ids:
            wanted = set(ids)
            ids = [i for i in lib.paper_ids(view, *order) if i in wanted]
        return query, results, ids

    def refresh_list(self) -> None:
        """Re-query the ids (view, sort, search) off the GUI thread; the newest request wins."""
        self._search_timer.stop()
        query = self.searchBox.text().strip()
        self._set_searching(bool(query))
        args = (query, self.view, *self._sort_args(), self._search_sort_args())
        self.runner.read("list", lambda: self._compute_list(*args), self._list_ready, self.handle_error)

    def _set_searching(self, on: bool) -> None:
        """Entering a search sorts by relevance; leaving it brings back the library's sort."""
        if on != self._searching:
            self._searching = on
            self.search_sort = None
            self._show_sort_indicator()

    def _show_sort_indicator(self) -> None:
        hh = self.table.horizontalHeader()
        hh.blockSignals(True)  # only show it: the list is re-queried by the caller
        try:
            # While searching, a third click on a header clears the indicator: back to relevance.
            hh.setSortIndicatorClearable(self._searching)
            if self._searching:
                column, order = self.search_sort or (-1, Qt.SortOrder.AscendingOrder)
                hh.setSortIndicator(column, order)
            else:
                hh.setSortIndicator(self.sort_column, self.sort_order)
        finally:
            hh.blockSignals(False)
        hh.viewport().update()
        self.relevanceAction.setEnabled(self._searching and self.search_sort is not None)

    def sort_by_relevance(self) -> None:
        """View → Sort by Relevance: the search's own order again."""
        if self._searching and self.search_sort is not None:
            self.search_sort = None
            self._show_sort_indicator()
            self.refresh_list()

    def _list_ready(self, out: tuple) -> None:
        query, results, ids = out
        self.search_results = results
        terms = list(getattr(results, "terms", []) or []) if results else []
        current_id = self.current_id()
        current_row = self.table.currentIndex().row()
        selected = self.selected_ids()
        if ids != self.model.ids():
            self.model.set_ids(ids)
            self.list_generation += 1
            self._reselect(selected, current_id, current_row)
        else:
            self.model.invalidate()
            self.list_generation += 1
        self._show_search_state(query, results)
        if terms != self.pane.terms:
            self.pane.terms = terms
            self.pane.render_abstract()
        if self.model.rowCount() and self.current_id() is None:
            self._reselect([], None, 0)

    def _reselect(self, selected: list[str], current_id: str | None, current_row: int) -> None:
        target = self._pending_select or current_id
        self._pending_select = None
        sm = self.table.selectionModel()
        rows = sorted(r for r in (self.model.row_of(i) for i in selected) if r >= 0)
        row = self.model.row_of(target) if target else -1
        if row < 0:
            if not self.model.rowCount():
                self.pane.set_paper(None)
                return
            row = min(max(current_row, 0), self.model.rowCount() - 1)
            rows = [row]
        if target and self.model.row_of(target) >= 0 and self.model.row_of(target) not in rows:
            rows = [row]
        selection = QItemSelection()
        last = self.model.columnCount() - 1
        for r in rows:
            selection.select(self.model.index(r, 0), self.model.index(r, last))
        flags = QItemSelectionModel.SelectionFlag
        sm.setCurrentIndex(self.model.index(row, COL_TITLE), flags.NoUpdate)
        sm.select(selection, flags.ClearAndSelect | flags.Rows)
        self.table.scrollTo(self.model.index(row, COL_TITLE))
        self._current_row_changed(self.model.index(row, 0), QModelIndex())

    def _show_search_state(self, query: str, results: Any) -> None:
        if not query or results is None:
            self.resultLabel.setText("")
            self.suggestionLabel.hide()
            self.problemLabel.hide()
            return
        shown = self.model.rowCount()
        # The total may count a repeated hit more than once; never show fewer than the rows.
        total = max(int(getattr(results, "total", shown)) - (len(results.hits) - shown), shown)
        text = f"{total} result{'s' if total != 1 else ''}"
        if shown < total:
            text = f"{shown} of {total} results"
        if self.search_sort is None and not is_filter_query(results) and shown > 1:
            text += " · by relevance"
        self.resultLabel.setText(text)
        suggestion = getattr(results, "suggestion", None)
        if suggestion and not results.hits:
            import html

            self.suggestionLabel.setText(
                f"Did you mean <a href='suggest'>{html.escape(suggestion)}</a>?")
            self.suggestionLabel.setProperty("suggestion", suggestion)
            self.suggestionLabel.show()
        else:
            self.suggestionLabel.hide()
        problem = getattr(results, "problem", None)
        self.problemLabel.setText(problem or "")
        self.problemLabel.setVisible(bool(problem))

    def _accept_suggestion(self, _link: str = "") -> None:
        suggestion = self.suggestionLabel.property("suggestion")
        if suggestion:
            self.searchBox.setText(str(suggestion))
            self.refresh_list()

    def _search_text_changed(self, _text: str) -> None:
        self._search_timer.start()

    def _search_now_and_focus_table(self) -> None:
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

    def _sort_requested(self, column: int, order: Qt.SortOrder) -> None:
        self._set_searching(bool(self.searchBox.text().strip()))
        if self._searching:
            self.search_sort = (column, order) if column in SORT_KEYS else None
            self._show_sort_indicator()
        elif column in SORT_KEYS:
            self.sort_column, self.sort_order = column, order
        else:
            self._show_sort_indicator()
            return
        self.refresh_list()

    def refresh_sidebar(self) -> None:
        lib = self.library

        def compute() -> tuple:
            return lib.counts(), lib.collections(), lib.tags(), lib.saved_searches()

        self.runner.read("sidebar", compute, self._sidebar_ready, self.handle_error)

    def _sidebar_ready(self, out: tuple) -> None:
        counts, collections, tags, searches = out
        self.counts = counts
        self.sidebar.update_data(counts, collections, tags, searches)
        self.pane.tagEditor.set_known_tags([name for name, _ in tags])
        self.countsLabel.setText(
            f"{counts.total} papers · {counts.starred} starred · {counts.read}/{counts.total} read")

    # ------------------------------------------------------------------ selection
    def current_id(self) -> str | None:
        index = self.table.currentIndex()
        return self.model.id_at(index.row()) if index.isValid() else None

    def selected_ids(self) -> list[str]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [pid for pid in (self.model.id_at(r) for r in rows) if pid]

    def list_truncated(self) -> bool:
        """True when the table shows only the best SEARCH_LIMIT of a search's matches."""
        results = self.search_results
        return results is not None and self.model.rowCount() < int(getattr(results, "total", 0))

    def all_matching_ids(self) -> Callable[[], list[str]]:
        """Every paper the current search matches (the shown ones first), computed once when called."""
        lib = self.library
        query, view, shown = self.searchBox.text().strip(), self.view, list(self.model.ids())
        found: list[list[str]] = []

        def resolve() -> list[str]:
            if not found:
                every = lib.search(query, view=view, limit=None).ids if query else lib.paper_ids(view)
                found.append(list(dict.fromkeys(shown + every)))
            return found[0]

        return resolve

    def bulk_ids(self) -> IdsArg:
        """The papers a bulk action covers: the selection, or every match when all of a capped list is selected."""
        ids = self.target_ids()
        if len(ids) > 1 and self.list_truncated() and len(ids) == self.model.rowCount():
            return self.all_matching_ids()
        return ids

    def target_ids(self) -> list[str]:
        """The selected papers, or the one in the pane."""
        ids = self.selected_ids()
        if not ids and self.pane.paper_id:
            ids = [self.pane.paper_id]
        return ids

    def _current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        pid = self.model.id_at(current.row()) if current.isValid() else None
        if pid == self.pane.paper_id:
            return
        self.load_paper(pid)

    def load_paper(self, pid: str | None) -> None:
        paper = self.library.paper(pid) if pid else None
        self.pane.set_paper(paper)
        if paper:
            # Related papers wait until J/K stops: a Whoosh query per step would compete for the GIL.
            self._related_timer.start()

    def _load_related(self, pid: str) -> None:
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
        count = self.model.rowCount()
        if not count:
            return
        row = self.table.currentIndex().row()
        row = 0 if row < 0 else min(max(row + step, 0), count - 1)
        index = self.model.index(row, COL_TITLE)
        flags = QItemSelectionModel.SelectionFlag
        self.table.selectionModel().setCurrentIndex(index, flags.ClearAndSelect | flags.Rows)
        self.table.scrollTo(index)

    def select_paper(self, pid: str) -> None:
        """Select a paper; if the current list hides it, show the whole library first."""
        row = self.model.row_of(pid)
        if row >= 0:
            index = self.model.index(row, COL_TITLE)
            flags = QItemSelectionModel.SelectionFlag
            self.table.selectionModel().setCurrentIndex(index, flags.ClearAndSelect | flags.Rows)
            self.table.scrollTo(index)
            return
        self._pending_select = pid
        self.view = View()
        self.sidebar.current_key = view_key(self.view)
        self.sidebar.blockSignals(True)
        self.sidebar.select_key(self.sidebar.current_key)
        self.sidebar.blockSignals(False)
        self.searchBox.blockSignals(True)
        self.searchBox.clear()
        self.searchBox.blockSignals(False)
        self.refresh_list()

    # ------------------------------------------------------------------ focus
    def focus_search(self) -> None:
        self.searchBox.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.searchBox.selectAll()

    def focus_table(self) -> None:
        self.pane.flush_note()
        self.table.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_tag_input(self) -> None:
        if self.pane.paper_id:
            self.pane.tagEditor.input.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def focus_note(self) -> None:
        if self.pane.paper_id:
            self.pane.tabs.setCurrentIndex(0)
            self.pane.set_preview(False)
            self.pane.noteEditor.setFocus(Qt.FocusReason.ShortcutFocusReason)
            self.pane.noteEditor.moveCursor(self.pane.noteEditor.textCursor().MoveOperation.End)

    # ------------------------------------------------------------------ writes
    def change(self, text: str, ids: Sequence[str] | Callable[[], Sequence[str]], op: Callable[[], Any], *,
               merge_key: Any = None, on_done: Callable[[Any], None] | None = None,
               on_error: Callable[[BaseException], None] | None = None) -> Task | None:
        """Run `op` on the writer between two snapshots of `ids`, and push it as one undo step."""
        if self._closing:
            return None
        lib = self.library

        def job() -> tuple:
            paper_ids = list(ids() if callable(ids) else ids)
            before = lib.snapshot(paper_ids)
            result = op()
            after = lib.snapshot(paper_ids)
            return paper_ids, before, after, result

        def done(out: tuple) -> None:
            paper_ids, before, after, result = out
            if before != after:
                push_change(self.undo_stack, SnapshotCommand(self, text, before, after, merge_key))
            self.after_write(paper_ids)
            if on_done is not None:
                on_done(result)

        return self.runner.write(job, done, on_error or self.handle_error)

    def restore_snapshots(self, snapshots: list[dict], remove_ids: list[str]) -> None:
        """Undo/redo: write the snapshots back on the writer thread."""
        lib = self.library
        ids = [s["id"] for s in snapshots] + list(remove_ids)
        self.runner.write(lambda: lib.restore(snapshots, remove_ids=remove_ids),
                          lambda _: self.after_write(ids), self.handle_error)

    def after_write(self, ids: Sequence[str] = ()) -> None:
        """Show the new state: rows, the pane (keeping what is typed), counts and the list."""
        if self._closing:
            return
        self.model.invalidate()
        pid = self.pane.paper_id
        if pid and (not ids or pid in ids):
            # Same paper: the pane keeps a note being typed and takes the stored one otherwise.
            self.pane.set_paper(self.library.paper(pid))
        self.refresh_sidebar()
        self.refresh_list()

    def set_starred(self, ids: IdsArg, value: bool) -> None:
        if ids:
            lib, get = self.library, ids_getter(ids)
            self.change("Star" if value else "Unstar", get, lambda: lib.set_starred(get(), value))

    def set_read(self, ids: IdsArg, value: bool) -> None:
        if ids:
            lib, get = self.library, ids_getter(ids)
            self.change("Mark read" if value else "Mark unread", get, lambda: lib.set_read(get(), value))

    def toggle_star(self) -> None:
        ids = self.bulk_ids()
        if ids:
            paper = self.pane.paper
            self.set_starred(ids, not (paper and paper.get("starred")))

    def toggle_read(self) -> None:
        ids = self.bulk_ids()
        if ids:
            paper = self.pane.paper
            self.set_read(ids, not (paper and paper.get("read")))

    def add_tags(self, ids: IdsArg, tags: list[str]) -> None:
        if ids and tags:
            lib, get = self.library, ids_getter(ids)
            self.change(f"Tag {', '.join(tags)}", get, lambda: lib.add_tags(get(), tags))

    def remove_tags(self, ids: Sequence[str], tags: list[str]) -> None:
        if ids and tags:
            lib = self.library
            self.change(f"Remove tag {', '.join(tags)}", ids, lambda: lib.remove_tags(ids, tags))

    def set_title(self, pid: str | None, title: str) -> None:
        if pid:
            lib = self.library
            self.change("Edit title", [pid], lambda: lib.set_title(pid, title))

    def save_note(self, pid: str, text: str) -> Task | None:
        """Write a note; the pane counts it as saved only when the write succeeded."""
        lib = self.library

        def failed(exc: BaseException) -> None:
            first = not self.pane.note_failed_before(pid)
            self.pane.note_failed(pid, text)
            if first:  # one message per note, not one per retry
                self.handle_error(exc)
            else:
                self.statusBar().showMessage(f"The note is still not saved: {exc}", 10000)

        return self.change("Edit note", [pid], lambda: lib.set_note(pid, text), merge_key=("note", pid),
                           on_done=lambda _: self.pane.note_stored(pid, text), on_error=failed)

    def save_notes_on_quit(self, timeout: float = 30.0) -> list[Path]:
        """Write every unsaved note synchronously; what still fails goes to a recovery file.

        Returns the recovery files written (the user is told about them)."""
        lib = self.library
        recovered: list[Path] = []
        for pid, text in self.pane.unsaved_notes().items():
            def write(pid: str = pid, text: str = text) -> None:
                current = lib.paper(pid)
                if current is not None and (current.get("note") or "") != text:
                    lib.set_note(pid, text)

            try:
                self.runner.write_sync(write, timeout)
            except Exception as exc:  # noqa: BLE001 - whatever failed, the text must survive
                path = write_recovered_note(lib.paths.root, pid, text)
                if path is None:
                    sys.stderr.write(f"reader: the note of paper {pid} could not be saved ({exc}):\n{text}\n")
                    continue
                sys.stderr.write(f"reader: the note of paper {pid} could not be saved ({exc}); "
                                 f"it was written to {path}\n")
                recovered.append(path)
            self.pane.forget_unsaved_note(pid)
        return recovered

    def add_highlight(self, pid: str | None, start: int, end: int, color: str = "yellow", comment: str = "") -> None:
        if pid:
            lib = self.library
            self.change("Highlight", [pid], lambda: lib.add_highlight(pid, start, end, color, comment))

    def _highlight_paper(self, highlight_id: int) -> str | None:
        paper = self.pane.paper
        if paper and any(h["id"] == highlight_id for h in paper.get("highlights") or []):
            return paper["id"]
        return None

    def remove_highlight(self, highlight_id: int) -> None:
        pid = self._highlight_paper(highlight_id)
        if pid:
            lib = self.library
            self.change("Remove highlight", [pid], lambda: lib.remove_highlight(highlight_id))

    def set_highlight_comment(self, highlight_id: int, comment: str) -> None:
        pid = self._highlight_paper(highlight_id)
        if pid:
            lib = self.library
            self.change("Edit highlight comment", [pid], lambda: lib.update_highlight(highlight_id, comment=comment))

    def _ask_highlight_comment(self, highlight_id: int) -> None:
        paper = self.pane.paper or {}
        current = next((h.get("comment", "") for h in paper.get("highlights", []) if h["id"] == highlight_id), "")
        text, ok = input_dialog(self, "Highlight comment", "Comment:", current)
        if ok:
            self.set_highlight_comment(highlight_id, text.strip())

    def delete_selected(self) -> None:
        if self.pane.highlightList.hasFocus():
            self.pane.remove_selected_highlight()
            return
        selected = self.selected_ids()
        if not selected:
            return
        ids = self.bulk_ids() if len(selected) > 1 else selected
        self.pane.flush_note()
        lib, get = self.library, ids_getter(ids)
        count = len(ids) if isinstance(ids, list) else int(self.search_results.total)
        text = f"Delete {count} paper{'s' if count != 1 else ''}"
        self.change(text, get, lambda: lib.delete_papers(get()))
        self.statusBar().showMessage(f"{text} — Ctrl+Z to undo", 5000)

    def rename_tag(self, old: str, new: str) -> None:
        lib = self.library
        self.change(f"Rename tag {old}", lambda: lib.paper_ids(View("tag", old)), lambda: lib.rename_tag(old, new))
        if self.view == View("tag", old):
            self.set_view(View("tag", new))

    def delete_tag(self, name: str) -> None:
        lib = self.library
        self.change(f"Delete tag {name}", lambda: lib.paper_ids(View("tag", name)), lambda: lib.delete_tag(name))
        if self.view == View("tag", name):
            self.sidebar.select_view(View())

    def _ask_rename_tag(self, old: str) -> None:
        new, ok = input_dialog(self, "Rename tag", f"New name for “{old}”:", old)
        if ok and new.strip() and new.strip() != old:
            self.rename_tag(old, new.strip())

    def _ask_merge_tag(self, old: str) -> None:
        others = [t for t in self.sidebar.tag_names() if t != old]
        if not others:
            return
        new, ok = input_dialog(self, "Merge tag", f"Merge “{old}” into:", items=others)
        if ok and new:
            self.rename_tag(old, new)

    def save_current_search(self, name: str | None = None) -> None:
        query = self.searchBox.text().strip()
        if not query:
            self.statusBar().showMessage("Type a search first, then save it.", 4000)
            return
        if name is None:
            name, ok = input_dialog(self, "Save search", "Name:", query)
            if not ok or not name.strip():
                return
        lib = self.library
        self.runner.write(lambda: lib.save_search(name, query), lambda _: self.refresh_sidebar(), self.handle_error)

    def _ask_rename_search(self, search: dict) -> None:
        name, ok = input_dialog(self, "Rename saved search", "Name:", search["name"])
        if ok and name.strip():
            self.rename_saved_search(search["id"], name.strip())

    def rename_saved_search(self, search_id: int, name: str) -> None:
        lib = self.library
        self.runner.write(lambda: lib.rename_saved_search(search_id, name), lambda _: self.refresh_sidebar(),
                          self.handle_error)

    def delete_saved_search(self, search_id: int) -> None:
        lib = self.library
        self.runner.write(lambda: lib.delete_saved_search(search_id), lambda _: self.refresh_sidebar(),
                          self.handle_error)

    # ------------------------------------------------------------------ import
    def ask_import(self) -> None:
        start = str(self.settings.value("lastImportFolder", str(Path.home())))
        paths, _ = QFileDialog.getOpenFileNames(
            self, "Import papers", start,
            "Paper lists (*.txt *.jsonl *.json *.csv *.bib *.ris *.xml);;All files (*)")
        if paths:
            self.settings.setValue("lastImportFolder", str(Path(paths[0]).parent))
            self.import_paths(paths)

    def import_paths(self, paths: Sequence[str | Path]) -> Task:
        """The import code path of the dialog and of drag-and-drop: background, with progress."""
        self.pane.flush_note()  # a typed note is saved before anything can fail
        lib = self.library
        files = [str(p) for p in paths]

        def job(task: Task) -> list:
            # The store only: the index catches up afterwards on its own thread (see _import_done).
            return lib.import_files(files, progress=task.progress, cancelled=task.cancelled, index=False)

        task = self.runner.write(job, self._import_done, self._import_failed, label="Importing", with_task=True)
        self._tasks.append(task)
        return task

    def _import_done(self, summaries: list) -> None:
        self.last_import_summaries = summaries
        self.last_import_text = import_summary_text(summaries)
        new = sum(s.new for s in summaries)
        self.statusBar().showMessage(f"Imported {new} new papers", 8000)
        self.after_write()
        self._sync_index_in_background()
        errors = any(s.error or s.skipped for s in summaries)
        self.show_message("Import finished", self.last_import_text,
                          QMessageBox.Icon.Warning if errors else QMessageBox.Icon.Information, "importSummary")

    def _import_failed(self, exc: BaseException) -> None:
        self.last_import_text = f"Import failed: {exc}"
        self.after_write()
        self._sync_index_in_background()  # files before the failing one were stored
        self.handle_error(exc)

    # ------------------------------------------------------------------ export
    def ask_export(self) -> None:
        options = getattr(self, "_export_options", None) or ExportOptions(
            scope="selection" if len(self.selected_ids()) > 1 else "view")
        dialog = ExportDialog(self, self.sidebar.tag_names(), len(self.selected_ids()), options)
        if dialog.exec() != ExportDialog.DialogCode.Accepted:
            return
        options = dialog.options()
        self._export_options = options
        folder = str(self.settings.value("lastExportFolder", str(Path.home())))
        if options.kind == "per_paper":
            path = QFileDialog.getExistingDirectory(self, "Export to folder", folder)
        else:
            suffix = ".json" if options.kind == "json" else ".md"
            name = "reader-backup.json" if options.kind == "json" else "reading-list.md"
            path, _ = QFileDialog.getSaveFileName(self, "Export", str(Path(folder) / name), f"*{suffix}")
        if path:
            self.export_to(path, options)

    def scope_ids(self, options: ExportOptions) -> Callable[[], list[str]]:
        """The ids an export covers, resolved on the writer (after pending saves)."""
        lib = self.library
        if options.scope == "selection":
            return ids_getter(self.bulk_ids())
        if options.scope == "view":
            if self.list_truncated():
                return self.all_matching_ids()  # the whole search, not just the shown best matches
            ids = list(self.model.ids())
            return lambda: ids
        if options.scope == "starred":
            return lambda: lib.paper_ids(View("starred"))
        tag = options.tag or ""
        return lambda: lib.paper_ids(View("tag", tag))

    def export_to(self, path: str | Path, options: ExportOptions | None = None) -> Task:
        """The export code path of the dialog: runs on the writer after the note is saved."""
        options = options or ExportOptions()
        self.pane.flush_note()
        self.settings.setValue("lastExportFolder", str(Path(path) if options.kind == "per_paper" else Path(path).parent))
        lib = self.library
        ids = self.scope_ids(options)

        def job() -> Any:
            if options.kind == "json":
                return lib.export_json(path)
            if options.kind == "per_paper":
                return lib.export_per_paper(path, ids(), with_abstracts=options.with_abstracts)
            return lib.export_reading_list(path, ids(), title=options.title, group_by=options.group_by,
                                           with_abstracts=options.with_abstracts)

        def done(result: Any) -> None:
            self.last_export = result
            count = len(result) if isinstance(result, list) else 1
            self.statusBar().showMessage(f"Exported {count} file{'s' if count != 1 else ''} to {path}", 8000)

        return self.runner.write(job, done, self.handle_error, label="Exporting")

    def copy_markdown(self) -> Task | None:
        ids = self.bulk_ids()
        if not ids:
            return None
        self.pane.flush_note()
        lib, get = self.library, ids_getter(ids)

        def done(out: tuple[int, str]) -> None:
            count, text = out
            QApplication.clipboard().setText(text)
            self.statusBar().showMessage(f"Copied {count} paper(s) as Markdown", 4000)

        def job() -> tuple[int, str]:
            return len(get()), lib.reading_list_markdown(get(), title="Reading list")

        return self.runner.write(job, done, self.handle_error)

    # ------------------------------------------------------------------ drag and drop
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.import_paths(paths)

    # ------------------------------------------------------------------ tasks & errors
    def _task_started(self, task: Task) -> None:
        self.taskLabel.setText(f"{task.label}…")
        self.progressBar.setRange(0, 0)
        for w in (self.taskLabel, self.progressBar):
            w.show()
        self.cancelButton.setVisible(any(t in self._tasks for t in [task]) or task.label == "Importing")

    def _task_progress(self, task: Task, done: int, total: int, message: str) -> None:
        self.taskLabel.setText(message or task.label or "")
        self.progressBar.setRange(0, max(total, 0))
        self.progressBar.setValue(min(done, total) if total else 0)

    def _task_ended(self, task: Task) -> None:
        if task in self._tasks:
            self._tasks.remove(task)
        if not self.runner.busy or not self._tasks:
            for w in (self.taskLabel, self.progressBar, self.cancelButton):
                w.hide()
        self.cancelButton.setVisible(bool(self._tasks) and self.cancelButton.isVisible())

    def cancel_tasks(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self.taskLabel.setText("Cancelling…")

    def handle_error(self, exc: BaseException) -> None:
        """User-facing errors become a readable message; anything else is a bug: report it."""
        if isinstance(exc, ReaderError):
            self.statusBar().showMessage(str(exc), 10000)
            self.show_message("Reader", str(exc), QMessageBox.Icon.Warning, "errorMessage")
            return
        sys.excepthook(type(exc), exc, exc.__traceback__)

    def show_message(self, title: str, text: str, icon: QMessageBox.Icon, name: str) -> QMessageBox | None:
        if self._closing:
            return None
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self)
        box.setTextFormat(Qt.TextFormat.PlainText)  # file names, error text and titles come from data
        box.setObjectName(name)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._message_boxes.append(box)
        box.finished.connect(lambda _=0, b=box: self._message_boxes.remove(b) if b in self._message_boxes else None)
        box.open()  # window-modal but never blocks the event loop
        return box

    def open_link(self, url: QUrl) -> bool:
        """Open http/https links in the system browser; ignore every other scheme."""
        if url.scheme().lower() not in ("http", "https"):
            return False
        return QDesktopServices.openUrl(url)

    def show_shortcuts(self) -> None:
        self._shortcuts = ShortcutsDialog(self, self.shortcut_actions)
        self._shortcuts.show()

    def show_about(self) -> None:
        from reader import __version__

        self.show_message("About Reader",
                          f"Reader {__version__}\nRead, triage and annotate research-paper abstracts.\n"
                          f"Library: {self.library.paths.root}", QMessageBox.Icon.Information, "aboutBox")

    # ------------------------------------------------------------------ closing
    def flush(self, timeout: float = 30.0) -> None:
        """Save what is being typed and wait for every queued write (blocks the GUI thread)."""
        self.pane.commit_edits()
        self.runner.drain(timeout)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self._closing:
            event.accept()
            return
        self.pane.commit_title()  # notes: save_notes_on_quit below, synchronously
        for task in list(self._tasks):
            task.cancel()  # an import/sync in progress stops between batches
        try:
            self.runner.drain(60.0)
        except Exception as exc:  # noqa: BLE001 - never keep the user from quitting
            sys.stderr.write(f"reader: waiting for pending writes failed: {exc}\n")
        # The results of those writes reach the pane only through the event loop, which is
        # ending: write every note not confirmed stored once more, synchronously.
        recovered = self.save_notes_on_quit()
        self._closing = True
        self._save_settings()
        self.runner.shutdown(wait=True)
        for box in list(self._message_boxes):
            box.close()
        if recovered:
            self.tell_recovered(recovered)
        event.accept()

    def tell_recovered(self, paths: list[Path]) -> None:
        """Quitting with notes that could not be stored: say where they are (blocks unless in tests)."""
        self.recovered_notes = paths
        text = (f"{len(paths)} note{'s' if len(paths) != 1 else ''} could not be saved to the library "
                f"and {'were' if len(paths) != 1 else 'was'} written to:\n\n{paths[0].parent}\n\n"
                "Paste them back into the papers' notes when the library is writable again.")
        if os.environ.get(NO_DIALOG_ENV) or QApplication.platformName() == "offscreen":
            return
        box = QMessageBox(QMessageBox.Icon.Warning, "Reader — notes recovered", text, QMessageBox.StandardButton.Ok)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.exec()


def write_recovered_note(root: Path, paper_id: str, text: str) -> Path | None:
    """Save a note that could not be stored to `root/recovered-notes/<paper id>.md` (None if even that fails)."""
    folder = Path(root) / RECOVERED_NOTES_DIR
    path = folder / f"{paper_id}.md"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.read_text(encoding="utf-8") != text:
            stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
            path = folder / f"{paper_id}-{stamp}.md"  # never overwrite an earlier recovery
        path.write_text(text, encoding="utf-8")
    except OSError:
        return None
    return path
