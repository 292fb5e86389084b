"""Triage refetches what is on screen once per decision, not once per write (issue 31).

X stores the read marks of the papers passed and then its own decision: two writes whose
changes usually reach the window one after the other. A refetch queued on the writer and not
started yet, or started after a change was published (ChangeBridge numbers them, and a change
is committed before it is published), reads that change anyway: no second one is queued.

Back in the library, a refetch still queued is not run: its cards, counts and tags are for a
page no longer shown, and opening triage again reads them all afresh. Run, it read the starred
and tagged papers of the whole library beside the list's catch-up and the sidebar's counts: at
100k papers, beside two busy processes, the window stalled 105-162 ms coming back."""

from __future__ import annotations

from collections.abc import Callable

from ..change_bridge import ChangeBridge


class Refetch:
    """A refetch queued on the writer: the number of the last change published when it
    started (None: not started yet), and how many changes it took in without one of their own."""

    __slots__ = ("folded", "started", "visit")

    def __init__(self, visit: int = 0) -> None:
        self.started: int | None = None
        self.folded = 0
        self.visit = visit  # the visit of the triage page it was queued in


class RefetchGate:
    """Decides, for each change delivered, whether triage queues a refetch."""

    def __init__(self, bridge: ChangeBridge) -> None:
        self.bridge = bridge
        self.last: Refetch | None = None  # the newest refetch queued
        self.queued = 0  # refetches queued, and changes folded into one (tests count them)
        self.folded = 0
        self.visit = 0  # bumped each time triage is left (GUI thread); refetch jobs read it
        self.skipped = 0  # refetches not run: triage was left before they started (tests count them)

    def left(self) -> None:
        """Triage is no longer on screen: refetches queued until now are not run."""
        self.visit += 1

    def stale(self, mark: Refetch) -> bool:
        """On the writer, before reading: True when triage was left since `mark` was queued."""
        if mark.visit != self.visit:
            self.skipped += 1
            return True
        return False

    def next(self) -> Refetch | None:
        """A refetch to queue for the change just delivered, or None: one reads it already."""
        last = self.last
        if last is not None and (last.started is None or last.started >= self.bridge.delivered_upto):
            last.folded += 1
            self.folded += 1
            return None
        self.last = mark = Refetch(self.visit)
        self.queued += 1
        return mark

    def start(self, mark: Refetch) -> None:
        """On the writer, as the refetch begins reading: every change numbered so far is in."""
        mark.started = self.bridge.published

    def dropped(self, mark: Refetch) -> bool:
        """The refetch's result was not used (or it failed): True when changes it took in must
        be asked for again."""
        if self.last is mark:
            self.last = None
        return mark.folded > 0

    def failing(self, mark: Refetch, on_error: Callable[[BaseException], object]) -> Callable[[BaseException], None]:
        """The refetch's error callback: it is forgotten, the error reported."""

        def failed(exc: BaseException) -> None:
            self.dropped(mark)
            on_error(exc)

        return failed
