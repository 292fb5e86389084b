"""Parallel rebuild: worker processes each index a share of the documents into a segment."""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
from collections.abc import Callable, Iterable
from typing import Any

from whoosh.filedb.filestore import FileStorage
from whoosh.index import clean_files

from reader.search.documents import doc_fields
from reader.search.writer import BulkWriter
from reader.workers import watch_parent

BATCH = 250  # documents per job: small enough to balance, big enough to amortise pickling


class Cancelled(Exception):
    """The caller's `cancelled()` returned True."""


def _worker(index_dir: str, options: dict[str, Any], jobs, results, me: int,
            parent: int | None = None) -> None:
    """Child process: index batches of store documents until None, then finish a segment."""
    if parent is not None:
        watch_parent(parent)
    try:
        ix = FileStorage(index_dir, supports_mmap=False).open_index()
        # _lk=False: the parent holds the index's write lock and commits our segment.
        w = BulkWriter(ix, _lk=False, **options)
        add = w.add_document
        while True:
            batch = jobs.get()
            if batch is None:
                break
            for doc in batch:
                add(**doc_fields(doc))
        if w._added:
            results.put((me, "ok", w._finalize_segment()))
        else:
            w._close_segment()
            results.put((me, "ok", None))
    except BaseException as e:  # report, don't hang the parent
        results.put((me, "error", f"{type(e).__name__}: {e}"))


def parallel_rebuild(ix, options: dict[str, Any], docs: Iterable[dict], procs: int, *,
                     total: int, progress: Callable[[int, int], None] | None,
                     cancelled: Callable[[], bool] | None, progress_every: int) -> int:
    """Replace the index's segments with ones built by `procs` processes; returns the count.

    Processes are started with "spawn" (the GUI process has threads, so no fork); a frozen
    app must call multiprocessing.freeze_support() at start-up. Raises Cancelled.
    """
    ctx = mp.get_context("spawn")
    jobs = ctx.Queue(maxsize=procs * 4)
    results = ctx.Queue()
    index_dir = ix.storage.folder
    w = BulkWriter(ix, **options)  # takes the write lock; its own segment stays empty
    workers = [ctx.Process(target=_worker, args=(index_dir, options, jobs, results, i, os.getpid()),
                           daemon=True, name=f"reader-index-{i}") for i in range(procs)]
    started = []
    try:
        for p in workers:
            p.start()
            started.append(p)

        def put(item) -> None:
            while True:
                try:
                    jobs.put(item, timeout=0.5)
                    return
                except queue.Full:
                    _check_alive(workers, results)

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
        for _ in workers:
            put(None)
        segments = []
        pending = set(range(procs))
        while pending:
            i, status, value = _result(workers, pending, results)
            pending.discard(i)
            if status != "ok":
                raise RuntimeError(f"an indexing process failed: {value}")
            if value is not None:
                segments.append(value)
        if cancelled is not None and cancelled():
            raise Cancelled
        for p in workers:
            p.join(5)
        w._close_segment()
        w._commit_toc(segments)  # like MpWriter(multisegment=True): no merge
        w._finish()
        return n
    except BaseException:
        for p in started:
            if p.is_alive():
                p.terminate()
        for p in started:
            p.join(5)
        try:
            w.cancel()
        finally:
            # Remove the workers' half-written segments (files not in the current TOC).
            toc = ix._read_toc()
            clean_files(ix.storage, ix.indexname, toc.generation, toc.segments)
        raise
    finally:
        # After a cancel or a failure the killed workers never read what is still queued; without
        # this the queue's feeder thread blocks the process at exit.
        jobs.cancel_join_thread()
        results.cancel_join_thread()
        jobs.close()
        results.close()


def _check_alive(workers, results) -> None:
    for p in workers:
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
