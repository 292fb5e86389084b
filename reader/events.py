"""Change events: what a committed write changed, published to whoever shows or derives it.

The core publishes a `Changes` after each committed transaction (the library's own writes,
origin "local" or the initiator's tag) and when it notices another process's commits
(`Library.check_outside`, origin "outside"). Subscribers (the window's widgets, the vault
scheduler, the triage queue) refresh themselves from it. No Qt here: callbacks run on the
thread that committed, and the UI marshals them to its own thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

__all__ = ["LOCAL", "OUTSIDE", "Change", "ChangeBus", "Changes", "Subscriber"]

log = logging.getLogger(__name__)

LOCAL = "local"  # a write made by this process
OUTSIDE = "outside"  # commits by another process (the CLI, a second window, a script)


class Change(StrEnum):
    """What kind of thing changed."""

    STAR = "star"
    READ = "read"
    SKIP = "skip"  # "not for me" set or cleared
    TAG = "tag"
    NOTE = "note"
    HIGHLIGHT = "highlight"
    TITLE = "title"
    CITEKEY = "citekey"  # a paper's citation key
    IMPORT = "import"
    DELETE = "delete"
    SEARCHES = "searches"
    VAULT = "vault"
    FEEDS = "feeds"  # a feed followed or dropped, or a feed update stored (reader/sources)
    GROUP = "group"  # the reading group's merged decisions (reader.group)
    INDEX = "index"
    OUTSIDE = "outside"


@dataclass(frozen=True)
class Changes:
    """One committed transaction's changes (or, from outside, everything since the last look).

    `ids`: the papers touched; an empty set means "unknown / possibly all" (a subscriber
    then refreshes everything it shows)."""

    ids: frozenset[str]
    kinds: frozenset[Change]
    origin: str = LOCAL

    @classmethod
    def of(cls, kinds: Change | Iterable[Change], ids: Iterable[str] = (), origin: str = LOCAL) -> Changes:
        """Changes from plain iterables: `Changes.of(Change.STAR, ["a1"])`."""
        kinds = (kinds,) if isinstance(kinds, Change) else kinds
        return cls(frozenset(ids), frozenset(kinds), origin)

    @property
    def everything(self) -> bool:
        """True when the touched papers are unknown (refresh all)."""
        return not self.ids

    def touches(self, paper_id: str) -> bool:
        """Whether this change may concern `paper_id` (always, when the ids are unknown)."""
        return not self.ids or paper_id in self.ids

    def merged(self, other: Changes) -> Changes:
        """Both changes as one (for a subscriber that coalesces bursts); unknown ids win,
        and mixed origins keep this one's."""
        ids = frozenset() if not self.ids or not other.ids else self.ids | other.ids
        return Changes(ids, self.kinds | other.kinds, self.origin)


Subscriber = Callable[[Changes], None]


class ChangeBus:
    """Synchronous publish/subscribe of `Changes`; safe to use from any thread.

    A subscriber's exception is logged and never reaches the publisher: the write it reports
    has committed, and a committed write is never reported as failed."""

    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(changes)` on every publish; returns a function that unsubscribes."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                # by identity: two equal bound methods are still two subscriptions
                for i, cb in enumerate(self._subscribers):
                    if cb is callback:
                        del self._subscribers[i]
                        return

        return unsubscribe

    def publish(self, changes: Changes) -> None:
        """Call every subscriber, in subscription order, on this thread."""
        with self._lock:
            subscribers = list(self._subscribers)  # a callback may (un)subscribe meanwhile
        for callback in subscribers:
            try:
                callback(changes)
            except Exception:
                log.exception("change subscriber %r failed on %s", callback, changes)

    def __len__(self) -> int:
        with self._lock:
            return len(self._subscribers)
