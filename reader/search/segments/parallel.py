"""Index building in worker processes, each indexing a share of the documents into a segment (rebuilds, big imports)."""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import queue
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from whoosh.filedb.filestore import FileStorage
from whoosh.index import clean_files

from reader.search.documents import doc_fields
from reader.search.segments.writer import BulkWriter
from reader.workers import watch_parent

BATCH = 250  # documents per job: small enough to balance, big enough to amortise pickling
# Turns one job's payload into (what goes back to the parent, store documents to index).
Prepare = Callable[[Any], tuple[Any, list[dict]]]


class Cancelled(Exception):
    """The caller's `cancelled()` returned True."""


def _worker(index_dir: str, options: dict[str, Any], jobs, results, me: int,
            parent: int | None = None, prepare: Prepare | None = None) -> None:
    """Child process: index batches of store documents until None, then finish a segment.

    With `prepare`, a job is (number, payload): prepare(payload) gives (out, docs); `out`
    goes back to the parent at once (so it can store it while we index `docs`)."""
    if parent is not None:
        watch_parent(parent)
    # The build keeps millions of objects alive (terms, postings, stems) and makes no cycles
    # to speak of: the collector's passes over them cost ~5% of a worker's time.
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
    try:
        w = None
        while True:
            batch = jobs.get()
            if batch is None:
                break
            if w is None:  # at the first job: a Standby's worker starts before the lock is held
                ix = FileStorage(index_dir, supports_mmap=False).open_index()
                # _lk=False: the parent holds the index's write lock and commits our segment.
                w = BulkWriter(ix, _lk=False, **options)
                add = w.add_document
            if prepare is not None:
                number, payload = batch
                out, batch = prepare(payload)
                results.put((me, "out", (number, out)))
            for doc in batch:
                add(**doc_fields(doc))
        if w is not None and w._added:
            results.put((me, "ok", w._finalize_segment()))
        else:
            if w is not None:
                w._close_segment()
            results.put((me, "ok", None))
    except BaseException as e:  # report, don't hang the parent
        results.put((me, "error", f"{type(e).__name__}: {e}"))


def parallel_rebuild(ix, options: dict[str, Any], docs: Iterable[dict], procs: int, *,
                     total: int, progress: Callable[[int, int], None] | None,
                     cancelled: Callable[[], bool] | None, progress_every: int) -> int:
    """Replace the index's segments with ones built by `procs` processes; returns the count.

    One function on purpose (~80 lines): feeding, collecting and the cleanup on any failure
    share the workers, the queues and the writer's lock.

    Processes are started with "spawn" (the GUI process has threads, so no fork); a frozen
    app must call multiprocessing.freeze_support() at start-up. Raises Cancelled.
    """
    ctx = mp.get_context("spawn")
    # A queue per worker, dealt in turn: which papers share a segment, and in what order, never
    # depends on which worker was quicker (a shared queue made two builds of one library differ
    # in their segments, and so in budget-bounded totals and tie order).
    queues = [ctx.Queue(maxsize=4) for _ in range(procs)]
    results = ctx.Queue()
    index_dir = ix.storage.folder
    w = BulkWriter(ix, **options)  # takes the write lock; its own segment stays empty
    workers = [ctx.Process(target=_worker, args=(index_dir, options, queues[i], results, i, os.getpid()),
                           daemon=True, name=f"reader-index-{i}") for i in range(procs)]
    started = []
    try:
        for p in workers:
            p.start()
            started.append(p)

        dealt = [0]

        def put(item, to: int | None = None) -> None:
            if to is None:
                to, dealt[0] = dealt[0] % procs, dealt[0] + 1
            while True:
                try:
                    queues[to].put(item, timeout=0.5)
                    return
                except queue.Full:
                    _check_alive(workers, results, [to])

        n = 0
        batch: list[dict] = []
        for doc in docs:
            batch.append(doc)
            n += 1
            if len(batch) >= BATCH:
                put(batch)
                batch = []
            if n % progress_every == 0:
                if cancelled is not None and cancelled():
                    raise Cancelled
                if progress is not None:
                    progress(n, total)
        if batch:
            put(batch)
        for i in range(procs):
            put(None, i)
        segments = _segments(workers, results)
        if cancelled is not None and cancelled():
            raise Cancelled
        for p in workers:
            p.join(5)
        w._close_segment()
        w._commit_toc(segments)  # like MpWriter(multisegment=True): no merge
        w._finish()
        return n
    except BaseException:
        _end(started)
        try:
            w.cancel()
        finally:
            # Remove the workers' half-written segments (files not in the current TOC).
            toc = ix._read_toc()
            clean_files(ix.storage, ix.indexname, toc.generation, toc.segments)
        raise
    finally:
        _close_queues(*queues, results)


