"""SearchIndex: the Whoosh full-text index derived from the store (rebuildable at any time)."""

from __future__ import annotations

import json
import math
import os
import shutil
import threading
from collections.abc import Callable, Iterable
from itertools import islice
from pathlib import Path
from typing import Any

from whoosh import index as windex
from whoosh import query as wq
from whoosh.codec.whoosh3 import W3Codec
from whoosh.filedb.filestore import FileStorage
from whoosh.searching import Searcher
from whoosh.writing import CLEAR

from reader.search.parallel import Cancelled, parallel_rebuild
from reader.search.query import ParsedQuery, highlight_terms, make_parser, parse_query
from reader.search.results import Hit, SearchResults
from reader.search.documents import doc_fields
from reader.search.schema import (
    SCHEMA_VERSION,
    build_schema,
    cached_stem,
    plain_words,
)
from reader.search.snippets import make_snippet
from reader.search.writer import BulkWriter

STAMP_FILE = "reader-stamp.json"
SNIPPETS = 50
EXACT_TOTAL_UP_TO = 2000  # count matches exactly when Whoosh estimates at most this many
MERGE_AFTER_SEGMENTS = 10  # maintain() merges small segments once there are this many
MAX_SMALL_SEGMENTS = 40  # update() merges them itself past this many (rare: bounds searches)
SMALL_SEGMENT = 2000  # documents; bigger segments (from rebuilds) are never merged by update()
RELATED_TERMS = 8  # key terms of a paper searched by related()
RELATED_FIELDS = ("title", "abstract")
RELATED_MAX_DF_DIVISOR = 100  # related() skips words in more than 1/100 of the papers
RESTRICT_LOOKUPS = 300  # restrict= sets up to this size are looked up id by id
SUGGEST_PREFIX = 1  # "did you mean" keeps the first letter (a full scan is ~1 s at 50k)
PARALLEL_MIN_DOCS = 5000  # smaller rebuilds stay in-process (starting processes costs ~0.5 s)
_PROGRESS_EVERY = 250


