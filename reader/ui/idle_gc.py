"""Python's full cycle collections while the user is idle, not in the middle of a step.

A full (generation 2) collection walks every container the process holds: at 100k papers the
index's lexicons and id lists, the list's rows and Qt's wrappers. It holds the GIL throughout,
whichever thread set it off, so the GUI thread waits for it: three in a first triage session
at 100k took 35-72 ms each on a quiet machine (twice that beside two busy processes), set off by
triage's open reading 100k rows on the writer. While the window is open the automatic full
collections are off (young generations are still collected as they fill, on any thread) and one
runs on the GUI thread once the user has been idle IDLE_S, at most every EVERY_S, or after
LONGEST_S whatever the user does, so garbage in cycles is still freed. That one still holds the
GUI thread (127 ms at 100k after 775 typed keys): it is timed for when nobody is at the keys.

Only when collections happen changes, never what they free."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from .tasks import InputWatch

# A threshold the count of young collections never reaches: no automatic full collection.
NEVER = 1 << 30
CHECK_MS = 2000  # how often the idle state is looked at
IDLE_S = 5.0  # no key, step or decision for this long: the user is away for a moment
EVERY_S = 30.0  # at most one idle collection this often
LONGEST_S = 600.0  # a full collection at least this often, idle or not


class IdleCollector(QObject):
    """Owns the process's full collections while installed (one window at a time: a second
    install or the window's close gives the thresholds back as they were)."""

    installed: IdleCollector | None = None

    def __init__(self, watch: InputWatch, parent: QObject | None = None, *,
                 clock: Callable[[], float] = time.monotonic,
                 collect: Callable[[int], object] = gc.collect) -> None:
        super().__init__(parent)
        self.setObjectName("idleCollector")
        self._watch, self._clock, self._collect = watch, clock, collect
        self._saved: tuple[int, ...] | None = None
        self.last = clock()
        self.timer = QTimer(self)
        self.timer.setInterval(CHECK_MS)
        self.timer.timeout.connect(self.tick)

    def install(self) -> None:
        previous = IdleCollector.installed
        if previous is not None and previous is not self:
            previous.uninstall()
        if self._saved is None:
            self._saved = gc.get_threshold()
            young, middle = self._saved[0], self._saved[1]
            gc.set_threshold(young, middle, NEVER)
        IdleCollector.installed = self
        self.last = self._clock()
        self.timer.start()

    def uninstall(self) -> None:
        self.timer.stop()
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
        if IdleCollector.installed is self:
            IdleCollector.installed = None

    def tick(self) -> bool:
        """On the GUI thread (the timer): collect if due; True if it did."""
        now = self._clock()
        since = now - self.last
        idle = self._watch.idle_for() >= IDLE_S
        if (idle and since >= EVERY_S) or since >= LONGEST_S:
            self._collect(2)
            self.last = self._clock()
            return True
        return False
