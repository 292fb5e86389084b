"""Triage's best-first order for the controller: the learner's features (built once on a worker
of their own), the user's decisions as they are made, and the re-rank after each one, all off
the GUI thread; the unseen tail is swapped in whole, so the paper on screen never moves."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QSettings

from reader.library import Library
from reader.triage.queue import BEST_FIRST, LISTED, TriageQueue, full_tail
from reader.triage.ranking import rank_like

from ..pages import PageContext
from .view import TriageView

# reader.triage's learning (numpy, Whoosh's analyser) loads when triage first needs it: the
# window's start, whose first screen is the list, never does.
if TYPE_CHECKING:
    from reader.triage import source as source  # the controller's too
    from reader.triage.best import BestFirst
    from reader.triage.interests import Decisions
else:
    from ..widgets.lazy import LazyModule

    source = LazyModule("reader.triage.source")

ASK_EVERY_KEY = "triage/askEvery"  # every how many papers best first asks where unsure (0: never)


def ask_every(app_settings: QSettings) -> int:
    """The setting: every how many papers best first asks where it is unsure (0: never)."""
    from reader.triage.interests import ASK_EVERY
    value = app_settings.value(ASK_EVERY_KEY, ASK_EVERY)
    try:
        return max(0, int(value)) if isinstance(value, int | float | str) else ASK_EVERY
    except (TypeError, ValueError):
        return ASK_EVERY


@dataclass(frozen=True)
class Reranked:
    """A re-rank's result: the queue's new tail, and per paper its why-line and its interest."""

    tail: list[str]
    why: dict[str, str]
    interest: dict[str, str]


class RankingHost(Protocol):
    """What the ranking reads of the triage controller (its queue, list and seeds) and the one
    count it keeps there; `rank_done` is called when a new order of the tail is in."""

    ranks_applied: int

    @property
    def library(self) -> Library: ...
    @property
    def view(self) -> TriageView: ...
    @property
    def queue(self) -> TriageQueue | None: ...
    @property
    def listed(self) -> list[str]: ...
    @property
    def recent_seeds(self) -> list[str]: ...
    @property
    def seed_base(self) -> list[str]: ...
    @property
    def dropped_seeds(self) -> set[str]: ...
    @property
    def closed(self) -> bool: ...
    def rank_done(self) -> None: ...


class TriageRanking:
    """Owned by the TriageController (`controller.ranking`); reads its queue and seeds. Its jobs
    run on the context's runner (features and ranks on the read lanes), errors go to its handler."""

    def __init__(self, ctx: PageContext, controller: RankingHost) -> None:
        self.ctx = ctx
        self.c = controller
        self._best: BestFirst | None = None  # made when triage first needs it
        self._best_lock = threading.Lock()  # made on the writer by triage's first open (see best)
        self.decisions: Decisions | None = None  # the store's, with this session's decisions on top
        self.why: dict[str, str] = {}  # paper -> its why-line, from the ranking that placed it
        self.interest: dict[str, str] = {}
        self.rank_ms: float | None = None  # a decision to its re-ranked tail (the benchmark's figure)
        self.learned_ranks = 0
        self._building = False
        self._decided_at: float | None = None

    @property
    def best(self) -> BestFirst:
        """The library's learner between decisions (reader.triage.best), made on first use:
        by triage's first open, on the writer (importing it and numpy took 100-150 ms of the GUI
        thread when triage was opened before the index's worker had preloaded them)."""
        best = self._best
        if best is None:
            with self._best_lock:
                if self._best is None:
                    from reader.preread import preread

                    preread("numpy")  # its libraries read first, letting the GIL go (reader/preread.py)
                    from reader.triage.best import BestFirst

                    lib = self.c.library
                    self._best = BestFirst(lib, lib.paths.root)
                best = self._best
        return best

    # -- decisions, at once in memory (the write follows on the writer) ---------------------
    def _decided(self) -> Decisions | None:
        self._decided_at = time.perf_counter()
        return self.decisions

    def star(self, pid: str, on: bool) -> None:
        if (d := self._decided()) is not None:
            d.star(pid, on)

    def skip(self, pid: str, on: bool) -> None:
        if (d := self._decided()) is not None:
            d.skip(pid, on)

    def tag(self, pid: str, tag: str, on: bool) -> None:
        if (d := self._decided()) is not None:
            d.tag(pid, tag, on)

    def stored(self, decisions: Decisions) -> None:
        """The store's decisions, read after the last write (a refetch): they replace ours."""
        if self.decisions is not None:
            decisions.recent_tags = self.decisions.recent_tags
        self.decisions = decisions

    # -- features -----------------------------------------------------------------------------
    def ensure_features(self) -> None:
        """Build the learner's features on their own worker unless they cover the queue."""
        q = self.c.queue
        if q is None or self._building or self.best.covers(q.ids):
            return
        self._building = True
        best, ids = self.best, list(q.ids)

        def job() -> Decisions:
            best.ensure(ids)
            return best.decisions()

        def done(decisions: Decisions) -> None:
            self._building = False
            if self.decisions is None:
                self.decisions = decisions
            self.rerank()

        def failed(exc: BaseException) -> None:
            self._building = False
            self.ctx.on_error(exc)

        self.ctx.runner.read("triage-features", job, done, failed)

    # -- ranking ------------------------------------------------------------------------------
    def rerank(self) -> None:
        """Best first: rank the unseen tail by the decisions so far, all of it on a worker."""
        c = self.c
        q = c.queue
        if q is None or q.order != BEST_FIRST or c.closed:
            return
        tail = q.tail()
        learned = self.decisions is not None and self.best.covers(tail)
        if not learned:
            self.ensure_features()
        decisions = _copy(self.decisions) if learned and self.decisions is not None else None
        # Seeds from memory: scanning the papers table for the starred ones would cost more than ranking.
        seeds = source.merge_seeds(c.recent_seeds, c.seed_base, c.dropped_seeds)
        lib, best = c.library, self.best
        seen_then, version, decided_at = q.seen, q.version, self._decided_at
        ask_every = self.ask_every()
        # The paper on screen is seen (never re-ranked) but needs a why-line if it has none.
        unexplained = [q.current] if q.current is not None and q.current not in self.why else []

        def job() -> Reranked:
            if decisions is not None:
                ranking, why = best.rank(tail, decisions, ask_every=ask_every, shown=seen_then,
                                         also=unexplained)
                return Reranked(full_tail(ranking.order, tail), why, ranking.interest_of)
            return Reranked(full_tail(rank_like(lib, seeds, tail), tail), {}, {})

        def done(out: Reranked) -> None:
            new_tail, why, interest = out.tail, out.why, out.interest
            if c.queue is not q or q.order != BEST_FIRST:
                return
            q.apply_tail(seen_then, version, new_tail)
            self._remember(why, interest)
            c.ranks_applied += 1
            self.learned_ranks += decisions is not None
            if decided_at is not None:
                self.rank_ms = (time.perf_counter() - decided_at) * 1000
            c.rank_done()

        self.ctx.runner.read("triage-rank", job, done, self.ctx.on_error)

    def ask_every(self) -> int:
        """Every how many papers best first asks where it is unsure (the setting; 0: never)."""
        return ask_every(self.ctx.app_settings)

    def _remember(self, why: dict[str, str], interest: dict[str, str]) -> None:
        """Keep the lines of the papers seen (they never move) and take the new ones."""
        q = self.c.queue
        keep = set(q.ids[: q.seen]) if q is not None else set()
        self.why = {p: w for p, w in self.why.items() if p in keep} | why
        self.interest = {p: i for p, i in self.interest.items() if p in keep} | interest

    def set_order(self, order: str) -> None:
        """A new order for the papers still to come; the seen ones stay as they were."""
        c = self.c
        q = c.queue
        if q is None or order == q.order:
            return
        q.order = order
        if order == BEST_FIRST:
            self.rerank()  # learned when the features are there (else built, then re-ranked)
            c.view.focus_keys()
            return
        lib, recent, tail, listed = c.library, list(c.recent_seeds), q.tail(), c.listed
        seen_then, version = q.seen, q.version

        def job() -> list[str]:
            if order == LISTED:
                return full_tail(listed, tail)
            return full_tail(source.order_ids(lib, tail, order, recent), tail)

        def done(new_tail: list[str]) -> None:
            if c.queue is q and q.order == order:
                q.apply_tail(seen_then, version, new_tail)
                c.rank_done()

        self.ctx.runner.read("triage-rank", job, done, self.ctx.on_error)
        c.view.focus_keys()


def _copy(d: Decisions) -> Decisions:
    """A snapshot for the worker: the GUI thread goes on deciding meanwhile."""
    return type(d)(set(d.starred), set(d.skipped), {t: list(ids) for t, ids in d.tags.items()}, set(d.noted),
                     set(d.moved_on), list(d.recent_tags))
