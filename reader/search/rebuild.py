"""Rebuilding the index and adding an import's segments: by the fast path (BulkWriter, in
worker processes for big ones) or, when it is off (fastpath.enabled), by Whoosh's own
writer in this process, with the same word-pair choices so that searches give the same hits
and scores either way."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from whoosh.index import TOC, clean_files
from whoosh.writing import CLEAR, NO_MERGE

from reader.search.documents import doc_fields
from reader.search.schema import (
    PAIR_SAMPLE_DOCS,
    PAIR_SAMPLE_MIN_DF,
    PairTerms,
    analyze,
    bigrams,
    pair_bucket,
)
from reader.search.segments import (
    BulkWriter,
    Cancelled,
    Prepare,
    ProcessSegmentBuilder,
    SegmentBuilder,
    Standby,
    parallel_rebuild,
)
from reader.search.segments import fast_path_enabled as fast

PARALLEL_MIN_DOCS = 5000  # smaller rebuilds stay in-process (starting processes costs ~0.5 s)
PROGRESS_EVERY = 250
Progress = Callable[[int, int], None] | None
CancelCheck = Callable[[], bool] | None


def rebuild(ix, options: dict[str, Any], procs: int, docs: Iterable[dict], *, total: int,
            progress: Progress, cancelled: CancelCheck) -> int | None:
    """Replace the index's documents with `docs` in one commit; the count, or None if
    cancelled (then nothing changed). `total`: the count expected (0: unknown)."""
    # Whichever writer, a cancelled or failed rebuild leaves no file of its own behind (the
    # fast writer's cancel left its segment's files: three strays per Cancel in the index folder).
    try:
        n = _rebuild(ix, options, procs, docs, total, progress, cancelled)
    except BaseException:
        drop_unused_files(ix)
        raise
    if n is None:
        drop_unused_files(ix)
    return n


def _rebuild(ix, options: dict[str, Any], procs: int, docs: Iterable[dict], total: int,
             progress: Progress, cancelled: CancelCheck) -> int | None:
    if not fast():
        return _write_all(ix.writer(**options), docs, total, progress, cancelled, PairPlan(ix.schema))
    if procs > 1 and total >= PARALLEL_MIN_DOCS:
        try:
            return parallel_rebuild(ix, options, docs, procs, total=total, progress=progress,
                                    cancelled=cancelled, progress_every=PROGRESS_EVERY)
        except Cancelled:
            return None
    return _write_all(BulkWriter(ix, **options), docs, total, progress, cancelled)


def _write_all(w, docs: Iterable[dict], total: int, progress: Progress, cancelled: CancelCheck,
               plan: PairPlan | None = None) -> int | None:
    n = 0
    try:
        add = w.add_document
        for doc in docs:
            if n % PROGRESS_EVERY == 0:
                if cancelled is not None and cancelled():
                    w.cancel()
                    return None
                if progress is not None:
                    progress(n, total)
            fields = doc_fields(doc)
            for ready in plan.add(fields) if plan is not None else (fields,):
                add(**ready)
            n += 1
        for ready in plan.finish() if plan is not None else ():
            add(**ready)
        if cancelled is not None and cancelled():
            w.cancel()
            return None
        w.commit(mergetype=CLEAR)
    except BaseException:
        cancel_quietly(w)
        raise
    return n


def segment_builder(ix, options: dict[str, Any], procs: int, prepare: Prepare,
                    standby: Standby | None = None) -> SegmentBuilder:
    """Worker processes preparing an import's jobs and indexing their documents (parallel.
    SegmentBuilder), `standby`'s if they fit; with the fast path off, the same done here by
    Whoosh's writer."""
    if fast():
        return ProcessSegmentBuilder(ix, options, procs, prepare, standby)
    if standby is not None:
        standby.close()
    return PublicSegmentBuilder(ix, options, prepare)


def standby(ix, options: dict[str, Any], procs: int, prepare: Prepare) -> Standby | None:
    """segment_builder()'s workers started ahead (None with the fast path off)."""
    return Standby(ix.storage.folder, options, procs, prepare) if fast() else None