class SearchIndex:
    """Whoosh index in one directory. Writes from one thread; searches from any thread."""

    # Writer options for rebuild(); measured in benchmarks/bench_search.py.
    # Uncompressed posting blocks build ~10-30% faster; the index grows (see the benchmark).
    rebuild_options: dict[str, Any] = {"codec": W3Codec(compression=0)}
    # Worker processes for large rebuilds (1: always in-process).
    rebuild_procs: int = min(2, os.cpu_count() or 1)

    def __init__(self, index_dir: Path, ix: windex.Index, stamp: int,
                 was_reset: bool = False, reset_reason: str | None = None) -> None:
        self.index_dir = Path(index_dir)
        self._ix = ix
        self.stamp = stamp
        self.was_reset = was_reset
        self.reset_reason = reset_reason
        self._parser = make_parser(ix.schema)
        self._write_lock = threading.Lock()
        # Whoosh searchers share file handles (seek+read), so reads are serialised too.
        self._read_lock = threading.RLock()
        self._searcher: Searcher | None = ix.searcher()

    # -- opening -------------------------------------------------------------------------

    @staticmethod
    def _storage(index_dir: Path) -> FileStorage:
        # No mmap: opening a segment then costs ~7 ms instead of ~90 ms at 100k docs.
        return FileStorage(str(index_dir), supports_mmap=False)

    @classmethod
    def open(cls, index_dir: Path) -> SearchIndex:
        """Open (or create) the index; a corrupt or outdated one is wiped and recreated empty."""
        index_dir = Path(index_dir)
        reason: str | None = None
        try:
            index_dir.mkdir(parents=True, exist_ok=True)
            storage = cls._storage(index_dir)
            if windex.exists(storage):
                meta = _read_meta(index_dir)
                if meta is None:
                    reason = "the index has no readable stamp file"
                elif meta.get("schema") != SCHEMA_VERSION:
                    reason = "the index was built by another version of Reader"
                else:
                    ix = storage.open_index()
                    _check(ix)
                    return cls(index_dir, ix, int(meta.get("stamp", -1)))
            elif any(index_dir.iterdir()):
                reason = "the index directory holds no usable index"
            else:
                ix = storage.create_index(build_schema())
                _write_meta(index_dir, -1)
                return cls(index_dir, ix, -1)
        except Exception as e:  # any failure to read means: start again
            reason = f"the index could not be read ({type(e).__name__}: {e})"
        shutil.rmtree(index_dir, ignore_errors=True)
        index_dir.mkdir(parents=True, exist_ok=True)
        ix = cls._storage(index_dir).create_index(build_schema())
        _write_meta(index_dir, -1)
        return cls(index_dir, ix, -1, was_reset=True, reset_reason=reason)

    # -- writing -------------------------------------------------------------------------

    def rebuild(self, docs: Iterable[dict], *, stamp: int, total: int | None = None,
                progress: Callable[[int, int], None] | None = None,
                cancelled: Callable[[], bool] | None = None) -> None:
        """Replace the whole index with `docs` in one commit; if cancelled, nothing changes."""
        with self._write_lock:
            opts = dict(self.rebuild_options)
            procs = opts.pop("procs", self.rebuild_procs)
            size = total if total is not None else (
                len(docs) if hasattr(docs, "__len__") else 0)  # type: ignore[arg-type]
            if procs > 1 and size >= PARALLEL_MIN_DOCS:
                try:
                    n = parallel_rebuild(self._ix, opts, docs, procs, total=size,
                                         progress=progress, cancelled=cancelled,
                                         progress_every=_PROGRESS_EVERY)
                except Cancelled:
                    return
            else:
                n = self._rebuild_here(opts, docs, total, progress, cancelled)
                if n < 0:
                    return
            self._after_commit(stamp)
            if progress is not None:
                progress(n, total or n)

    def _rebuild_here(self, opts: dict[str, Any], docs: Iterable[dict], total: int | None,
                      progress: Callable[[int, int], None] | None,
                      cancelled: Callable[[], bool] | None) -> int:
        """In-process rebuild; returns the document count, or -1 if cancelled."""
        w = BulkWriter(self._ix, **opts)
        n = 0
        try:
            add = w.add_document
            for doc in docs:
                if n % _PROGRESS_EVERY == 0:
                    if cancelled is not None and cancelled():
                        w.cancel()
                        return -1
                    if progress is not None:
                        progress(n, total or 0)
                add(**doc_fields(doc))
                n += 1
            if cancelled is not None and cancelled():
                w.cancel()
                return -1
            w.commit(mergetype=CLEAR)
        except BaseException:
            _cancel_quietly(w)
            raise
        return n

    def update(self, docs: list[dict], *, deleted: Iterable[str] = (), stamp: int) -> None:
        """Add/replace `docs` and delete ids in `deleted`, in one commit."""
        deleted = list(deleted)
        with self._write_lock:
            if docs or deleted:
                w = self._ix.writer()
                try:
                    for pid in deleted:
                        w.delete_by_term("id", pid)
                    for doc in docs:
                        w.update_document(**doc_fields(doc))
                    # No merge on this interactive path (merging ten 1-paper segments
                    # costs ~150-300 ms): maintain() does it when idle; past a hard cap
                    # it happens here anyway so the segment count stays bounded.
                    w.commit(mergetype=_merge_small_segments(MAX_SMALL_SEGMENTS))
                except BaseException:
                    _cancel_quietly(w)
                    raise
            self._after_commit(stamp)

    def maintain(self) -> bool:
        """Merge the small segments left by update() once there are MERGE_AFTER_SEGMENTS
        of them (~20-30 ms per paper-sized segment). For idle time; returns True if done."""
        with self._write_lock:
            small = [s for s in self._ix._segments() if s.doc_count_all() < SMALL_SEGMENT]
            if len(small) < MERGE_AFTER_SEGMENTS:
                return False
            w = self._ix.writer()
            try:
                w.commit(mergetype=_merge_small_segments(2))
            except BaseException:
                _cancel_quietly(w)
                raise
            self._after_commit(self.stamp)
            return True

    def _after_commit(self, stamp: int) -> None:
        # The stamp is written after the commit: a crash in between leaves an older stamp,
        # and replaying changes since then is harmless (updates are by unique id).
        _write_meta(self.index_dir, stamp)
        self.stamp = stamp
        # A new searcher, not Searcher.refresh(): whoosh-reloaded 2.7.5's refresh keeps the
        # readers of segments that a merge or CLEAR removed (duplicate or stale hits).
        new = self._ix.searcher()
        with self._read_lock:
            old, self._searcher = self._searcher, new
        if old is not None:
            old.close()

    # -- reading -------------------------------------------------------------------------

    @property
    def doc_count(self) -> int:
        with self._read_lock:
            return self._s().doc_count()

    def _s(self) -> Searcher:
        if self._searcher is None:
            raise RuntimeError("SearchIndex is closed")
        return self._searcher

    def parse(self, query: str) -> ParsedQuery:
        """The checked query (no search); useful for showing `problem` as the user types."""
        return parse_query(query, self._parser)

    def search(self, query: str, *, limit: int | None = 200,
               restrict: set[str] | None = None) -> SearchResults:
        """Best `limit` hits (None: all); `restrict` limits hits to those paper ids."""
        pq = parse_query(query, self._parser)
        res = SearchResults(query=query, problem=pq.problem, terms=pq.terms,
                            filters_only=pq.filters_only)
        if pq.query is None:
            return res
        with self._read_lock:
            s = self._s()
            flt = None
            post = None  # a big restrict set: filter the hits instead
            if restrict is not None:
                if not restrict:
                    return res
                if len(restrict) <= RESTRICT_LOOKUPS:
                    flt = self._docnums(s, restrict)
                    if not flt:
                        return res
                else:
                    post = restrict
            try:
                q = pq.query
                r = s.search(q, limit=None if post is not None else limit, filter=flt,
                             scored=not pq.filters_only, terms=False)
                ids = s.reader().column_reader("id")
                if post is None:
                    docnums = [(hit.docnum, hit.score) for hit in r]
                else:
                    docnums = [(dn, sc) for sc, dn in r.top_n if ids[dn] in post]
                    res.total = len(docnums)
                    docnums = docnums[:limit] if limit is not None else docnums
                if post is not None:
                    pass
                elif limit is None or len(docnums) < limit:
                    res.total = len(docnums)
                elif r.has_exact_length() or r.estimated_length() <= EXACT_TOTAL_UP_TO:
                    res.total = len(r)
                else:
                    # Counting every match would re-run the query; an estimate is enough
                    # for "200 of about N".
                    res.total = max(len(docnums), min(r.estimated_length(), s.doc_count()))
                stems, prefixes = highlight_terms(q, s.reader())
                for i, (dn, score) in enumerate(docnums):
                    snippet = ""
                    if i < SNIPPETS:
                        stored = s.stored_fields(dn)
                        snippet = make_snippet(stored.get("abstract", ""), stems, prefixes)
                    res.hits.append(Hit(ids[dn], float(score or 0.0), snippet))
            except Exception as e:  # a damaged segment: report, don't crash the GUI
                res.problem = f"Search failed ({type(e).__name__}: {e}); rebuild the index"
                return res
        # No "did you mean" for fuzzy queries: the user already asked for near matches.
        if not res.hits and not pq.filters_only and not pq.fallback and "~" not in query:
            res.suggestion = self.suggest(query)
        return res

    def _docnums(self, s: Searcher, ids: set[str]) -> set[int]:
        out: set[int] = set()
        for pid in ids:
            dn = s.document_number(id=pid)
            if dn is not None:
                out.add(dn)
        return out

    def snippet(self, text: str, query: str) -> str:
        """Snippet of any `text` for `query` (e.g. for hits past the first SNIPPETS)."""
        pq = parse_query(query, self._parser)
        if pq.query is None:
            return make_snippet(text, frozenset())
        with self._read_lock:
            stems, prefixes = highlight_terms(pq.query, self._s().reader())
        return make_snippet(text, stems, prefixes)

    def related(self, paper_id: str, *, limit: int = 10) -> list[tuple[str, float]]:
        """More-like-this over title+abstract key terms; the paper itself is excluded."""
        with self._read_lock:
            s = self._s()
            dn = s.document_number(id=paper_id)
            if dn is None:
                return []
            stored = s.stored_fields(dn)
            text = f"{stored.get('title', '')} {stored.get('abstract', '')}"
            keys = _key_terms(s, text, RELATED_TERMS)
            if not keys:
                return []
            q = wq.Or([wq.Term(f, t, boost=w) for t, w in keys for f in RELATED_FIELDS])
            r = s.search(q, limit=limit, mask={dn}, terms=False)
            ids = s.reader().column_reader("id")
            return [(ids[h.docnum], float(h.score)) for h in r]

    def suggest(self, query: str) -> str | None:
        """A corrected query ("did you mean") if some word is unknown and has a close match.

        The stemmed fields have no separate spelling word list (it would slow indexing and
        breaks Whoosh's fuzzy terms on stemmed fields), so the corrector proposes a stem and
        a word with that stem is read back from a paper that contains it.
        """
        pq = parse_query(query, self._parser)
        if not pq.terms:
            return None
        with self._read_lock:
            s = self._s()
            reader = s.reader()
            text = query
            changed = False
            for word in pq.terms:
                if not plain_words(word):
                    continue
                st = cached_stem(word)
                if reader.doc_frequency("abstract", st) or reader.doc_frequency("title", st):
                    continue
                best: tuple[float, str, str] | None = None
                for fn in ("title", "abstract"):
                    for cand in s.corrector(fn).suggest(st, limit=1, maxdist=2, prefix=SUGGEST_PREFIX):
                        freq = reader.doc_frequency(fn, cand)
                        if best is None or freq > best[0]:
                            best = (freq, fn, cand)
                if best is None:
                    continue
                surface = self._surface_word(s, best[1], best[2])
                if surface and surface != word:
                    text, n = _replace_word(text, word, surface)
                    changed = changed or n > 0
        return text if changed else None

    @staticmethod
    def _surface_word(s: Searcher, fieldname: str, stem: str) -> str | None:
        """A word as written in some paper whose stem is `stem`."""
        for dn in islice(s.reader().postings(fieldname, stem).all_ids(), 3):
            stored = s.stored_fields(dn)
            for w in plain_words(stored.get(fieldname, "")):
                if cached_stem(w) == stem:
                    return w
        return stem

    def close(self) -> None:
        try:
            self.maintain()
        except Exception:  # a failed merge leaves the segments as they were
            pass
        with self._write_lock, self._read_lock:
            if self._searcher is not None:
                self._searcher.close()
                self._searcher = None
            self._ix.close()


