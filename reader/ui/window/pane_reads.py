"""The papers the library screen's pane shows, read and rendered on workers (issue 31).

J/K reaches the papers read ahead around the open one (READ_AHEAD on each side), so a step
shows a paper without touching the database. A paper not read ahead (a click far down the
list, Home/End, a step taken before the read-ahead landed, a paper selected by the map) is
read on a worker too: the pane shows its title from the list at once, nothing to edit yet,
and the paper when its read lands. The GUI thread used to read it itself: a row not in the
file cache held the window for 300-770 ms (bench_gui, 100k, a cold cache).

A change seen drops what it touched from the papers read ahead (all of them when it does not
say which) and reads them again, so that the step after a star or a tag is a step into papers
read as they are stored now.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from reader.library import Library
from reader.models import Paper
from reader.text import title_plain

from ..list.model import PaperModel
from ..paper.abstract_html import ReadAhead, read_ahead
from ..paper.pane import PaperPane
from ..tasks import TaskRunner

READ_AHEAD = 3  # papers read and rendered on a worker on each side of the open one (J/K)


class Screen(Protocol):
    """What PaneReads uses of the library screen."""

    library: Library
    runner: TaskRunner
    pane: PaperPane
    model: PaperModel
    closing: bool

    def handle_error(self, exc: BaseException) -> None: ...
    def paper_shown(self, pid: str) -> None: ...


class PaneReads:
    """What the pane shows, read off the GUI thread. `ahead`: papers read ahead and not
    changed since; `waiting`: the paper asked for whose read has not landed yet."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self.ahead: dict[str, Paper] = {}
        self.marks: dict[str, Any] = {}  # their group marks (ReadAhead.marks)
        self.epoch = 0  # changes seen (that may touch papers): a read asked before one is dropped
        self.waiting: str | None = None
        self._wait_stale = False  # a change touched the waiting paper after its read was asked
        self.reads_one = 0  # papers read on their own (not read ahead); tests count them
        # The window's first fill (LibraryScreen.start_list) reads one page of the list on the
        # GUI thread so that the first paint is a usable list; its first paper is read there too.
        self.at_start = False

    # -- showing ---------------------------------------------------------------------------
    @property
    def current(self) -> str | None:
        """The paper the user is on: the one being read for the pane, else the one it shows."""
        return self.waiting or self.screen.pane.paper_id

    def show(self, pid: str | None) -> None:
        """Show `pid` in the pane: at once when it was read ahead, else when its read lands."""
        screen = self.screen
        if pid is not None and pid == self.waiting:
            return  # being read already
        paper = self.ahead.get(pid) if pid else None
        if pid and paper is None:
            if not self.at_start:
                self._read_one(pid)
                return
            self.took(self._reader([pid])(), self.epoch, keep=True)
            paper = self.ahead.get(pid)
        self.waiting = None
        pane = screen.pane
        if paper is not None and paper.id in self.marks:
            pane.set_paper(paper, marks=self.marks[paper.id])  # no group query here
        else:
            pane.set_paper(paper)
        if paper:
            screen.paper_shown(paper.id)
            self.read_around(paper.id)

    def _read_one(self, pid: str) -> None:
        screen = self.screen
        self.waiting, self._wait_stale = pid, False
        self.reads_one += 1
        cached = self._row(pid)
        screen.pane.show_pending(title_plain(cached.title or "") if cached is not None else "")
        screen.runner.read("pane", self._reader([pid]), lambda out: self._one_read(pid, out),
                           lambda exc: self._failed(pid, exc))

    def _reader(self, ids: list[str]) -> Callable[[], ReadAhead]:
        """A job reading `ids` and rendering their abstracts as the pane would now."""
        screen = self.screen
        lib, terms, dark = screen.library, list(screen.pane.terms), screen.pane.dark
        cache, marks = screen.pane.abstracts, screen.pane.group_marks
        return lambda: read_ahead(lib, ids, terms, dark, cache, marks)

    def _one_read(self, pid: str, out: ReadAhead) -> None:
        if self.waiting != pid or self.screen.closing:
            return  # another paper was asked for since
        if self._wait_stale:
            self._read_one(pid)  # a change to it was seen meanwhile: read as stored now
            return
        self.took(out, self.epoch, keep=True)  # (no change since touched it: as stored now)
        self.waiting = None
        if pid in self.ahead:
            self.show(pid)
        else:  # deleted meanwhile
            self.screen.pane.set_paper(None)

    def _failed(self, pid: str, exc: BaseException) -> None:
        if self.screen.closing or self.waiting != pid:
            return  # the library was closed under the read, or the user has moved on
        self.waiting = None
        self.screen.pane.set_paper(None)
        self.screen.handle_error(exc)

    def pending_flags(self) -> tuple[bool, bool] | None:
        """(starred, read) of the paper being read, from its row in the list (S and R toggle
        from it until the paper is shown); None when no paper is waiting or its row is not read."""
        cached = self._row(self.waiting) if self.waiting is not None else None
        return (bool(cached.starred), bool(cached.read)) if cached is not None else None

    def _row(self, pid: str) -> Any:
        """The list's row of `pid` if its page is read already (never reads), else None."""
        model = self.screen.model
        row = model.row_of(pid)
        return model.cached_row(row) if row >= 0 else None

    # -- reading ahead ---------------------------------------------------------------------
    def read_around(self, pid: str) -> None:
        """The papers J/K reaches next (READ_AHEAD on each side of `pid`), read and their
        abstracts rendered on a worker while the user reads this one."""
        screen = self.screen
        row = screen.model.row_of(pid)
        if row < 0:
            return
        ids = screen.model.ids()
        near = ids[max(row - READ_AHEAD, 0):row] + ids[row + 1:row + 1 + READ_AHEAD]
        if all(p in self.ahead for p in near):
            return
        # Twice as far as needed: a job every few steps of a held key, not one per step.
        wide = ids[max(row - 2 * READ_AHEAD, 0):row] + ids[row + 1:row + 1 + 2 * READ_AHEAD]
        missing = [p for p in wide if p not in self.ahead]
        epoch = self.epoch
        screen.runner.read("ahead", self._reader(missing),
                           lambda out: self.took(out, epoch, keep=True, around=pid), screen.handle_error)

    def took(self, out: ReadAhead, epoch: int, *, keep: bool, around: str | None = None) -> None:
        """Papers read on a worker (J/K's read-ahead, a new list's first hit): kept unless a
        change was seen since they were asked for."""
        if epoch != self.epoch:
            return
        held = self.ahead if keep else {}
        if around is not None and len(held) > 6 * READ_AHEAD:
            model = self.screen.model
            row, ids = model.row_of(around), model.ids()
            window = set(ids[max(row - 3 * READ_AHEAD, 0):row + 3 * READ_AHEAD + 1]) if row >= 0 else set()
            held = {p: v for p, v in held.items() if p in window}
        self.ahead = {**held, **out.papers}
        marks = {**self.marks, **out.marks} if keep else out.marks
        self.marks = {p: m for p, m in marks.items() if p in self.ahead}

    def changed(self, ids: Iterable[str]) -> None:
        """A change was stored: the papers it touched (all, when `ids` is empty) are read again
        when next shown; reads asked before it are dropped."""
        self.epoch += 1
        touched = set(ids)
        if self.waiting is not None and (not touched or self.waiting in touched):
            self._wait_stale = True
        if touched:
            self.ahead = {p: v for p, v in self.ahead.items() if p not in touched}
            self.marks = {p: m for p, m in self.marks.items() if p in self.ahead}
        else:
            self.ahead, self.marks = {}, {}
