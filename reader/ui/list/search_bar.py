"""The search bar: the query box (debounced, searched as you type), result count, did-you-mean,
query problems, result sorting."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QTableView, QVBoxLayout, QWidget

from reader.library import Library, View
from reader.listing import Listing, is_filter_query, list_papers
from reader.plural import count_noun
from reader.search.results import SearchResults

from ..widgets.plain import plain_label
from ..widgets.status_bar import StatusBar
from .empty_state import index_catching_up
from .model import SORT_KEYS

SEARCH_DEBOUNCE_MS = 150
FIRST_PAGE = 200  # ids a search lists at once; the table fetches the rest as the user scrolls
RESULT_SAMPLE = "888,888 results · by relevance"  # the result count's width
PLACEHOLDER = "Search  (e.g. sparse attention   tag:rl   is:starred   year:2020-2023)   — / or Ctrl+F"


class SearchHost(Protocol):
    """What the search bar reads of the window it sits in: the view, the library's sort, the header."""

    view: View
    sort_column: int
    sort_order: Qt.SortOrder

    @property
    def table(self) -> QTableView: ...

    @property
    def relevanceAction(self) -> QAction: ...  # the window's attribute name

    # Whether the index is catching up (empty_state.IndexState): then titles are matched in SQL.
    @property
    def index_ready(self) -> bool: ...

    @property
    def status(self) -> StatusBar: ...


def plain_words(query: str) -> bool:
    """A query of words only (no filters, phrases or exclusions): SQL can match it on titles."""
    return bool(query) and not any(ch in query for ch in ':"()*?') and not any(
        w.startswith("-") or w in ("AND", "OR", "NOT") for w in query.split())