def _merge_small_segments(at_least: int):
    """Merge policy: fold the segments under SMALL_SEGMENT documents into the new one when
    there are `at_least` of them; big segments (from rebuilds) are never rewritten."""

    def policy(writer, segments: list) -> list:
        small = [s for s in segments if s.doc_count_all() < SMALL_SEGMENT]
        if len(small) < at_least:
            return segments
        from whoosh.reading import SegmentReader

        keep = []
        for seg in segments:
            if seg.doc_count_all() < SMALL_SEGMENT:
                reader = SegmentReader(writer.storage, writer.schema, seg)
                writer.add_reader(reader)
                reader.close()
            else:
                keep.append(seg)
        return keep

    return policy


def _key_terms(s: Searcher, text: str, n: int = RELATED_TERMS) -> list[tuple[str, float]]:
    """The `n` most distinctive stems of `text` by tf-idf, leaving out words in more than
    5% of papers (they cost the most to search and say the least about the topic)."""
    reader = s.reader()
    total = max(1, s.doc_count())
    tf: dict[str, int] = {}
    for w in plain_words(text):
        if not w.isdigit():
            st = cached_stem(w)
            tf[st] = tf.get(st, 0) + 1
    scored = []
    for st, f in tf.items():
        df = max(reader.doc_frequency("abstract", st), reader.doc_frequency("title", st))
        if 1 < df <= max(50, total // RELATED_MAX_DF_DIVISOR):
            scored.append((f * math.log(total / df), st))
    scored.sort(reverse=True)
    top = scored[:n]
    best = top[0][0] if top else 1.0
    return [(st, sc / best) for sc, st in top]


def _replace_word(text: str, word: str, new: str) -> tuple[str, int]:
    import re

    return re.subn(rf"(?i)(?<!\w){re.escape(word)}(?!\w)", new, text, count=1)


def _cancel_quietly(w) -> None:
    try:
        w.cancel()
    except Exception:
        pass


def _check(ix: windex.Index) -> None:
    """Touch every segment's files so a damaged index fails here, not in the first search."""
    if set(ix.schema.names()) != set(build_schema().names()):
        raise ValueError("schema differs")
    with ix.searcher() as s:
        r = s.reader()
        s.doc_count()
        for fn in ("title", "abstract"):
            list(islice(r.lexicon(fn), 3))
        if r.doc_count_all():
            s.stored_fields(0)
            r.column_reader("id")[0]


def _read_meta(index_dir: Path) -> dict | None:
    try:
        data = json.loads((index_dir / STAMP_FILE).read_text("utf-8"))
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def _write_meta(index_dir: Path, stamp: int) -> None:
    path = index_dir / STAMP_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"stamp": stamp, "schema": SCHEMA_VERSION}), "utf-8")
    os.replace(tmp, path)
