"""Keeping the derived search index in step with the store: catch up, rebuild, merge segments."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .events import Change
from .store import changes
from .store import papers as q
from .store.index_docs import count_changed, docs_for_ids, iter_docs

if TYPE_CHECKING:
    from .search import Prepare, SearchIndex, SegmentBuilder, Standby

log = logging.getLogger(__name__)

Progress = Callable[[int, int, str], None] | None
CancelCheck = Callable[[], bool] | None  # polled by long jobs: True means stop

# Below this many pending changes the index catches up incrementally; above, it is rebuilt.
_REBUILD_THRESHOLD = 5000
# The index folder's stamp file, written by search/ after each index commit (in any process);
# tests/test_index_upkeep.py checks this name against what SearchIndex writes.
STAMP_FILE = "reader-stamp.json"
# The commits a batch of decisions (IndexUpkeep.batch) may index together: they change only a
# paper's flags, tags or note, fields that searches filter or match on (they settle first) and
# that related papers and more_like, which read the titles and abstracts, never look at.
DEFERRABLE = frozenset({Change.STAR, Change.READ, Change.SKIP, Change.TAG, Change.NOTE})


def disk_stamp(index_dir: Path) -> int | None:
    """The store change the index on disk is up to date with (another process may have moved
    it past this process's SearchIndex.stamp); None when unreadable."""
    try:
        return int(json.loads((Path(index_dir) / STAMP_FILE).read_text("utf-8"))["stamp"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


class IndexUpkeep:
    """Brings one library's index up to its store's change sequence; one sync at a time."""

    def __init__(self, index: Callable[[], SearchIndex], reader: Callable[[], sqlite3.Connection],
                 read_only: Callable[[], bool]) -> None:
        self._index = index  # opens the library's index on first use
        self._reader = reader
        self._read_only = read_only
        self._lock = threading.Lock()
        self._standby: Standby | None = None  # prestart_bulk()'s workers, until start_bulk takes them
        self._batch = 0  # batch(): deferrable commits indexed together, this many at a time
        self._deferred = 0  # deferrable commits since the last catch-up, not indexed yet

    def batch(self, decisions: int) -> None:
        """While the user decides (triage): commits that change only DEFERRABLE fields are
        indexed together, one catch-up per `decisions` of them, instead of one each (a delete,
        an add and a commit: ~0.1 s of writer CPU at 100k papers, holding the GIL the window
        needs). 0 or 1: each commit at once, as by default. Counted in commits, never in time.
        The store is not affected (each write is its own transaction, acknowledged once
        committed), and a search settles first (`settle`): none misses a decision."""
        self._batch = max(int(decisions), 0)

    @property
    def deferred(self) -> int:
        """Commits a batch holds back from the index (searches settle them first)."""
        return self._deferred

    @property
    def index(self) -> SearchIndex:
        return self._index()

    def needs_sync(self) -> bool:
        return self.index.stamp != changes.current_seq(self._reader())

    def defers(self, kinds: Iterable[Change]) -> bool:
        """After a commit of `kinds`, on the writer: True when a batch (`batch`) holds its
        catch-up back (DEFERRABLE kinds only, and not the batch's last commit); the caller
        then skips `after_commit`."""
        kinds = frozenset(kinds)
        if self._batch > 1 and kinds and kinds <= DEFERRABLE and self._deferred + 1 < self._batch:
            self._deferred += 1  # searches read it (settle); _catch_up clears it
            return True
        return False

    def after_commit(self) -> None:
        """Bring the index up to the store; skipped while a sync holds it (the sync catches up).

        Called after a commit: index trouble (another process holding the index lock past
        the wait, a full disk, a damaged segment) is logged, never reported as a failed
        write; the stamp stays behind, so the next sync or start catches up."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            self._catch_up(self._reader())
        except Exception as exc:
            log.warning("search index not updated (it catches up later): %s: %s",
                        type(exc).__name__, exc)
        finally:
            self._lock.release()

    def settle(self) -> None:
        """Before a search: index the commits a batch holds back, so that no search misses a
        stored decision. Nothing to do, and no lock taken, when none is held back. Index
        trouble is logged (the search then sees the index as it is, as after any failed
        catch-up)."""
        if not self._deferred or self._read_only():
            return
        conn = self._reader()
        for _ in range(3):  # a commit whose own catch-up found the lock held here: once more
            with self._lock:
                try:
                    self._catch_up(conn)
                except Exception as exc:
                    log.warning("search index not updated (it catches up later): %s: %s",
                                type(exc).__name__, exc)
                    return
            if self.index.stamp == changes.current_seq(conn):
                return

    def after_outside(self, *, catch_up: bool) -> None:
        """After another process's commits: when that process indexed them too (the folder's
        stamp is the store's sequence), a new searcher on its segments is all it takes, with
        no index work and no wait for its lock. Otherwise, with `catch_up`, the changes are
        indexed here (the other process did not, or gave up); without, nothing yet.
        Index trouble is logged, never raised."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            conn = self._reader()
            seq = changes.current_seq(conn)
            if self.index.stamp == seq:
                return
            def indexed_there() -> bool:
                return disk_stamp(self.index.index_dir) == seq

            if not indexed_there() and catch_up:
                # Between batches: the other process may have finished meanwhile.
                self._catch_up(conn, cancelled=indexed_there)
            if self.index.stamp != seq and indexed_there():
                self.index.update([], stamp=seq)  # no documents: no writer; reopens the searcher
        except Exception as exc:
            log.warning("search index not updated after another process's change (it catches up "
                        "later): %s: %s", type(exc).__name__, exc)
        finally:
            self._lock.release()

    def _catch_up(self, conn, progress: Progress = None, cancelled: CancelCheck = None) -> None:
        """Caller holds the lock. Indexes every commit up to now, a batch's deferred ones too."""
        self._deferred = 0
        seq = changes.current_seq(conn)
        stamp = self.index.stamp
        if stamp == seq:
            return
        changed, deleted = count_changed(conn, max(stamp, 0))
        # doc_count last: it opens a searcher on every segment, which a small catch-up never needs
        if stamp < 0 or stamp > seq or (changed > _REBUILD_THRESHOLD and changed > self.index.doc_count // 2):
            self._rebuild(conn, seq, progress, cancelled)
            return
        ids = changes.changed_ids(conn, stamp)
        done = 0
        for i in range(0, max(len(ids), 1), 1000):
            if cancelled and cancelled():
                return
            part = ids[i : i + 1000]
            last = i + 1000 >= len(ids)
            self.index.update(docs_for_ids(conn, part), deleted=deleted if last else [], stamp=seq if last else stamp)
            done += len(part)
            if progress:
                progress(done, len(ids), "Indexing")

    @contextmanager
    def bulk(self) -> Iterator[BulkImport]:
        """One import's indexing alongside its store transaction; open it around the transaction.

        Inside, `slot.start(seq, prepare, store_empty)` may give worker processes that index
        the new papers while the store writes them (they hold this upkeep's lock from then on).
        Leaving the block normally, after the store committed, adds their segments and catches
        the index up with any write that committed meanwhile; an exception drops them. The lock
        start_bulk took is let go here, and only here."""
        slot = BulkImport(self)
        try:
            try:
                yield slot
            except BaseException:
                if slot.index is not None:
                    slot.index.cancel()
                raise
            if slot.index is not None:
                slot.index.commit()  # stored: now searchable too (trouble is logged, never raised)
                # A write committed between the store's commit and the index's skipped its own
                # after-commit update (the index was busy): caught up here, still holding the lock.
                self._catch_up_logged()
        finally:
            self._release_bulk(slot)

    def _release_bulk(self, slot: BulkImport) -> None:
        if slot.held:
            slot.held = False
            self._lock.release()

    def _catch_up_logged(self) -> None:
        try:
            self._catch_up(self._reader())
        except Exception as exc:
            log.warning("search index not updated (it catches up later): %s: %s", type(exc).__name__, exc)

    def prestart_bulk(self, prepare: Prepare) -> None:
        """Start a coming import's index workers while its file is parsed (start_bulk takes
        them; drop_standby() ends those it did not). Nothing for a read-only index."""
        if self._standby is not None or self._read_only():
            return
        try:
            self._standby = self.index.standby_builder(prepare)
        except Exception as exc:  # no processes: start_bulk starts them (or imports without)
            log.warning("index workers not started ahead: %s: %s", type(exc).__name__, exc)

    def drop_standby(self) -> None:
        standby, self._standby = self._standby, None
        if standby is not None:
            standby.close()

    def start_bulk(self, seq: int, prepare: Prepare, store_empty: bool) -> BulkIndex | None:
        """Worker processes indexing an import's new papers while the store transaction that
        bumped the change sequence to `seq` writes them (see ingest.store_parsed); None when
        the index is not exactly one change behind (or, for a store still empty, empty), busy
        or read-only: it then catches up as usual. The caller (bulk()) holds the lock when one
        is returned and lets it go after BulkIndex.commit() or cancel()."""
        if self._read_only() or not self._lock.acquire(blocking=False):
            return None
        try:
            if self.index.stamp != seq - 1 and not (store_empty and self.index.doc_count == 0):
                self._lock.release()
                return None
            builder = self.index.segment_builder(prepare, self._standby)
            self._standby = None  # adopted (or ended, if they did not fit)
        except Exception as exc:  # another process holds the index, no processes: import as usual
            log.warning("indexing alongside the import not possible: %s: %s", type(exc).__name__, exc)
            self._lock.release()
            return None
        return BulkIndex(self, builder, seq)

    def sync(self, progress: Progress = None, cancelled: CancelCheck = None) -> None:
        """Catch the index up with the store (rebuilding it if missing, corrupt or stale).

        Safe to run on its own thread: store writes go on meanwhile and are picked up at the end."""
        if self._read_only():  # the index can't be written: search what exists, however stale
            return
        from .search import IndexLocked

        conn = self._reader()
        while True:
            with self._lock:
                try:
                    self._catch_up(conn, progress, cancelled)
                except IndexLocked:  # another process is writing the index: it catches up later
                    log.warning("search index busy in another process; searching as it is")
                    return
            if cancelled and cancelled():
                return
            if self.index.stamp == changes.current_seq(conn):
                self.maintain()
                return

    def maintain(self) -> bool:
        """Merge the small index segments that single-paper updates leave (call when idle)."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            return self.index.maintain()
        finally:
            self._lock.release()

    def reindex(self, progress: Progress = None, cancelled: CancelCheck = None) -> None:
        """Rebuild the index from SQLite from scratch."""
        if self._read_only():
            from .errors import READ_ONLY_MESSAGE, LibraryEnvironmentError

            raise LibraryEnvironmentError(READ_ONLY_MESSAGE)
        conn = self._reader()
        with self._lock:
            self._rebuild(conn, changes.current_seq(conn), progress, cancelled)
        self.sync(progress, cancelled)

    def _rebuild(self, conn, seq: int, progress: Progress, cancelled: CancelCheck) -> None:
        """Replace the whole index with every paper in the store (caller holds the index lock)."""
        total = q.count(conn)

        def prog(done: int, tot: int) -> None:
            if progress:
                progress(done, tot, "Indexing")

        self.index.rebuild(iter_docs(conn), stamp=seq, total=total, progress=prog, cancelled=cancelled)


class BulkImport:
    """What IndexUpkeep.bulk() yields: `start` gives an import's index workers (or None)."""

    def __init__(self, upkeep: IndexUpkeep) -> None:
        self._upkeep = upkeep
        self.index: BulkIndex | None = None
        self.held = False  # the upkeep's lock is held for the workers

    def start(self, seq: int, prepare: Prepare, store_empty: bool) -> BulkIndex | None:
        if self.index is None:
            self.index = self._upkeep.start_bulk(seq, prepare, store_empty)
            self.held = self.index is not None
        return self.index


class BulkIndex:
    """The index workers of one import (IndexUpkeep.start_bulk), run while IndexUpkeep.bulk()
    holds the upkeep's lock."""

    def __init__(self, upkeep: IndexUpkeep, builder: SegmentBuilder, seq: int) -> None:
        self._upkeep = upkeep
        self._builder = builder
        self._seq = seq
        self._open = True

    def map(self, payloads: Iterable[Any]) -> Iterator[Any]:
        return self._builder.map(payloads)

    def commit(self) -> None:
        """After the store committed: add the new segments, stamped with the import's change.
        Index trouble is logged, never raised: the stamp stays behind and a sync catches up."""
        if not self._open:
            return
        self._open = False
        try:
            self._upkeep.index.commit_builder(self._builder, self._seq)
        except Exception as exc:
            log.warning("search index not updated by the import (it catches up later): %s: %s",
                        type(exc).__name__, exc)

    def cancel(self) -> None:
        """The store transaction failed or was cancelled: drop the workers' segments."""
        if not self._open:
            return
        self._open = False
        try:
            self._upkeep.index.cancel_builder(self._builder)
        except Exception as exc:
            log.warning("cleaning up after a cancelled import's indexing failed: %s: %s",
                        type(exc).__name__, exc)