def _segments(workers, results, found: dict[int, Any] | None = None) -> list:
    """Each worker's finished segment (None: it got no documents), in the workers' order, not
    in the order they finished: the index's segments are the same whichever was quicker.
    `found`: the segments already reported (by worker)."""
    found = dict(found or {})
    pending = set(range(len(workers))) - set(found)
    while pending:
        i, status, value = _result(workers, pending, results)
        pending.discard(i)
        if status != "ok":
            raise RuntimeError(f"an indexing process failed: {value}")
        found[i] = value
    return [found[i] for i in sorted(found) if found[i] is not None]


def _check_alive(workers, results, which: Iterable[int] | None = None) -> None:
    """Raise if a worker (of `which`: those still to take a job or None) has died."""
    for i in range(len(workers)) if which is None else which:
        p = workers[i]
        if not p.is_alive():
            try:
                _, _, value = results.get_nowait()
            except queue.Empty:
                value = f"exit code {p.exitcode}"
            raise RuntimeError(f"an indexing process failed: {value}")


def _result(workers, pending: set[int], results) -> tuple[int, str, Any]:
    """The next worker's (index, status, segment or message); a worker that died without
    reporting is an error (after a grace period for its message to arrive)."""
    while True:
        try:
            return results.get(timeout=0.5)
        except queue.Empty:
            dead = [i for i in pending if not workers[i].is_alive()]
            if dead:
                try:
                    return results.get(timeout=2)
                except queue.Empty:
                    code = workers[dead[0]].exitcode
                    return dead[0], "error", f"it exited early (exit code {code})"


class SegmentBuilder(ABC):
    """Prepares an import's jobs and indexes the documents they make into new segments;
    commit() adds those segments to the index's current ones, cancel() drops them. Holds the
    index's write lock until then."""

    @abstractmethod
    def map(self, payloads: Iterable[Any]) -> Iterator[Any]:
        """Each payload's prepared `out`, in order."""

    @abstractmethod
    def commit(self) -> int:
        """Add the new segments to the index; returns the documents added."""

    @abstractmethod
    def cancel(self) -> None:
        """Drop the new segments; the index is unchanged."""


