"""Triage refetches what is on screen once per decision, not once per write (issue 31).

X stores the read marks of the papers passed and then its own decision: two writes whose
changes usually reach the window one after the other. A refetch queued on the writer and not
started yet, or started after a change was published (ChangeBridge numbers them, and a change
is committed before it is published), reads that change anyway: no second one is queued."""

from __future__ import annotations

from collections.abc import Callable

from ..change_bridge import ChangeBridge


class Refetch:
    """A refetch queued on the writer: the number of the last change published when it
    started (None: not started yet), and how many changes it took in without one of their own."""

    __slots__ = ("folded", "started")

    def __init__(self) -> None:
        self.started: int | None = None
        self.folded = 0


class RefetchGate:
    """Decides, for each change delivered, whether triage queues a refetch."""

    def __init__(self, bridge: ChangeBridge) -> None:
        self.bridge = bridge
        self.last: Refetch | None = None  # the newest refetch queued
        self.queued = 0  # refetches queued, and changes folded into one (tests count them)
        self.folded = 0

    def next(self) -> Refetch | None:
        """A refetch to queue for the change just delivered, or None: one reads it already."""
        last = self.last
        if last is not None and (last.started is None or last.started >= self.bridge.delivered_upto):
            last.folded += 1
            self.folded += 1
            return None
        self.last = mark = Refetch()
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