class PublicSegmentBuilder(SegmentBuilder):
    """SegmentBuilder's interface over Whoosh's own writer, in this process: each payload is
    prepared at once, its documents are written at commit() into one new segment."""

    def __init__(self, ix, options: dict[str, Any], prepare: Prepare) -> None:
        self._ix = ix
        self._w = ix.writer(**options)  # takes the write lock
        self._prepare = prepare
        self._docs: list[dict] = []

    def map(self, payloads: Iterable[Any]) -> Iterator[Any]:
        for payload in payloads:
            out, docs = self._prepare(payload)
            self._docs.extend(docs)
            yield out

    def commit(self) -> int:
        plan = PairPlan(self._w.schema)
        add = self._w.add_document
        for doc in self._docs:
            for ready in plan.add(doc_fields(doc)):
                add(**ready)
        for ready in plan.finish():
            add(**ready)
        self._w.commit(mergetype=NO_MERGE)  # like the workers' segments: added, not merged
        n, self._docs = len(self._docs), []
        return n

    def cancel(self) -> None:
        self._docs = []
        if not self._w.is_closed:
            cancel_quietly(self._w)
        drop_unused_files(self._ix)


class PairPlan:
    """Word-pair terms chosen as BulkWriter chooses them (writer.py): a pair gets its own term
    if PAIR_SAMPLE_MIN_DF of the field's first PAIR_SAMPLE_DOCS values have it, else it goes
    to its bucket; each term counts once per document. A document waits until its pair
    fields are decided, so documents are written in their order (the same numbers)."""

    def __init__(self, schema) -> None:
        self._fields = {name: schema[name] for name in schema.names()
                        if getattr(schema[name], "pairs", False)}
        self._df: dict[str, Counter[str]] = {name: Counter() for name in self._fields}
        self._seen: dict[str, int] = dict.fromkeys(self._fields, 0)
        self._frequent: dict[str, set[str]] = {}
        self._pending: deque[tuple[dict, dict[str, list[str]]]] = deque()

    def add(self, fields: dict) -> list[dict]:
        """The documents ready to write (in order) once `fields` is added."""
        pairs: dict[str, list[str]] = {}
        for name, field in self._fields.items():
            value = fields.get(name)
            if not isinstance(value, str):
                continue
            pairs[name] = found = bigrams(analyze(value, field.stemmed))
            if name not in self._frequent:
                self._df[name].update(set(found))
                self._seen[name] += 1
                if self._seen[name] >= PAIR_SAMPLE_DOCS:
                    self._decide(name)
        self._pending.append((fields, pairs))
        return self._ready()

    def finish(self) -> list[dict]:
        """The documents still waiting (every field decided on what it has seen)."""
        for name in self._fields:
            if name not in self._frequent:
                self._decide(name)
        return self._ready()

    def _decide(self, name: str) -> None:
        self._frequent[name] = {p for p, n in self._df.pop(name).items() if n >= PAIR_SAMPLE_MIN_DF}

    def _ready(self) -> list[dict]:
        out = []
        frequent = self._frequent
        while self._pending and all(name in frequent for name in self._pending[0][1]):
            fields, pairs = self._pending.popleft()
            for name, found in pairs.items():
                distinct = set(found)
                exact = distinct & frequent[name]
                buckets = {pair_bucket(p) for p in distinct - exact}
                fields[name] = PairTerms(tuple(sorted(exact | buckets)), len(found))
            out.append(fields)
        return out


def cancel_quietly(w) -> None:
    try:
        w.cancel()
    except Exception:  # already cancelled or closed: nothing left to undo
        pass


def drop_unused_files(ix) -> None:
    """Remove files no committed segment uses: Whoosh's cancel() leaves the new segment's
    column files behind. Under the index's write lock: another process's writer that took it
    meanwhile has files of its own under way (and cleans up as it commits)."""
    lock = ix.lock("WRITELOCK")
    if not lock.acquire(blocking=False):
        return
    try:
        toc = TOC.read(ix.storage, ix.indexname)
        clean_files(ix.storage, ix.indexname, toc.generation, toc.segments)
    finally:
        lock.release()
