"""The triage queue: paper ids in order, the position, and the seen prefix whose order is frozen."""

from __future__ import annotations

from collections.abc import Collection, Sequence

LISTED, UNREAD_FIRST, BEST_FIRST = "listed", "unread_first", "best_first"
ORDERS = (LISTED, UNREAD_FIRST, BEST_FIRST)
ORDER_LABELS = {LISTED: "As listed", UNREAD_FIRST: "Unread first, newest first", BEST_FIRST: "Best first"}


def order_unread_first(ids: Sequence[str], unread: Collection[str], newest_first: Sequence[str]) -> list[str]:
    """`ids` with the unread ones first, each part newest first (`newest_first`: ids by date added)."""
    rank = {pid: n for n, pid in enumerate(newest_first)}
    last = len(rank)
    return sorted(ids, key=lambda pid: (pid not in unread, rank.get(pid, last)))


def full_tail(ranked: Sequence[str], tail: Sequence[str]) -> list[str]:
    """`tail` in `ranked`'s order, tail papers the ranking lacks after them in their old order."""
    if len(ranked) == len(tail) and list(ranked) == list(tail):
        return list(tail)  # nothing moved (best first without stars): skip the pass
    members = set(tail)
    placed: set[str] = set()
    new: list[str] = []
    for pid in ranked:
        if pid in members and pid not in placed:
            placed.add(pid)
            new.append(pid)
    if len(new) != len(tail):
        new.extend(pid for pid in tail if pid not in placed)
    return new


class TriageQueue:
    """Ids only (rows are fetched lazily), so 50,000 papers cost a list of strings.

    `seen` counts the ids from the front that have been on screen: their order never changes,
    so re-ranking touches only the tail and the paper on screen never jumps.
    """

    def __init__(self, ids: Sequence[str], *, position: int = 0, seen: int = 0, order: str = LISTED) -> None:
        self.ids = list(dict.fromkeys(ids))
        self.order = order if order in ORDERS else LISTED
        self.position = min(max(position, 0), max(len(self.ids) - 1, 0))
        self.seen = min(max(seen, self.position + 1 if self.ids else 0), len(self.ids))
        self.finished = False  # moved past the last paper
        self.version = 0  # bumped whenever the order of the ids changes

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def current(self) -> str | None:
        return self.ids[self.position] if self.ids and not self.finished else None

    def move(self, step: int) -> bool:
        """Go `step` papers on; past the end the queue is finished. True when something changed."""
        if not self.ids:
            return False
        if self.finished:
            if step >= 0:
                return False
            self.finished = False  # back from the summary to the last paper
            step += 1
            if step == 0:
                return True
        target = self.position + step
        if target >= len(self.ids):
            self.position = len(self.ids) - 1
            self.finished = True
            self.seen = len(self.ids)
            return True
        target = max(target, 0)
        if target == self.position:
            return False
        self.position = target
        self.seen = max(self.seen, target + 1)
        return True

    def go_to(self, pid: str) -> bool:
        """Show `pid` again if it is among the seen papers (undo goes back to its paper)."""
        try:
            index = self.ids.index(pid, 0, self.seen)
        except ValueError:
            return False
        self.position, self.finished = index, False
        return True

    def upcoming(self, count: int) -> list[str]:
        return self.ids[self.position + 1 : self.position + 1 + count]

    def around(self, before: int, after: int) -> list[str]:
        return self.ids[max(self.position - before, 0) : self.position + 1 + after]

    def tail(self) -> list[str]:
        """The papers not yet on screen, in their current order."""
        return self.ids[self.seen :]

    def apply_tail(self, seen_then: int, version: int, new_tail: list[str]) -> None:
        """Install `full_tail(...)` computed on a worker from the tail at (`seen_then`, `version`).

        Only the papers seen since are taken out (a few list removals in C), so a 50,000-paper
        tail is swapped without a Python-level pass on the GUI thread."""
        if version != self.version or seen_then > self.seen:
            self.reorder_tail(new_tail)  # the queue changed otherwise meanwhile: the general path
            return
        newly_seen = self.ids[seen_then : self.seen]
        if len(newly_seen) > 64:
            gone = set(newly_seen)
            new_tail = [pid for pid in new_tail if pid not in gone]
        else:
            for pid in newly_seen:
                new_tail.remove(pid)
        self.ids[self.seen :] = new_tail
        self.version += 1

    def reorder_tail(self, ranked: Sequence[str]) -> None:
        """Put the unseen tail in `ranked`'s order (a ranking of an earlier tail).

        Papers seen since the ranking started keep their place; tail papers the ranking lacks
        follow in their old order."""
        self.ids[self.seen :] = full_tail(ranked, self.ids[self.seen :])
        self.version += 1

    def remove(self, gone: Collection[str]) -> None:
        """Drop deleted papers, keeping the paper on screen (or its successor) current."""
        if not gone:
            return
        keep_from = self.position
        while keep_from < len(self.ids) and self.ids[keep_from] in gone:
            keep_from += 1
        anchor = self.ids[keep_from] if keep_from < len(self.ids) else None
        seen_left = sum(1 for pid in self.ids[: self.seen] if pid not in gone)
        self.ids = [pid for pid in self.ids if pid not in gone]
        self.version += 1
        self.seen = seen_left
        if anchor is not None:
            self.position = self.ids.index(anchor)
            self.seen = max(self.seen, self.position + 1)
        else:
            self.position = max(len(self.ids) - 1, 0)
            self.finished = bool(self.ids) or self.finished
