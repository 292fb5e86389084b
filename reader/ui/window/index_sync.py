"""Keeping the search index in step, off the GUI thread: catch up at start and after imports, merge, rebuild."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer

from ..context import OpContext
from ..tasks import Task
from ..widgets.status_bar import StatusBar

MAINTAIN_INTERVAL_MS = 60_000
MAINTAIN_IDLE_S = 3.0  # the user paused this long: merge now
MAINTAIN_MOST_SKIPS = 5  # ticks skipped at most while the user is busy
# Modules the first triage and map open need, left out of the start (tests/ui/test_start_imports):
# imported on the index's worker once it is warm, so the first open does not import them on
# the GUI thread (~150 ms of it for triage at 100k: a stall beside busy processes).
PRELOAD = ("numpy", "reader.store.group_triage", "reader.triage.source", "reader.triage.best",
           "reader.triage.interests", "reader.triage.learner", "reader.map.view", "reader.map.marks",
           "reader.map.mapfile", "reader.map.layout")


def preload(modules: tuple[str, ...], pause: Callable[[], object]) -> None:
    """Import `modules` one at a time, each after `pause` (which waits while the user types or steps)."""
    from importlib import import_module

    from reader.preread import preread

    for name in modules:
        pause()
        preread(name.partition(".")[0])  # its libraries read first, letting the GIL go
        import_module(name)


class IndexSync(QObject):
    """Runs the index jobs on the runner's background thread (the writer stays free for edits).

    `ready` is True once the index has caught up at least once; `on_ready` runs each time a
    catch-up or rebuild finished (the window re-lists a search and the related papers)."""

    def __init__(self, ctx: OpContext, status: StatusBar, on_ready: Callable[[], None]) -> None:
        super().__init__(ctx.parent)
        self.ctx = ctx
        self.status = status
        self.ready = False
        self.warmed = False  # the index's warm-up and PRELOAD done
        self._on_ready = on_ready
        # Single-paper index updates leave small segments; merge them now and then.
        self._maintain_skipped = 0
        self._maintain_timer = QTimer(self)
        self._maintain_timer.setInterval(MAINTAIN_INTERVAL_MS)
        self._maintain_timer.timeout.connect(self._maintain)
        self._maintain_timer.start()

    def start(self) -> None:
        """At start-up: catch up with what changed while the index was closed (often nothing)."""
        if self.ctx.is_closing():
            return
        # Asked on the index's worker: the question opens the index (0.6 s of the GUI thread at
        # 100k on a busy machine, right after the first paint), and Whoosh is first imported
        # there, never before the first list. The warm-up's steps wait while the user steps or
        # types (typos.pause, reader/search/index.py's warm).
        lib, hook = self.ctx.library, self.ctx.runner.input_watch.wait_for_idle

        def needs_sync() -> bool:
            from reader.search import typos

            typos.set_pause(hook)
            return lib.index_needs_sync()

        def checked(needed: bool) -> None:
            if self.ctx.is_closing():
                return
            if needed:
                self.sync_in_background()
            else:
                self._synced(None)

        self.ctx.runner.background(needs_sync, checked, self.ctx.on_error)

    def sync_in_background(self) -> Task | None:
        ctx = self.ctx
        if ctx.is_closing():
            return None
        lib = ctx.library
        return self.status.track(ctx.runner.background(
            lambda t: lib.sync_index(t.progress, t.cancelled), self._synced, ctx.on_error,
            label="Indexing", with_task=True))

    def reindex(self) -> None:
        """File → Rebuild search index."""
        ctx, lib = self.ctx, self.ctx.library
        self.status.track(ctx.runner.background(
            lambda t: lib.reindex(t.progress, t.cancelled), self._synced, ctx.on_error,
            label="Rebuilding the index", with_task=True))

    def _synced(self, _: Any) -> None:
        self.ready = True
        lib, hook = self.ctx.library, self.ctx.runner.input_watch.wait_for_idle

        def warm() -> None:
            lib.warm_search()
            preload(PRELOAD, hook)

        self.ctx.runner.read("warm", warm, self._warmed, lambda _: None)
        self._on_ready()

    def _warmed(self, _: Any) -> None:
        self.warmed = True

    def _maintain(self) -> None:
        """Merge small segments, once the user has paused: a merge is pure-Python Whoosh on the
        index's worker for up to seconds at 100k (typing beside one stalled 100-200 ms); under
        endless activity it still runs every MAINTAIN_MOST_SKIPS ticks."""
        ctx = self.ctx
        if ctx.is_closing() or not self.ready:
            return
        if ctx.runner.input_watch.idle_for() < MAINTAIN_IDLE_S and self._maintain_skipped < MAINTAIN_MOST_SKIPS:
            self._maintain_skipped += 1
            return
        self._maintain_skipped = 0
        ctx.runner.background(ctx.library.maintain_index, None, ctx.on_error)
