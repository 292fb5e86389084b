"""The Library's core: its connections, the one-transaction write, index upkeep, change
events (reader.events) and the reads every feature is built on.

services.Library is the one door; this base, library_edits and library_io are its parts,
split by responsibility (each reaches the store only through reader.store)."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ..errors import ReaderError, classify_sqlite_error
from ..events import LOCAL, OUTSIDE, Change, ChangeBus, Changes
from ..index_upkeep import CancelCheck, IndexUpkeep, Progress
from ..listing import like_ids
from ..models import ImportLogEntry, Paper, SavedSearch, TriageSignals, ViewKind
from ..paths import LibraryPaths
from ..store import changes, import_log, open_connection, open_database, searches
from ..store import papers as q
from ..store import tags as tg
from ..store import venues as venue_store
from ..store.damage import known_damage
from ..store.group_filters import GroupFilter
from ..store.group_filters import select as select_group
from ..store.group_filters import split_filters as split_group_filters
from ..store.papers import Counts, PaperRow
from ..store.views import View, paper_ids
from ..venues import Venue

if TYPE_CHECKING:
    from ..search import SearchIndex
    from ..search.results import SearchResults, Suggestion

OUTSIDE_INDEX_GRACE = 20.0  # seconds another process gets to index its own writes (a CLI import of
# 200 papers took 13 s to index on a loaded 2-core machine: indexing them here too only fights it)
_OUTSIDE_IDS = 20_000  # more papers changed elsewhere: Changes.ids empty ("possibly all")
ALL = View()
log = logging.getLogger(__name__)


class ImportCancelled(Exception):
    """Raised inside an import's transaction to roll it back when the user cancels."""