class ProcessSegmentBuilder(SegmentBuilder):
    """Worker processes that prepare jobs for the parent and index the documents they made,
    each into a new segment; commit() adds those segments to the index's current ones.

    For imports: a worker turns parsed records into store rows (sent back at once, so the
    parent stores them meanwhile) and indexes their documents, so nothing is analysed,
    pickled or read back twice. Holds the index's write lock until commit() or cancel()."""

    def __init__(self, ix, options: dict[str, Any], procs: int, prepare: Prepare,
                 standby: Standby | None = None) -> None:
        self._ix = ix
        self._w = BulkWriter(ix, **options)  # takes the write lock; its own segment stays empty
        try:
            if standby is None or not standby.fits(ix.storage.folder, procs, prepare):
                if standby is not None:
                    standby.close()
                standby = Standby(ix.storage.folder, options, procs, prepare)
        except BaseException:
            self._w.cancel()
            raise
        # A queue per worker, jobs dealt in turn (see parallel_rebuild): the same segments
        # whichever worker is quicker.
        self._queues, self._results = standby.queues, standby.results
        self._workers = self._started = standby.workers
        # Workers told that no more jobs come (they finish their segment meanwhile), and the
        # segments that came back before commit().
        self._stopped: set[int] = set()
        self._finished: dict[int, Any] = {}

    def map(self, payloads: Iterable[Any]) -> Iterator[Any]:
        """Each payload's prepared `out`, in order, as the workers deliver them.

        Once every payload is dealt, each worker is told so and writes its segment while the
        caller finishes (stores the last rows, builds its tables' indexes, commits): at 100k
        papers that is a few seconds the workers used to spend waiting for commit()."""
        items = iter(payloads)
        ready: dict[int, Any] = {}
        held: tuple[int, Any] | None = None
        sent = got = 0
        exhausted = False
        while True:
            while not exhausted:  # keep the workers fed
                if held is None:
                    try:
                        held = (sent, next(items))
                    except StopIteration:
                        exhausted = True
                        break
                try:
                    self._queues[sent % len(self._queues)].put_nowait(held)
                except queue.Full:
                    break
                held = None
                sent += 1
            if exhausted:
                self._stop(wait=False)
            if got in ready:
                yield ready.pop(got)
                got += 1
                continue
            if exhausted and got == sent:
                self._stop(wait=True)
                return
            pending = set(range(len(self._workers))) - set(self._finished)
            i, status, value = _result(self._workers, pending, self._results)
            if status == "ok":  # a worker that had its last job: its segment, for commit()
                self._finished[i] = value
            elif status != "out":
                raise RuntimeError(f"an indexing process failed: {value}")
            else:
                ready[value[0]] = value[1]

    def _stop(self, *, wait: bool) -> None:
        """Tell each worker that no more jobs come (wait: until every queue took it)."""
        for i, jobs in enumerate(self._queues):
            while i not in self._stopped:
                try:
                    if wait:
                        jobs.put(None, timeout=0.5)
                    else:
                        jobs.put_nowait(None)
                    self._stopped.add(i)
                except queue.Full:
                    if not wait:
                        break
                    _check_alive(self._workers, self._results, [i])

    def commit(self) -> int:
        """Finish the workers' segments and add them to the index; returns the documents added."""
        self._stop(wait=True)
        segments = _segments(self._workers, self._results, self._finished)
        for p in self._workers:
            p.join(5)
        w = self._w
        w._close_segment()
        w._commit_toc(list(w.segments) + segments)
        w._finish()
        self._close_queues()
        return sum(s.doc_count_all() for s in segments)

    def cancel(self) -> None:
        """Stop the workers and remove their half-written segments; the index is unchanged."""
        _end(self._started)
        try:
            if not self._w.is_closed:
                self._w.cancel()
        finally:
            toc = self._ix._read_toc()
            clean_files(self._ix.storage, self._ix.indexname, toc.generation, toc.segments)
            self._close_queues()

    def _close_queues(self) -> None:
        _close_queues(*self._queues, self._results)


class Standby:
    """An import's index workers started ahead, while its file is parsed: spawning them and
    importing their modules (~1 s) then overlaps the parse instead of following it. They open
    the index only at their first job, so they may start before the write lock is taken. A
    ProcessSegmentBuilder adopts them; close() ends those never adopted."""

    def __init__(self, index_dir: str, options: dict[str, Any], procs: int, prepare: Prepare) -> None:
        ctx = mp.get_context("spawn")
        self._key = (str(index_dir), procs, prepare)
        self.queues = [ctx.Queue(maxsize=2) for _ in range(procs)]
        self.results = ctx.Queue()
        self.workers = [
            ctx.Process(target=_worker, args=(str(index_dir), options, self.queues[i], self.results,
                                              i, os.getpid(), prepare),
                        daemon=True, name=f"reader-index-{i}") for i in range(procs)]
        self.started: list = []
        try:
            for p in self.workers:
                p.start()
                self.started.append(p)
        except BaseException:
            self.close()
            raise

    def fits(self, index_dir: str, procs: int, prepare: Prepare) -> bool:
        """Started for this index, with this many workers and this job, and all still running."""
        return self._key == (str(index_dir), procs, prepare) and len(self.started) == procs \
            and all(p.is_alive() for p in self.started)

    def close(self) -> None:
        """End workers never adopted (they hold nothing yet: no index open, no segment)."""
        _end(self.started)
        _close_queues(*self.queues, self.results)


def _end(processes: list) -> None:
    """Terminate the processes still running and reap them all."""
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(5)


def _close_queues(*queues) -> None:
    # Killed workers never read what is still queued; without this the queues' feeder threads
    # block the process at exit.
    for q in queues:
        q.cancel_join_thread()
        q.close()
