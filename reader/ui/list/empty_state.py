"""The empty state inside the paper table: when a list has no rows, say what was searched,
offer "did you mean …" with its hit count and a one-click way back; and while the search
index catches up, say that results may be incomplete.

Real widgets (a QLabel and buttons, children of the table's viewport), so assistive technology
reads them like any other text; the table itself holds no rows."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QAbstractItemModel, QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
)

from reader.library import Library, View
from reader.plural import count_noun

from ..tasks import TaskRunner
from ..widgets.status_bar import StatusBar
from .sidebar import Sidebar

INDEX_TASK_LABELS = ("Indexing", "Rebuilding the index")
VIEW_NAMES = {"unread": "Unread", "starred": "Starred", "notes": "With notes"}
CATCHING_UP = "The search index is still being built: results may be incomplete."


class EmptyState(QFrame):
    """Centred in the table's viewport while the table has no rows."""

    suggestionChosen = Signal(str)
    backRequested = Signal()

    def __init__(self, table: QTableView) -> None:
        super().__init__(table.viewport())
        self.setObjectName("emptyState")
        self.setAccessibleName("No papers")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAutoFillBackground(False)
        self.messageLabel = QLabel(self)
        self.messageLabel.setObjectName("emptyMessage")
        self.messageLabel.setTextFormat(Qt.TextFormat.PlainText)  # the query comes from the user
        self.messageLabel.setWordWrap(True)
        self.messageLabel.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.messageLabel.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.suggestionButton = QPushButton(self)
        self.suggestionButton.setObjectName("emptySuggestion")
        self.suggestionButton.clicked.connect(self._suggestion_clicked)
        self.backButton = QPushButton(self)
        self.backButton.setObjectName("emptyBack")
        self.backButton.clicked.connect(self.backRequested)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.suggestionButton)
        buttons.addWidget(self.backButton)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 24, 16, 16)
        layout.addWidget(self.messageLabel)
        layout.addLayout(buttons)
        layout.addStretch(1)
        self.suggestion: str | None = None
        self._table = table
        table.viewport().installEventFilter(self)
        self.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._fit()
        return False

    def _fit(self) -> None:
        self.setGeometry(self._table.viewport().rect())

    def show_message(self, message: str, back: str | None) -> None:
        """Show `message`, with a way back labelled `back` (None: no button)."""
        self.messageLabel.setText(message)
        self.messageLabel.setAccessibleName(message)
        self.setAccessibleDescription(message)
        self.backButton.setText(back or "")
        self.backButton.setAccessibleName(back or "")
        self.backButton.setVisible(bool(back))
        self.show_suggestion(None, None)
        self._fit()
        self.show()
        self.raise_()

    def show_suggestion(self, suggestion: str | None, hits: int | None) -> None:
        """ "Did you mean …" as a button; `hits` None while the count is not known yet."""
        self.suggestion = suggestion
        if not suggestion:
            self.suggestionButton.hide()
            return
        count = f" ({count_noun(hits, 'paper')})" if hits is not None else ""
        text = f"Did you mean “{suggestion}”{count}?"
        self.suggestionButton.setText(text.replace("&", "&&"))
        self.suggestionButton.setAccessibleName(text)
        self.suggestionButton.show()

    def _suggestion_clicked(self) -> None:
        if self.suggestion:
            self.suggestionChosen.emit(self.suggestion)


class IndexState(Protocol):
    """What tells whether the index is catching up: the window's flag and its running tasks."""

    @property
    def index_ready(self) -> bool: ...

    @property
    def status(self) -> StatusBar: ...


def index_catching_up(w: IndexState) -> bool:
    """The index is not (yet) in step with the store: searches may miss papers."""
    return not w.index_ready or any(t.label in INDEX_TASK_LABELS for t in w.status.tasks)


class QueryBar(Protocol):
    """The search bar's query (search_bar.SearchBar; it imports this module, so not by name)."""

    def query(self) -> str: ...
    def clear_silently(self) -> None: ...


class ListHost(IndexState, Protocol):
    """What the empty state reads of the window's list and search, and the ways back it takes."""

    @property
    def model(self) -> QAbstractItemModel: ...
    @property
    def view(self) -> View: ...
    @property
    def library(self) -> Library: ...
    @property
    def runner(self) -> TaskRunner: ...
    @property
    def table(self) -> QTableView: ...
    @property
    def searchBar(self) -> QueryBar: ...  # the window's attribute names
    @property
    def searchBox(self) -> QLineEdit: ...
    @property
    def sidebar(self) -> Sidebar: ...
    def refresh_list(self) -> None: ...
    def focus_table(self) -> None: ...
    def set_view(self, view: View) -> None: ...


def view_name(view: View) -> str:
    if view.kind in VIEW_NAMES:
        return VIEW_NAMES[view.kind]
    if view.kind in ("collection", "tag"):
        return f"“{view.value}”"
    if view.kind == "venue":
        return "this venue"
    if view.ranked:
        return "papers alike"
    return ""


def empty_message(w: IndexState, query: str, view: View) -> tuple[str, str | None]:
    """The message for an empty list and the label of its way back (None: none)."""
    where = view_name(view)
    catching_up = index_catching_up(w)
    if query:
        text = f"No papers match “{query}”" + (f" in {where}." if where else ".")
        if catching_up:
            text += "\n" + CATCHING_UP
        return text, "Clear the search"
    if where:
        return f"No papers in {where}.", "Show all papers"
    return ("The library is empty.\nImport papers with File → Import… (Ctrl+I), or drop files here.",
            None)


def update(w: ListHost, state: EmptyState, query: str) -> None:
    """After a listing: show the empty state (and look for a suggestion) or hide it."""
    if w.model.rowCount():
        state.hide()
        return
    message, back = empty_message(w, query, w.view)
    state.show_message(message, back)
    if query and w.index_ready:
        lib, view = w.library, w.view

        def compute() -> tuple[str, int] | None:
            return suggest(lib, query, view)

        def done(found: tuple[str, int] | None) -> None:
            if found and not w.model.rowCount() and w.searchBar.query() == query:
                state.show_suggestion(*found)

        w.runner.read("suggest", compute, done, lambda _exc: None)


def suggest(lib, query: str, view: View) -> tuple[str, int] | None:  # a Library
    """A corrected query with its hit count (off the GUI thread), or None.

    Library.suggest (every word corrected at once, with its count) where the library has it;
    else the index's did-you-mean, counted here in `view`."""
    library_suggest = getattr(lib, "suggest", None)
    if callable(library_suggest):
        found = library_suggest(query)
        return (found.text, found.hits) if found is not None and found.hits else None
    suggestion = lib.index.suggest(query)
    if not suggestion or suggestion.strip().casefold() == query.strip().casefold():
        return None
    hits = lib.search(suggestion, view=view, limit=1).total
    return (suggestion, hits) if hits else None


def install(w: ListHost) -> EmptyState:
    """The window's empty state, wired: a suggestion searches it, the way back clears the
    search (or, with no query, shows the whole library)."""
    state = EmptyState(w.table)

    def search_for(query: str) -> None:
        w.searchBox.setText(query)  # a finished query: setText leaves it unmodified
        w.refresh_list()
        w.focus_table()

    def back() -> None:
        if w.searchBar.query():
            w.searchBar.clear_silently()
            w.refresh_list()
        else:
            w.sidebar.show_view(View())
            w.set_view(View())
        w.focus_table()

    state.suggestionChosen.connect(search_for)
    state.backRequested.connect(back)
    return state
