"""What an operation may touch: a narrow context (library, undo stack, runner, parent widget) and a
snapshot of the list it acts on.

Operations (operations/, notes.py, import_export.py) take these instead of the main window, so
no module below the window imports it: the window builds one `OpContext` and hands it out, and
hands a fresh `ListScope` to each action that needs to know what is selected. What the widgets
redraw after a write is not the operation's business: they follow the Library's change events
(change_bridge.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QWidget

from reader.library import Library, View
from reader.models import Paper
from reader.search.results import SearchResults

from .tasks import TaskRunner


@dataclass(frozen=True)
class OpContext:
    """The few things every user operation needs; built once by the window."""

    library: Library
    runner: TaskRunner
    undo_stack: QUndoStack
    parent: QWidget  # dialogs open on it
    on_error: Callable[[BaseException], None]  # a failed write: a message, or the crash reporter
    notify: Callable[[str, int], None]  # a status-bar line for so many ms
    is_closing: Callable[[], bool]  # quitting: no more writes are queued


@dataclass(frozen=True)
class ListScope:
    """The list as the user sees it when an action starts: selection, the shown paper, the query.

    A bulk action on "everything selected" of a capped search covers every match, not only the
    rows fetched so far (see operations/scope.py)."""

    selected: list[str] = field(default_factory=list)
    shown: Paper | None = None  # the paper in the pane
    listed: list[str] = field(default_factory=list)  # the table's ids, fetched so far
    query: str = ""
    view: View = field(default_factory=View)
    as_you_type: bool = False  # how the listed query was searched (bulk actions match it)
    results: SearchResults | None = None
    # (starred, read) of the paper the pane is still reading (window/pane_reads.py), from its
    # row in the list: what S and R toggle from until it is shown. None: no such paper or row.
    pending_flags: tuple[bool, bool] | None = None

    @property
    def shown_id(self) -> str | None:
        return self.shown.id if self.shown is not None else None
