"""Keeping the search index in step, off the GUI thread: catch up at start and after imports, merge, rebuild."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer

from .tasks import Task

if TYPE_CHECKING:
    from .main_window import MainWindow

MAINTAIN_INTERVAL_MS = 60_000


class IndexSync(QObject):
    """Runs the index jobs on the runner's background thread (the writer stays free for edits)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._main = window
        # Single-paper index updates leave small segments; merge them now and then.
        self._maintain_timer = QTimer(self)
        self._maintain_timer.setInterval(MAINTAIN_INTERVAL_MS)
        self._maintain_timer.timeout.connect(self._maintain)
        self._maintain_timer.start()

    def start(self) -> None:
        """At start-up: catch up with what changed while the index was closed (often nothing)."""
        if self._main.closing:
            return
        if not self._main.library.index_needs_sync():
            self._synced(None)
            return
        self.sync_in_background()

    def sync_in_background(self) -> Task | None:
        w = self._main
        if w.closing:
            return None
        lib = w.library
        return w.status.track(w.runner.background(
            lambda t: lib.sync_index(t.progress, t.cancelled), self._synced, w.handle_error,
            label="Indexing", with_task=True))

    def reindex(self) -> None:
        """File → Rebuild search index."""
        w, lib = self._main, self._main.library
        w.status.track(w.runner.background(
            lambda t: lib.reindex(t.progress, t.cancelled), self._synced, w.handle_error,
            label="Rebuilding the index", with_task=True))

    def _synced(self, _: Any) -> None:
        w = self._main
        w.index_ready = True
        w.runner.read("warm", w.library.warm_search, lambda _: None, lambda _: None)
        if w.searchBar.query():
            w.refresh_list()
        if w.pane.paper_id:
            w.load_related(w.pane.paper_id)

    def _maintain(self) -> None:
        w = self._main
        if not w.closing and w.index_ready:
            w.runner.background(w.library.maintain_index, None, w.handle_error)