class LibraryBase:
    """What every part of a Library stands on: the writer connection and its lock, a reader
    connection per thread, the index upkeep and the change bus."""

    def __init__(self, paths: LibraryPaths, conn: sqlite3.Connection, index: SearchIndex | None = None):
        self.paths = paths
        self._wconn = conn
        self._wdb = open_database(conn)
        # The index is opened on first use (a search, a sync, an index write): a command
        # that only reads the store never loads Whoosh (~250 ms CPU) nor opens its segments.
        self._index = index
        self._index_lock = threading.Lock()
        self._store_lock = threading.RLock()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        self.read_only = False  # the folder can't be written: reads, searches and exports only
        self._maintenance: threading.Thread | None = None
        self.daily_due = False  # the day's check and backup are due and were left to the opener
        self.upkeep = IndexUpkeep(lambda: self.index, self._reader, lambda: self.read_only)
        self.changes = ChangeBus()  # a Changes after each committed write (reader.events)
        # What this process last saw of other processes' commits (check_outside).
        self._outside_seen = (changes.data_version(conn), changes.current_seq(conn))
        self._outside_lock = threading.RLock()  # a subscriber may look again from its callback
        self._outside_since: float | None = None  # when the index fell behind another process
        self._mine: set[int] = set()  # sequence numbers this process committed since that look

    # ------------------------------------------------------------------ the search index
    @property
    def index(self) -> SearchIndex:
        """The search index, opened at the first call (thread-safe). Opening is where a
        damaged, outdated or missing index is found and reset (its stamp then asks the next
        sync, or the next write's catch-up, for a rebuild), so it precedes every search."""
        found = self._index
        if found is None:
            with self._index_lock:
                found = self._index
                if found is None:
                    if self._closed:
                        raise RuntimeError("the library is closed")
                    from ..search import SearchIndex

                    found = self._index = SearchIndex.open(self.paths.index_dir, texts=self._texts)
        return found

    def _texts(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """The index's titles and abstracts, read from the store on the calling thread (the
        index keeps no copy of them: reader/search/texts.py)."""
        from ..store.index_docs import paper_texts

        return paper_texts(self._reader(), ids)

    @property
    def index_opened(self) -> bool:
        """Whether this Library has opened its index yet (nothing opens it but a use)."""
        return self._index is not None

    def _open_index_quietly(self) -> None:
        """Before a write: open the index its catch-up updates, so that the index commit follows
        the store's at once (a window watching this library adopts both in one look: its search
        re-lists then). A failure is logged; the catch-up tries again and never fails the write."""
        if self._index is None and not self.read_only:
            try:
                _ = self.index
            except Exception as exc:
                log.warning("search index not opened (it catches up later): %s: %s", type(exc).__name__, exc)

    def _close_index(self) -> None:
        with self._index_lock:
            found, self._index = self._index, None
        if found is not None:
            found.close()

    # ------------------------------------------------------------------ connections
    def _reader(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = open_connection(self.paths.database, readonly=self.read_only)
            self._local.conn = conn
            with self._readers_lock:
                self._readers.append(conn)
        return conn

    @contextmanager
    def _write(self) -> Iterator[int]:
        """One transaction on the writer connection; yields the new change sequence number.

        Refused with the reads' one-line message once damage was found in the file: a write
        that misses the damaged pages would otherwise succeed without a word."""
        damage = known_damage(self.paths.database)
        if damage is not None:
            raise damage
        self._open_index_quietly()
        with self._store_lock:
            try:
                with self._wdb.atomic():
                    seq = changes.bump_seq(self._wconn)
                    yield seq
                self._mine.add(seq)  # committed: check_outside must not count it as another's
            except (ImportCancelled, ReaderError):
                raise
            except Exception as exc:
                mapped = classify_sqlite_error(exc)
                if mapped is exc:
                    raise
                raise mapped from exc

    # ------------------------------------------------------------------ for features running store/ queries (vault/)
    def read_connection(self) -> sqlite3.Connection:
        """This thread's read connection, for a feature's own store/ queries (the vault's state)."""
        return self._reader()

    @contextmanager
    def write_transaction(self) -> Iterator[tuple[sqlite3.Connection, int]]:
        """One write transaction for a feature's store/ calls: (writer connection, its change
        sequence). Call `index_changed()` after it if it changed papers."""
        with self._write() as seq:
            yield self._wconn, seq

    def index_changed(self, ids: Iterable[str] = ()) -> None:
        """After a `write_transaction` that changed papers (the vault's sync): the index catches up
        (never failing the write) and subscribers hear of it (no ids: possibly any paper)."""
        self._committed(Change.VAULT, ids)

    # ------------------------------------------------------------------ index upkeep
    def index_needs_sync(self) -> bool:
        return self.upkeep.needs_sync()

    def _index_changes(self) -> None:
        self.upkeep.after_commit()

    def batch_index_syncs(self, decisions: int) -> None:
        """While the user decides (triage): flag, tag and note commits are indexed `decisions`
        at a time (IndexUpkeep.batch); 0 ends it. Searches settle the rest first."""
        self.upkeep.batch(decisions)

    def settle_index(self) -> None:
        """Index what a batch of decisions still holds back (off the GUI thread)."""
        self.upkeep.settle()

    # ------------------------------------------------------------------ change events
    def _committed(self, kinds: Change | Iterable[Change], ids: Iterable[str] = (), *, index: bool = True) -> None:
        """After a commit: the index catches up (unless the write changed nothing it holds),
        then subscribers hear what changed, so a subscriber's search already sees the write."""
        kinds = (kinds,) if isinstance(kinds, Change) else tuple(kinds)
        if index and not self.upkeep.defers(kinds):  # a batch of decisions: indexed with its last
            self._index_changes()
        self.changes.publish(Changes.of(kinds, ids, self._origin()))

    def _origin(self) -> str:
        return getattr(self._local, "origin", LOCAL)

    @contextmanager
    def initiated_by(self, origin: str) -> Iterator[None]:
        """Writes on this thread inside the block publish `origin` instead of "local" (a
        screen tags its own writes so it can skip redrawing what it already shows)."""
        before = self._origin()
        self._local.origin = origin
        try:
            yield
        finally:
            self._local.origin = before

    def check_outside(self) -> Changes | None:
        """Another process's commits since the last call, published and returned; None if none.

        Cheap when idle: one `PRAGMA data_version` on the writer connection (it moves only for
        other connections' commits, so this process's own writes never count). Skipped (None)
        while a local write holds the store: the next call sees it. Thread-safe.

        The store's state is published at once (counts, lists, sidebar). The index follows:
        this process adopts the other's index commits, or after OUTSIDE_INDEX_GRACE indexes
        the changes itself; Change.INDEX is published once it is up to date (later calls
        keep trying until then)."""
        with self._outside_lock:
            found = self._outside_commits()
            if found is not None:
                self.changes.publish(found)
                if self._outside_since is None:
                    self._outside_since = time.monotonic()
            if self._outside_since is not None:
                # The other process normally indexes its own writes: wait for it a while
                # rather than index the same papers here, fighting it for the index lock.
                waited = time.monotonic() - self._outside_since
                self.upkeep.after_outside(catch_up=waited > OUTSIDE_INDEX_GRACE)
                if not self.upkeep.needs_sync():
                    self._outside_since = None
                    self.changes.publish(Changes.of(Change.INDEX, origin=OUTSIDE))
            return found

    def _outside_commits(self) -> Changes | None:
        """What other processes committed since the last look (caller holds _outside_lock)."""
        if not self._store_lock.acquire(blocking=False):
            return None
        try:
            version, seen_seq = self._outside_seen
            now = changes.data_version(self._wconn)
            if now == version:
                return None
            seq = changes.current_seq(self._wconn)
            theirs = set(range(seen_seq + 1, seq + 1)) - self._mine
            self._outside_seen, self._mine = (now, seq), set()
            if not theirs:  # a commit that changed nothing shown (e.g. `PRAGMA optimize`)
                return None
            touched = changes.touched_since(self._wconn, min(theirs) - 1, _OUTSIDE_IDS)
        finally:
            self._store_lock.release()
        # A paper written elsewhere and then here carries this process's sequence: it was
        # already published by the local write.
        ids = frozenset() if touched is None else frozenset(i for i, s in touched.items() if s in theirs)
        return Changes(ids, frozenset({Change.OUTSIDE}), OUTSIDE)

    def sync_index(self, progress: Progress = None, cancelled: CancelCheck = None) -> None:
        """Catch the index up with the store (rebuilding it if missing, corrupt or stale);
        publishes Change.INDEX when it did (searches may now find more)."""
        before = self.index.stamp
        self.upkeep.sync(progress, cancelled)
        if self.index.stamp != before:
            self.changes.publish(Changes.of(Change.INDEX, origin=self._origin()))

    def maintain_index(self) -> bool:
        """Merge the small index segments that single-paper updates leave (call when idle)."""
        return self.upkeep.maintain()

    def reindex(self, progress: Progress = None, cancelled: CancelCheck = None) -> None:
        """Rebuild the index from SQLite from scratch."""
        self.upkeep.reindex(progress, cancelled)
        self.changes.publish(Changes.of(Change.INDEX, origin=self._origin()))

    # ------------------------------------------------------------------ reads
    def paper_ids(self, view: View = ALL, sort: str = "added", descending: bool = True, *,
                  limit: int | None = None) -> list[str]:
        """The view's ids in order (its first `limit` when given)."""
        if view.kind == ViewKind.NEW:  # the feeds' unread papers, best first whatever the sort
            from ..triage.fresh import rank_new

            return rank_new(self, self.paths.root, paper_ids(self._reader(), view, "added", True))[:limit]
        if view.ranked:  # "more like these": by similarity, whatever the sort
            return like_ids(self, view)[:limit]
        return paper_ids(self._reader(), view, sort, descending, limit)

    def rows(self, ids: Sequence[str]) -> dict[str, PaperRow]:
        return q.rows(self._reader(), list(ids))

    def paper_texts(self) -> list[tuple[str, str, str, bool]]:
        """(id, title, plain abstract, own title?) of every paper: what triage's learner reads."""
        return q.texts(self._reader())

    def triage_signals(self) -> TriageSignals:
        """Starred, skipped, read, tagged and annotated papers (store/papers.signals)."""
        return q.signals(self._reader())

    def title_matches(self, query: str, limit: int = 200) -> list[str]:
        """Papers whose title holds every word of `query` (no index needed: the window shows
        these while the index is being built)."""
        return q.title_matches(self._reader(), query.split(), limit)

    def paper(self, paper_id: str) -> Paper | None:
        found = q.papers_full(self._reader(), [paper_id])
        return found[0] if found else None

    def papers(self, ids: Sequence[str]) -> list[Paper]:
        return q.papers_full(self._reader(), list(ids))

    def resolve_id(self, prefix: str) -> str:
        prefix = prefix.strip().lower()
        if not prefix or any(ch not in "0123456789abcdef" for ch in prefix):
            raise ReaderError(f"'{prefix}' is not a paper id (ids are hexadecimal, see `reader list`)")
        found = q.ids_with_prefix(self._reader(), prefix)
        if not found:
            raise ReaderError(f"no paper with id {prefix}")
        if len(found) > 1:
            raise ReaderError(f"id prefix {prefix} is ambiguous ({', '.join(found[:2])}, …)")
        return found[0]

    def counts(self) -> Counts:
        return q.counts(self._reader())

    def collections(self) -> list[tuple[str, int]]:
        return q.collections(self._reader())

    def venues(self) -> list[Venue]:
        """The library's venues (one per journal or conference, however spelled), most papers first."""
        return venue_store.venues(self._reader())

    def tags(self) -> list[tuple[str, int]]:
        return tg.name_counts(self._reader())

    def saved_searches(self) -> list[SavedSearch]:
        return searches.all_searches(self._reader())

    def search(self, query: str, *, view: View | None = None, limit: int | None = 1000,
               as_you_type: bool = False) -> SearchResults:
        """Search results; `as_you_type`: the unfinished last word is a prefix, no "did you
        mean"; `results.page(start, n)` fetches later pages lazily."""
        self.upkeep.settle()  # a batch's decisions are searchable at once
        restrict = None
        if view is not None and view.kind != ViewKind.ALL:
            restrict = set(self.paper_ids(view))
        rest, group_filters = split_group_filters(query)
        if group_filters:  # starred-by:, group:agree…: sets of papers from the group's SQL state
            return self._group_search(query, rest, group_filters, restrict, limit, as_you_type)
        return self.index.search(query, limit=limit, restrict=restrict, as_you_type=as_you_type)

    def _group_search(self, query: str, rest: str, group_filters: list[GroupFilter], restrict: set[str] | None,
                      limit: int | None, as_you_type: bool) -> SearchResults:
        """A query with group filters: the papers they admit (within `restrict`), searched for
        the rest of the query, or listed as a filters-only result when nothing else is left."""
        from ..search.results import Hit, SearchResults

        problems: list[str] = []
        ids = select_group(self._reader(), group_filters, problems)
        if restrict is not None:
            ids &= restrict
        if rest.strip():
            res = self.index.search(rest, limit=limit, restrict=ids, as_you_type=as_you_type)
            res.query = query
        else:
            order = [pid for pid in self.paper_ids() if pid in ids]  # newest first, as the list
            hits = [Hit(pid, 0.0) for pid in (order if limit is None else order[:limit])]
            res = SearchResults(query=query, hits=hits, total=len(order), filters_only=True)
        if problems:
            res.problem = "; ".join([*problems, *([res.problem] if res.problem else [])])
        return res

    def suggest(self, query: str) -> Suggestion | None:
        """"Did you mean": the query with every typo'd word corrected at once and the
        corrected query's hit count (None if no word needs it or it finds nothing either).
        Cheap enough to call as the user types (tens of ms at 50k); off the GUI thread."""
        self.upkeep.settle()
        return self.index.suggestion(query)

    def warm_search(self) -> None:
        """Prepare the index for the first keystrokes (0.6-0.8 s at 50k; off the GUI thread)."""
        self.index.warm()

    def related(self, paper_id: str, limit: int = 10) -> list[tuple[str, float]]:
        return self.index.related(paper_id, limit=limit)

    def more_like(self, ids: Iterable[str], limit: int = 50, *,
                  exclude: Iterable[str] = (), title_only: bool = False) -> list[tuple[str, float]]:
        """Papers most like a set of papers (a tag's, the starred ones), best first; the
        given papers and `exclude` are left out, and title-only papers unless `title_only`."""
        return self.index.more_like(ids, limit=limit, exclude=exclude, title_only=title_only)

    def imports_log(self) -> list[ImportLogEntry]:
        return import_log.entries(self._reader())
