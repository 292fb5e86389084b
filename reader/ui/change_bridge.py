"""The one Qt bridge from the Library's change events to the widgets, and the outside-change poll.

The Library publishes `Changes` after each committed transaction, on the thread that wrote
(the runner's writer, mostly). `ChangeBridge` subscribes once and re-emits them as a Qt signal
on the GUI thread, a burst that queued up meanwhile merged into one (one redraw). It also polls
`Library.check_outside()` on a timer, through the task runner, so a commit by another process
(the CLI, a second window, a script) reaches the same signal within a poll interval (the library
publishes what the look found on its bus); when idle that is one `PRAGMA data_version` per tick.
"""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from reader.events import OUTSIDE, Change, Changes
from reader.library import Library

from .tasks import TaskRunner

OUTSIDE_POLL_MS = 500  # outside changes show within 2 s: poll + re-list + repaint
OUTSIDE_LANES = 2  # looks under way at once (see poll)
log = logging.getLogger(__name__)


def merge_changes(items: list[Changes]) -> Changes:
    """One `Changes` for a burst: the union of ids (empty, "maybe all", wins) and of kinds."""
    if len(items) == 1:
        return items[0]
    unknown = any(not c.ids for c in items)
    ids = frozenset() if unknown else frozenset().union(*(c.ids for c in items))
    kinds = frozenset().union(*(c.kinds for c in items))
    origins = {c.origin for c in items}
    # Mixed origins: "outside" wins, so the window guards a note being typed.
    origin = origins.pop() if len(origins) == 1 else (OUTSIDE if OUTSIDE in origins else items[0].origin)
    return Changes(ids=ids, kinds=kinds, origin=origin)


class ChangeBridge(QObject):
    """`changed(Changes)` on the GUI thread for every committed write, local or from another process."""

    changed = Signal(object)  # Changes
    outsideIndexed = Signal()  # the index took up another process's changes
    _arrived = Signal(object)  # from any thread; queued to the bridge's (GUI) thread

    def __init__(self, library: Library, runner: TaskRunner, parent: QObject | None = None, *,
                 poll_ms: int = OUTSIDE_POLL_MS) -> None:
        super().__init__(parent)
        self._library = library
        self._runner = runner
        self._lock = threading.Lock()
        self._pending: list[Changes] = []
        self._polling: set[int] = set()  # the lanes with a look under way
        self._closed = False
        self.delivered = 0  # merged deliveries so far (tests and the benchmark wait on it)
        # Changes are numbered as they are published (on any thread): `published` is the last
        # number given, `delivered_upto` the last one `changed` has delivered. A job that read
        # `published` when it started sees every change up to that number (it was committed
        # before it was published): a screen compares the two to skip a refetch that would
        # read nothing new (triage: one refetch per decision, not one per write).
        self.published = 0
        self.delivered_upto = 0
        self.outside_seen = 0  # outside changes the poll found
        self._arrived.connect(self._flush)
        self._unsubscribe = library.changes.subscribe(self._publish)
        self._poll_timer = QTimer(self)
        self._poll_timer.setInterval(poll_ms)
        self._poll_timer.timeout.connect(self.poll)
        if poll_ms > 0:
            self._poll_timer.start()

    def _publish(self, changes: Changes) -> None:
        """On the writing thread: queue for the GUI thread (never touches a widget here)."""
        with self._lock:
            if self._closed:
                return
            self._pending.append(changes)
            self.published += 1
        self._arrived.emit(None)

    @Slot(object)
    def _flush(self, _: object = None) -> None:
        """Deliver everything published so far, at the first queued arrival: before the result of
        the write that published it reaches its caller (the runner's delivery is queued after
        it), so a done-callback sees widgets that already show the write. Arrivals drained by an
        earlier flush deliver nothing: a burst of writes is one redraw."""
        with self._lock:
            items, self._pending = self._pending, []
            upto = self.published
        if not items or self._closed:
            return
        self.delivered += 1
        self.delivered_upto = upto
        merged = merge_changes(items)
        self.changed.emit(merged)
        if any(Change.INDEX in c.kinds and c.origin == OUTSIDE for c in items):
            # The index holds another process's changes now: perhaps a look after the one that
            # found its store commit (it had not committed its index yet), so said here, not there.
            self.outsideIndexed.emit()

    # ------------------------------------------------------------------ other processes
    def poll(self) -> None:
        """Ask the library, off the GUI thread, whether another process committed since the last look.

        Two looks may be under way: one that found a change publishes it at once but then waits
        for the index (another process may hold its lock for seconds); the next tick's look
        must not wait behind it."""
        if self._closed:
            return
        lane = next((i for i in range(OUTSIDE_LANES) if i not in self._polling), None)
        if lane is None:
            return  # both looks are still under way
        self._polling.add(lane)
        self._runner.read(f"outside-{lane}", self._library.check_outside,
                          lambda found: self._outside_done(lane, found),
                          lambda exc: self._outside_failed(lane, exc))

    def _outside_done(self, lane: int, found: Changes | None) -> None:
        # check_outside published what it found on the bus: it reaches `changed` like a local write.
        self._polling.discard(lane)
        if found is not None and not self._closed:
            self.outside_seen += 1

    def _outside_failed(self, lane: int, exc: BaseException) -> None:
        # A locked or busy database is retried on the next tick; nothing was written.
        self._polling.discard(lane)
        log.warning("checking for outside changes failed: %s", exc)

    def set_poll_interval(self, ms: int) -> None:
        """Look for outside changes every `ms` (0: stop looking)."""
        self._poll_timer.stop()
        if ms > 0:
            self._poll_timer.setInterval(ms)
            self._poll_timer.start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._pending.clear()
        self._poll_timer.stop()
        self._unsubscribe()
