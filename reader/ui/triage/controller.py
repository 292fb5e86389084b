"""Triage mode wired into the main window: the queue, the keys' decisions, prefetch, re-rank, resume."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, QUrl
from PySide6.QtGui import QAction, QKeySequence

from reader.library import View
from reader.plural import count_noun
from reader.triage.cards import Card, build_cards
from reader.triage.pace import Pace, progress_text
from reader.triage.queue import BEST_FIRST, LISTED, TriageQueue
from reader.triage.state import QueueSpec, ResumeState, resume_ids

from ..list.model import SORT_KEYS
from ..operations import papers, scope
from ..pages import PageContext, add_view_action, page_stack
from ..paper.abstract_html import HIT_STYLES, highlight_css
from ..widgets.timers import single_shot
from . import index_batch, summary
from .fetched import Fetched, Opened
from .rank import TriageRanking, source  # reader.triage.source, loaded on first use
from .refetch import RefetchGate
from .view import TriageView, is_dark

STATE_KEY = "triage/state"
MARK_READ_KEY = "triage/markReadOnMove"
PREFETCH_AHEAD = 24  # cards rendered ahead of the position…
PREFETCH_LOW = 8  # …refilled when fewer than this are left: one read job per 16 steps of a held J
KEEP_BEHIND = 8
READ_FLUSH_MS = 600  # read marks of a run of J presses go in one write once the keys pause
READ_FLUSH_MAX = 200
NOTE_SAVE_MS = 700
SAVE_STATE_MS = 1000
RANK_DELAY_MS = 30
WHY_LOOKAHEAD = 8  # best first ranks again when one of the next 8 papers has no why-line


class TriageController(QObject):
    """Owns the triage view and its queue; every write goes through the window's undoable methods."""

    def __init__(self, ctx: PageContext, open_vault: Callable[[], None] | None = None) -> None:
        """`open_vault`: File → Markdown vault…, which the end-of-queue summary offers (None: not offered)."""
        super().__init__(ctx.window)
        self.ctx = ctx
        self.open_vault = open_vault
        self.library = ctx.library
        self.view = TriageView(ctx.window)
        page = ctx.window.centralWidget()
        assert page is not None  # the library page, built before triage
        self.library_page = page
        self.stack = page_stack(page, "centralStack")
        self.stack.addWidget(self.view)

        self.queue: TriageQueue | None = None
        self.spec = QueueSpec()
        self.listed: list[str] = []  # the list's own order (for going back to "as listed")
        self.decided = 0  # papers of the list left out as decided (starred, tagged, skipped, read)
        self.terms: list[str] = []
        self.cards: dict[str, Card] = {}
        self.legend: list[str] = []
        self.starred = 0
        self.recent_seeds: list[str] = []  # starred/tagged in this session, oldest first
        self.seed_base: list[str] = []  # the library's starred and tagged papers, as of the last write
        self.dropped_seeds: set[str] = set()  # unstarred in this session
        self.pace = Pace()
        self.pending_read: list[str] = []
        self._edit_gen = 0
        self._prefetching = False
        self._dark = False
        self.open_ms: float | None = None  # for the benchmark: Ctrl+T to the first abstract
        self.ranks_applied = 0
        self.refetches = RefetchGate(ctx.changes)  # one refetch per decision (refetch.py)
        self._closed = False
        self.ranking = TriageRanking(ctx, self)

        self.action = QAction("&Triage", ctx.window)
        self.action.setObjectName("triageAction")
        self.action.setShortcut(QKeySequence("Ctrl+T"))
        self.action.setCheckable(True)
        self.action.triggered.connect(lambda _=False: self.toggle())
        add_view_action(ctx, self.action)

        self._timers: dict[str, QTimer] = {}
        for name, ms, slot in (("read", READ_FLUSH_MS, self.flush_reads), ("note", NOTE_SAVE_MS, self.flush_note),
                               ("state", SAVE_STATE_MS, self.save_state),
                               ("rank", RANK_DELAY_MS, lambda: self.ranking.rerank())):
            self._timers[name] = single_shot(self, ms, slot)
        self._note_text: tuple[str, str] | None = None  # (paper id, typed text) not yet saved

        v = self.view
        v.command.connect(self.run_command)
        v.orderChanged.connect(self.set_order)
        v.markReadChanged.connect(lambda on: ctx.app_settings.setValue(MARK_READ_KEY, on))
        v.noteEdited.connect(self._note_typed)
        v.noteDone.connect(self.flush_note)
        v.tagAdded.connect(self._tag_typed)
        v.tagRemoved.connect(lambda tag: self.toggle_tag(tag, False))
        v.linkActivated.connect(lambda url: ctx.open_link(QUrl(url)))
        v.exportRequested.connect(lambda: summary.ask_export_starred(self))
        v.vaultRequested.connect(lambda: summary.open_vault(self))
        v.themeChanged.connect(self._theme_changed)
        v.vaultButton.setVisible(open_vault is not None)
        ctx.changes.changed.connect(self._history_changed)  # stored here, undone, or by another process
        ctx.window.installEventFilter(self)

        saved = self.saved_state()
        if saved is not None and saved.open:
            QTimer.singleShot(0, self.open)  # it was on screen at quit: come back to it

    # ------------------------------------------------------------------ state
    @property
    def closed(self) -> bool:
        """The window closed: nothing more is queued on its runner."""
        return self._closed

    @property
    def rank_ms(self) -> float | None:
        """A decision to its re-ranked tail, in ms (the benchmark reads and resets it)."""
        return self.ranking.rank_ms

    @rank_ms.setter
    def rank_ms(self, value: float | None) -> None:
        self.ranking.rank_ms = value

    @property
    def active(self) -> bool:
        return self.stack.currentWidget() is self.view

    @property
    def mark_read(self) -> bool:
        value = self.ctx.app_settings.value(MARK_READ_KEY, True)  # a preference: global
        return value not in (False, "false", "0", 0)

    def saved_state(self) -> ResumeState | None:
        return ResumeState.from_json(self.ctx.settings.value(STATE_KEY, ""))

    def save_state(self) -> None:
        """Into the library's settings file: the seen ids and position are per-library session state,
        like the sidebar selection, and must not touch the store (no change sequence, no index work)."""
        self._timers["state"].stop()
        q = self.queue
        if q is None:
            return
        state = ResumeState(self.spec, q.order, q.ids[: q.seen], q.position, q.finished, self.active)
        self.ctx.settings.setValue(STATE_KEY, state.to_json())

    def current_spec(self) -> QueueSpec:
        w = self.ctx.list
        view, (column, order) = w.view(), w.sort()
        return QueueSpec(view.kind, view.value, w.search_bar.searchBox.text().strip(), SORT_KEYS.get(column, "added"),
                         order == Qt.SortOrder.DescendingOrder)

    # ------------------------------------------------------------------ open / close
    def toggle(self) -> None:
        self.close() if self.active else self.open()

    def open(self, ids: Sequence[str] | None = None) -> None:
        """Show triage on the window's current list (or on exactly `ids`: a map selection),
        resuming the saved queue when it is the same list."""
        w = self.ctx.list
        w.pane.flush_note()
        started = time.perf_counter()
        spec = self.current_spec() if ids is None else replace(self.current_spec(), ids=tuple(ids))
        saved = self.saved_state()
        resume = saved if saved is not None and (saved.open or (saved.spec == spec and not saved.finished)) else None
        if resume is not None:
            spec = resume.spec
        # The table's own ids when they are the whole list (so "as listed" is what the user saw).
        shown = list(w.model.ids()) if resume is None and not ids and not scope.list_truncated(w.scope()) else None
        # A new queue keeps the order the user chose last (this session, or the saved one).
        last = self.queue.order if self.queue else (saved.order if saved is not None else LISTED)
        order = resume.order if resume is not None else last
        self.stack.setCurrentWidget(self.view)
        self.action.setChecked(True)
        self.view.show_message("Loading the queue…")
        self.view.set_queue(spec.describe(), order, self.mark_read)
        self.view.focus_keys()
        self._dark = is_dark(self.view)
        index_batch.begin(self.ctx)
        lib, recent, style, css = self.library, list(self.recent_seeds), self._hit_style(), self._css()
        shown_terms = list(w.pane.terms)
        ranking = self.ranking

        def job() -> Opened:
            best = ranking.best  # the first open makes it here, off the GUI thread
            listed, terms = source.list_ids(lib, spec) if shown is None else (shown, shown_terms)
            if spec.ids and spec.query and not terms:
                # Chosen papers (the map's Triage) under a search: its words are highlighted as
                # Ctrl+T highlights them (the map's selection came without them).
                terms = shown_terms or list(lib.search(spec.query, view=View(spec.view_kind, spec.view_value),
                                                       limit=1).terms)
            # Decided is decided (triage.source, as `reader triage next`): the papers still to
            # decide come; the seen ones of a resumed queue stay in front to go back to.
            undecided = source.still_to_decide(lib, listed)
            if resume is not None:
                existing = set(lib.paper_ids(View()))
                ids, position, seen = resume_ids(resume.seen_ids, undecided, existing, resume.position)
                queue = TriageQueue(ids, position=position, seen=seen, order=order)
                queue.finished = resume.finished and queue.seen >= len(queue)
                if order != LISTED:
                    queue.reorder_tail(source.order_ids(lib, queue.tail(), order, recent))
            else:
                queue = TriageQueue(source.order_ids(lib, undecided, order, recent), order=order)
            cards = build_cards(lib, queue.around(1, 4), terms, style, css)  # the rest: prefetch
            starred, seeds = source.interest(lib, queue.ids)
            return Opened(queue, listed, terms, Fetched(cards, starred, seeds, source.top_tags(lib),
                                                        [name for name, _ in lib.tags()], best.decisions()),
                          decided=len(listed) - len(undecided))

        def ready(out: Opened) -> None:
            got = out.fetched
            self.spec = spec
            self.queue = out.queue
            self.listed = out.listed
            self.decided = out.decided
            self.terms = out.terms
            self.cards = got.cards
            self.starred = got.starred
            self.seed_base = got.seeds
            self.legend = source.stable_legend(self.legend, got.tags)
            self.view.tagEditor.set_known_tags(got.names)
            self.pace = Pace()
            self.ranking.stored(got.decisions)
            self.show_current()
            self.open_ms = (time.perf_counter() - started) * 1000
            self.save_state()
            if self.queue.order == BEST_FIRST:
                self.ranking.rerank()  # learned once the features are built (on their own worker)

        # Through the writer: it runs after every queued write, so the queue sees their results.
        self.ctx.runner.write(job, ready, self.ctx.on_error)

    def close(self) -> None:
        """Back to the library, with the table's selection on the paper that was on screen."""
        if not self.active:
            return
        self.flush_note()
        self.flush_reads()
        self.refetches.left()
        index_batch.end(self.ctx)
        current = self.queue.current if self.queue else None
        self.stack.setCurrentWidget(self.library_page)
        self.action.setChecked(False)
        self.save_state()
        if current:
            # From the map's Triage, back to the map: the paper is shown, the list (under the
            # map) keeps its place (it came back at the rank triage ended on, rank 38, its best
            # hits above the viewport).
            self.ctx.list.select_paper(current, not self.spec.ids)
        self.ctx.list.table.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.ctx.window and event.type() == QEvent.Type.Close and self.queue is not None:
            # Before the window drains its writer: the pending read marks and note are queued first.
            self.flush_note()
            self.flush_reads()
            self.save_state()
        if watched is self.ctx.window and event.type() == QEvent.Type.Close:
            self._closed = True  # the window's runner shuts down next: nothing more is queued
            for timer in self._timers.values():
                timer.stop()
        return False

    # ------------------------------------------------------------------ showing
    def _hit_style(self) -> str:
        return HIT_STYLES[self._dark]

    def _css(self) -> Callable[[str], str]:
        dark = self._dark
        return lambda color: highlight_css(color, dark)

    def card(self, pid: str) -> Card | None:
        card = self.cards.get(pid)
        if card is None:  # not prefetched (a jump after a re-rank): one paper, fetched here
            found = build_cards(self.library, [pid], self.terms, self._hit_style(), self._css())
            card = found.get(pid)
            if card is not None:
                self.cards[pid] = card
        return card

    def show_current(self) -> None:
        q = self.queue
        if q is None:
            return
        if not len(q):
            self.view.show_message(
                f"Nothing left to decide: the {count_noun(self.decided, 'paper')} of this list are starred, "
                "tagged, skipped or read." if self.decided else "No papers in this list.")
            self.update_progress()
            return
        if q.finished:
            summary.show_summary(self)
            return
        pid = q.current
        card = self.card(pid) if pid else None
        self.view.show_card(card)
        self.view.show_why(self.ranking.why.get(pid, "") if pid and q.order == BEST_FIRST else "")
        self.view.set_legend(self.legend, card.tags if card else [])
        self.update_progress()
        self.prefetch()
        self._why_ahead()

    def _why_ahead(self) -> None:
        """Moving on without deciding ranks nothing: before the why-lines of the last ranking run
        out (it has them for its first WHY_AHEAD papers), rank again for the next ones."""
        q = self.queue
        if q is None or q.order != BEST_FIRST or not self.ranking.learned_ranks:
            return
        ahead = q.ids[q.seen : q.position + 1 + WHY_LOOKAHEAD]
        if any(pid not in self.ranking.why for pid in ahead) and not self._timers["rank"].isActive():
            self._timers["rank"].start()

    def update_progress(self) -> None:
        q = self.queue
        if q is None:
            return
        total = len(q)
        done = total if q.finished else q.position + 1
        left = self.pace.seconds_left(total - done)
        self.view.set_progress(done, total, progress_text(done, total, self.starred, left))

    def prefetch(self) -> None:
        """Render the next papers' cards on a worker once fewer than PREFETCH_LOW are ready."""
        q = self.queue
        if q is None or self._prefetching:
            return
        ahead = q.upcoming(PREFETCH_AHEAD)
        if sum(1 for pid in ahead[:PREFETCH_LOW] if pid in self.cards) >= min(PREFETCH_LOW, len(ahead)):
            return
        missing = [pid for pid in ahead if pid not in self.cards]
        if not missing:
            return
        self._prefetching = True
        lib, terms, style, css, gen = self.library, list(self.terms), self._hit_style(), self._css(), self._edit_gen

        def done(cards: dict[str, Card]) -> None:
            self._prefetching = False
            for pid, card in cards.items():
                if pid not in self.cards or gen == self._edit_gen:
                    self.cards[pid] = card
            self._evict()
            self.prefetch()

        def failed(exc: BaseException) -> None:
            self._prefetching = False
            self.ctx.on_error(exc)

        self.ctx.runner.read("triage-prefetch", lambda: build_cards(lib, missing, terms, style, css), done, failed)

    def _evict(self) -> None:
        q = self.queue
        if q is None or len(self.cards) < 4 * PREFETCH_AHEAD:
            return
        keep = set(q.around(KEEP_BEHIND, PREFETCH_AHEAD))
        self.cards = {pid: c for pid, c in self.cards.items() if pid in keep}

    def _theme_changed(self) -> None:
        dark = is_dark(self.view)
        if dark == self._dark or self._closed:  # a closed window's library may be closed too
            return
        self._dark = dark
        self.cards.clear()  # hit and highlight colours are part of the rendered HTML
        self.view.restyle()
        if self.active:
            self.show_current()

    # ------------------------------------------------------------------ commands
    def run_command(self, command: str) -> None:
        """A key's command from the card (TriageView.command): one of `commands`, or tag:N."""
        self.ctx.runner.input_watch.touch()  # the index's warm-up waits while the user decides
        q = self.queue
        anytime = {"back": self.close, "undo": self.undo}
        listed = {"next": lambda: self.step(1), "previous": lambda: self.step(-1), "skip": self.skip}
        on_card = {"star": self.toggle_star, "read": self.toggle_read, "tag": self.view.focus_tag_input,
                   "note": self.view.focus_note, "open": self._open_current}
        action = anytime.get(command) or (q is not None and (
            listed.get(command) or (q.current is not None and on_card.get(command))))
        if action:
            action()
        elif command.startswith("tag:") and q is not None and q.current is not None:
            n, card = int(command[4:]), self.card(q.current)
            if card is not None and 0 < n <= len(self.legend):
                tag = self.legend[n - 1]
                self.toggle_tag(tag, tag.casefold() not in {t.casefold() for t in card.tags})

    def _open_current(self) -> None:
        card = self.card(self.queue.current) if self.queue is not None and self.queue.current else None
        if card and card.url:
            self.ctx.open_link(QUrl(card.url))
        else:
            self.ctx.notify("This paper has no link.", 3000)

    def step(self, delta: int, *, force_read: bool = False) -> None:
        """J/K/X: move on (marking the paper left behind read) or back."""
        q = self.queue
        if q is None:
            return
        self.flush_note()
        leaving = q.current
        seen = q.seen
        if leaving and delta > 0 and (force_read or self.mark_read):
            card = self.cards.get(leaving)
            if card is not None and not card.read:
                card.read = True
                self.pending_read.append(leaving)
                if force_read or len(self.pending_read) >= READ_FLUSH_MAX:
                    self.flush_reads()  # X is a decision of its own: one undo step
                else:
                    self._timers["read"].start()
        if not q.move(delta):
            return
        if q.seen > seen:
            self.pace.step()
        self.show_current()
        self._timers["state"].start()

    def skip(self) -> None:
        """X: "not for me" (stored, marks read, one undo step), then the next paper."""
        card = self._local_edit()
        if card is not None and not card.skipped:
            card.skipped = card.read = True
            self.ranking.skip(card.id, True)
            papers.set_skipped(self.ctx.ops, [card.id], True)
            self._timers["rank"].start()
        self.step(1)

    def flush_reads(self) -> None:
        self._timers["read"].stop()
        if self.pending_read:
            ids, self.pending_read = self.pending_read, []
            papers.set_read(self.ctx.ops, ids, True)

    def _local_edit(self) -> Card | None:
        """Before a decision: earlier read marks go first (undo order), and refetches must not undo it."""
        q = self.queue
        self.flush_reads()
        self._edit_gen += 1
        return self.card(q.current) if q is not None and q.current else None

    def toggle_star(self) -> None:
        card = self._local_edit()
        if card is None:
            return
        card.starred = not card.starred
        self.starred += 1 if card.starred else -1
        self.ranking.star(card.id, card.starred)
        if card.starred:
            self.recent_seeds.append(card.id)
            self.dropped_seeds.discard(card.id)
        else:
            self.recent_seeds = [pid for pid in self.recent_seeds if pid != card.id]
            if not card.tags:
                self.dropped_seeds.add(card.id)
        self._timers["rank"].start()  # at once: the seeds include this star before it is even stored
        self.view.show_flags(card)
        self.update_progress()
        papers.set_starred(self.ctx.ops, [card.id], card.starred)

    def toggle_read(self) -> None:
        card = self._local_edit()
        if card is not None:
            card.read = not card.read
            papers.set_read(self.ctx.ops, [card.id], card.read)

    def _tag_typed(self, tag: str) -> None:
        self.toggle_tag(tag, True)
        self.view.focus_keys()

    def toggle_tag(self, tag: str, on: bool) -> None:
        card = self._local_edit()
        if card is None:
            return
        has = {t.casefold(): t for t in card.tags}
        if on and tag.casefold() not in has:
            card.tags = sorted([*card.tags, tag], key=str.casefold)
            self.ranking.tag(card.id, tag, True)
            self.recent_seeds.append(card.id)
            papers.add_tags(self.ctx.ops, [card.id], [tag])
            self._timers["rank"].start()
        elif not on and tag.casefold() in has:
            card.tags = [t for t in card.tags if t.casefold() != tag.casefold()]
            self.ranking.tag(card.id, tag, False)
            papers.remove_tags(self.ctx.ops, [card.id], [has[tag.casefold()]])
        self.view.show_flags(card)
        self.view.set_legend(self.legend, card.tags)

    def _note_typed(self, text: str) -> None:
        q = self.queue
        if q is None or q.current is None:
            return
        self._note_text = (q.current, text)
        card = self.cards.get(q.current)
        if card is not None:
            card.note = text
        self._timers["note"].start()

    def flush_note(self) -> None:
        self._timers["note"].stop()
        if self._note_text is not None:
            pid, text = self._note_text
            self._note_text = None
            self.flush_reads()
            self._edit_gen += 1
            self.ctx.list.save_note(pid, text)

    def undo(self) -> None:
        """U: undo the last change once every queued write has landed, and go back to its paper."""
        self.flush_note()
        self.flush_reads()
        self.ctx.runner.write(lambda: None, lambda _: self._undo_now(), self.ctx.on_error)

    def _undo_now(self) -> None:
        stack = self.ctx.ops.undo_stack
        if not stack.canUndo():
            return
        command = stack.command(stack.index() - 1)
        ids = {s.id for s in getattr(command, "before", []) or []}
        stack.undo()
        # Re-rank once the restore is stored (it is queued on the writer), from the stored decisions.
        best = self.ranking.best

        def restored(decisions: source.Decisions) -> None:
            self.ranking.stored(decisions)
            self._timers["rank"].start()

        self.ctx.runner.write(best.decisions, restored, self.ctx.on_error)
        q = self.queue
        if q is not None and len(ids) == 1:
            (pid,) = ids
            if pid != q.current and q.go_to(pid):
                self.show_current()

    # ------------------------------------------------------------------ after writes
    def _history_changed(self, _changes: object = None) -> None:
        """A change was stored (an edit, an undo, another process): refetch what is on screen
        (unless a refetch queued already reads it: RefetchGate)."""
        q = self.queue
        if q is None or not self.active or self._closed or (mark := self.refetches.next()) is None:
            return
        gate, lib, gen, ids = self.refetches, self.library, self._edit_gen, q.around(1, 2)
        terms, style, css, queue_ids = list(self.terms), self._hit_style(), self._css(), list(q.ids)
        best = self.ranking.best

        def job() -> Fetched | None:
            if gate.stale(mark):  # back in the library meanwhile: opening again reads afresh
                return None
            gate.start(mark)
            starred, seeds = source.interest(lib, queue_ids)
            return Fetched(build_cards(lib, ids, terms, style, css), starred, seeds, source.top_tags(lib),
                           [n for n, _ in lib.tags()], best.decisions())

        def done(out: Fetched | None) -> None:
            if out is None or gen != self._edit_gen or self.queue is not q:
                # Left, or decided again (that write's refetch follows): changes taken in are asked again.
                if gate.dropped(mark) and self.queue is not None:
                    self._history_changed()
                return
            self.cards.update(out.cards)
            self.ranking.stored(out.decisions)
            self.starred, self.seed_base = out.starred, out.seeds
            self.legend = source.stable_legend(self.legend, out.tags)
            self.view.tagEditor.set_known_tags(out.names)
            current = q.current
            if self.active and current is not None and current in out.cards:
                card = self.cards[current]
                self.view.show_flags(card)
                self.view.set_legend(self.legend, card.tags)
                if not self.view.noteEdit.hasFocus():
                    self.view.show_card(card)
            self.update_progress()

        # On the writer: after an undo's restore, which is queued there too.
        self.ctx.runner.write(job, done, gate.failing(mark, self.ctx.on_error))

    def rank_done(self) -> None:
        """A new order of the tail is in: prefetch its cards, remember the queue; the paper on
        screen gets its why-line if it had none (the first card of a session is shown before
        the first ranking is in)."""
        q = self.queue
        if q is not None and q.order == BEST_FIRST and q.current is not None and not q.finished:
            self.view.show_why(self.ranking.why.get(q.current, ""))
        self.prefetch()
        self._timers["state"].start()

    def set_order(self, order: str) -> None:
        self.ranking.set_order(order)


def install_triage(window: QObject) -> TriageController:
    """The window's triage (View → Triage, Ctrl+T): the main window builds it once from its
    PageContext (kept as `window.triage`); tests, benchmarks and scripts find it here."""
    found = getattr(window, "triage", None)
    if not isinstance(found, TriageController):
        raise LookupError("this window has no triage page")
    return found