class SearchBar(QWidget):
    """The query row above the table (and the query problem under it).

    While a query is typed the table sorts by relevance; a header click sorts the results by that
    column instead (`search_sort`), and View → Sort by Relevance (or a third click) goes back."""

    searchRequested = Signal()  # the query (or its sort) changed: re-list
    submitted = Signal()  # Return in the box

    def __init__(self, window: SearchHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("searchBar")
        self._main = window
        self.search_sort: tuple[int, Qt.SortOrder] | None = None  # None: by relevance
        self.searching = False
        self.listed_as_you_type = False  # how the listed query was searched (bulk actions match it)
        self._listed_key: tuple | None = None

        self.searchBox = QLineEdit(self)
        self.searchBox.setObjectName("searchBox")
        self.searchBox.setAccessibleName("Search")
        self.searchBox.setPlaceholderText(PLACEHOLDER)
        self.searchBox.setClearButtonEnabled(True)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._timer.timeout.connect(self.searchRequested)
        self.searchBox.textChanged.connect(lambda _text: self._timer.start())
        self.searchBox.returnPressed.connect(self._return_pressed)
        self.resultLabel = QLabel(self)
        self.resultLabel.setObjectName("resultLabel")
        plain_label(self.resultLabel)
        # A fixed size: a new count per keystroke must not relayout the window (a label that
        # sizes to its text asks every layout up to the window's again). A sample count's width
        # while a count is shown (wider only for a longer text), none without one (the window's
        # minimum width is not raised by an empty label).
        self._result_width = self.resultLabel.fontMetrics().horizontalAdvance(RESULT_SAMPLE) + 8
        self.resultLabel.setFixedSize(0, self.resultLabel.sizeHint().height())
        self.resultLabel.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.suggestionLabel = QLabel(self)
        self.suggestionLabel.setObjectName("suggestionLabel")
        self.suggestionLabel.setTextFormat(Qt.TextFormat.RichText)
        self.suggestionLabel.linkActivated.connect(self.accept_suggestion)
        self.suggestionLabel.hide()
        self.problemLabel = QLabel(self)
        self.problemLabel.setObjectName("problemLabel")
        plain_label(self.problemLabel)
        self.problemLabel.setStyleSheet("color: #d9534f;")
        self.problemLabel.setWordWrap(True)
        self.problemLabel.hide()

        row = QHBoxLayout()
        row.setContentsMargins(6, 6, 6, 2)
        row.addWidget(self.searchBox, 1)
        row.addWidget(self.resultLabel)
        # "Did you mean …" under the box, not beside it: beside it, at 1024 px the box shrank to
        # ~80 px and the query scrolled out of sight.
        self.suggestionLabel.setContentsMargins(8, 0, 6, 0)
        self.suggestionLabel.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(row)
        layout.addWidget(self.suggestionLabel)
        layout.addWidget(self.problemLabel)

    def query(self) -> str:
        return self.searchBox.text().strip()

    def as_you_type(self) -> bool:
        """The query is being typed: its last word is unfinished (a prefix) and a query with
        no hits gets no "did you mean". Return, a suggestion or a saved search finish it
        (setText clears QLineEdit's modified flag; a keystroke sets it)."""
        return self.searchBox.isModified()

    def _return_pressed(self) -> None:
        self.searchBox.setModified(False)
        self.submitted.emit()

    def list_job(self, lib: Library, view: View, sort: str, descending: bool, loaded: int) -> Callable[[], Listing]:
        """The listing to compute off the GUI thread for the box's query (marks it listed).

        The same list again (after a write) keeps as many ids as the table has fetched, so
        the rows the user scrolled to stay; a new query lists its first page."""
        key = self.list_key(view, sort, descending)
        query, _view, _sort, _descending, order, typing = key
        size = max(FIRST_PAGE, loaded) if key == self._listed_key else FIRST_PAGE
        self._listed_key, self.listed_as_you_type = key, typing
        catching_up = index_catching_up(self._main) and plain_words(query) and not view.ranked

        def job() -> Listing:
            found = list_papers(lib, query, view, sort, descending, search_sort=order,
                                as_you_type=typing, page_size=size)
            if catching_up and not found.ids:
                # The index is still being built: show the titles that hold the words.
                in_view = None if view.kind == "all" else set(lib.paper_ids(view))
                ids = [i for i in lib.title_matches(query, FIRST_PAGE) if in_view is None or i in in_view]
                if ids:
                    return Listing(query, found.results, ids)
            return found

        return job

    def list_key(self, view: View, sort: str, descending: bool) -> tuple:
        """What a listing is made for: (query, view) first, then its order (see
        paper_model.listing_change: a new query or view starts at the top, a new order keeps
        the selected paper)."""
        return (self.query(), view, sort, descending, self.search_sort_args(), self.as_you_type())

    @property
    def listed_key(self) -> tuple | None:
        """The key of the newest listing asked for."""
        return self._listed_key

    def stop_timer(self) -> None:
        """A re-list is starting anyway: the pending debounced one is not needed."""
        self._timer.stop()

    def clear_silently(self) -> None:
        """Empty the box without re-listing (the caller re-lists)."""
        self.searchBox.blockSignals(True)
        self.searchBox.clear()
        self.searchBox.blockSignals(False)

    # ------------------------------------------------------------------ result state
    def show_state(self, query: str, results: SearchResults | None, total: int) -> None:
        """The count of every match ("340 results · by relevance", however many rows are fetched
        yet), did-you-mean and the query's problem."""
        if not query and self._main.view.ranked:
            order = " · by similarity" if self.search_sort is None else ""
            self._show_count(f"{total:,} most alike{order}" if total else "no papers alike")
            self.suggestionLabel.hide()
            self.problemLabel.hide()
            return
        if not query or results is None:
            self._show_count("")
            self.suggestionLabel.hide()
            self.problemLabel.hide()
            return
        if total and not results.hits:  # titles matched in SQL while the index is built
            self._show_count(f"{count_noun(total, 'title match')} · index still being built")
            self.suggestionLabel.hide()
            self.problemLabel.hide()
            return
        text = count_noun(total, "result")
        if self.search_sort is None and not is_filter_query(results) and total > 1:
            text += " · by relevance"
        self._show_count(text)
        suggestion = results.suggestion
        if suggestion:  # also beside hits: typo'd words find their near words (search/typos.py)
            self.suggestionLabel.setText(f"Did you mean <a href='suggest'>{html.escape(suggestion)}</a>?")
            self.suggestionLabel.setProperty("suggestion", suggestion)
            self.suggestionLabel.show()
        else:
            self.suggestionLabel.hide()
        self.problemLabel.setText(results.problem or "")
        self.problemLabel.setVisible(bool(results.problem))

    def _show_count(self, text: str) -> None:
        label = self.resultLabel
        width = max(self._result_width, label.fontMetrics().horizontalAdvance(text) + 8) if text else 0
        if width != label.width():
            label.setFixedWidth(width)  # a text wider than the sample: one relayout
        label.setText(text)

    def accept_suggestion(self, _link: str = "") -> None:
        suggestion = self.suggestionLabel.property("suggestion")
        if suggestion:
            self.searchBox.setText(str(suggestion))  # a finished query (not modified)
            self.searchRequested.emit()

    # ------------------------------------------------------------------ sorting results
    def search_sort_args(self) -> tuple[str, bool] | None:
        """The (sort key, descending) a header click chose for the results; None: by relevance."""
        if self.search_sort is None:
            return None
        column, order = self.search_sort
        return SORT_KEYS[column], order == Qt.SortOrder.DescendingOrder

    def set_searching(self, on: bool) -> None:
        """Entering a search sorts by relevance; leaving it brings back the library's sort."""
        if on != self.searching:
            self.searching = on
            self.search_sort = None
            self.show_sort_indicator()

    def show_sort_indicator(self) -> None:
        w = self._main
        hh = w.table.horizontalHeader()
        hh.blockSignals(True)  # only show it: the list is re-queried by the caller
        try:
            # While searching, a third click on a header clears the indicator: back to relevance.
            hh.setSortIndicatorClearable(self.searching)
            if self.searching:
                column, order = self.search_sort or (-1, Qt.SortOrder.AscendingOrder)
                hh.setSortIndicator(column, order)
            else:
                hh.setSortIndicator(w.sort_column, w.sort_order)
        finally:
            hh.blockSignals(False)
        hh.viewport().update()
        w.relevanceAction.setEnabled(self.searching and self.search_sort is not None)

    def sort_by_relevance(self) -> None:
        """View → Sort by Relevance: the search's own order again."""
        if self.searching and self.search_sort is not None:
            self.search_sort = None
            self.show_sort_indicator()
            self.searchRequested.emit()

    def sort_requested(self, column: int, order: Qt.SortOrder) -> None:
        """A header click: sorts the search results, or the library when no query is typed."""
        w = self._main
        self.set_searching(bool(self.query()) or w.view.ranked)
        if self.searching:
            self.search_sort = (column, order) if column in SORT_KEYS else None
            self.show_sort_indicator()
        elif column in SORT_KEYS:
            w.sort_column, w.sort_order = column, order
        else:
            self.show_sort_indicator()
            return
        self.searchRequested.emit()
