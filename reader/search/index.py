"""SearchIndex: the Whoosh full-text index derived from the store (rebuildable at any time)."""

from __future__ import annotations

import functools
import logging
import os
import shutil
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from whoosh import index as windex
from whoosh.collectors import TimeLimit, TimeLimitCollector
from whoosh.filedb.filestore import FileStorage
from whoosh.index import TOC
from whoosh.index import LockError as IndexLocked  # noqa: F401  (re-exported: another process writes)
from whoosh.searching import Searcher

from reader.search import rebuild as build
from reader.search.documents import doc_fields
from reader.search.fields import RANKED_FIELDS
from reader.search.paper_ids import document_numbers, read_ids, segment_ids, warm_ids
from reader.search.query import (
    ParsedQuery,
    PlainQuery,
    as_prefix,
    highlight_terms,
    make_parser,
    parse_query,
    plain_query,
    replace_word,
    truncated_parts,
)
from reader.search.rank import POSTINGS_BUDGET, TYPING_POSTINGS_BUDGET, warm_steps
from reader.search.rank import warm as warm_lexicons
from reader.search.rank_arrays import rank
from reader.search.readers import open_latest, writer_documents
from reader.search.rebuild import cancel_quietly
from reader.search.results import Hit, SearchResults, Suggestion, strict_total
from reader.search.schema import (
    SCHEMA_VERSION,
    build_schema,
    plain_words,
)
from reader.search.segments import (
    Prepare,
    SegmentBuilder,
    Standby,
    bulk_codec,
    merge_small_by_whoosh,
    merge_small_segments,
    postings,
    whoosh_merges,
)
from reader.search.similar import similar
from reader.search.similar import warm as similar_warm
from reader.search.snippets import make_snippet
from reader.search.stamp import check, read_meta, write_meta
from reader.search.terms import BACKSTOP_SECONDS, Backstop, expansion_budget
from reader.search.texts import TextBatch, TextSource, attach, doc_texts, id_texts, stores_texts
from reader.search.typos import MAX_TYPO_WORDS, corrected, pause, pending_tables

logger = logging.getLogger(__name__)

SNIPPETS = 50
MERGE_AFTER_SEGMENTS = 10  # maintain() merges small segments once there are this many
MAX_SMALL_SEGMENTS = 40  # update() merges them itself past this many (rare: bounds searches)
SMALL_SEGMENT = 2000  # documents; bigger segments (from rebuilds) are never merged by update()
RESTRICT_LOOKUPS = 300  # restrict= sets up to this size are looked up id by id
LOCK_WAIT = 10.0  # seconds a writer waits for another process's index lock
SUGGEST_MAX_WORD = 40  # longer "words" get no "did you mean" (typos.MAX_TYPO_LEN: fewer)
TYPING_TYPO_WORDS = 3  # words looked up as typos per keystroke (a finished query: MAX_TYPO_WORDS)


class SearchIndex:
    """Whoosh index in one directory. Writes from one thread; searches from any thread."""

    # Writer options for rebuild() (bench_search.py): compressed posting blocks and stored fields
    # (writer.bulk_codec) keep it smaller than the database (bench_disk.py).
    rebuild_options: dict[str, Any] = {"codec": bulk_codec(), "timeout": LOCK_WAIT}
    # Worker processes for large rebuilds (1: always in-process).
    rebuild_procs: int = min(2, os.cpu_count() or 1)

    def __init__(self, index_dir: Path, ix: windex.Index, stamp: int,
                 was_reset: bool = False, reset_reason: str | None = None,
                 searcher: Searcher | None = None, texts: TextSource | None = None) -> None:
        self.index_dir = Path(index_dir)
        self._ix = ix
        self._texts = texts  # where titles and abstracts are read (None: stored; texts.py)
        attach(ix, texts)
        self.stamp = stamp
        self.was_reset = was_reset
        self.reset_reason = reset_reason
        self._parser = make_parser(ix.schema)
        self._write_lock = threading.Lock()
        # Whoosh searchers share file handles (seek+read), so reads are serialised too.
        self._read_lock = threading.RLock()
        # The searcher of the last commit (or of the open, the one its check read with).
        self._searcher: Searcher | None = searcher if searcher is not None else ix.searcher()
        self._wrote = False  # this process committed to the index: close() bounds its segments
        # Bumped at each commit: cached filters and result pages belong to one generation.
        self._generation = 0
        self._filters: dict[str, frozenset[int]] = {}
        self._ids: dict[str, int] | None = None
        self._idcol: Any = None

    # -- opening -------------------------------------------------------------------------

    @staticmethod
    def _storage(index_dir: Path) -> FileStorage:
        # No mmap: opening a segment then costs ~7 ms instead of ~90 ms at 100k docs.
        return FileStorage(str(index_dir), supports_mmap=False)

    @classmethod
    def open(cls, index_dir: Path, texts: TextSource | None = None) -> SearchIndex:
        """Open (or create) the index; a corrupt or outdated one is wiped and recreated empty.
        With `texts` (a library's), it keeps no titles and abstracts but reads them there; an
        index built the other way is wiped too (texts.py)."""
        index_dir = Path(index_dir)
        reason: str | None = None
        if (index_dir.exists() or index_dir.is_symlink()) and not index_dir.is_dir():
            # A file where the index folder belongs: the index is derived, so replace it.
            index_dir.unlink()
            reason = "a file stood where the index folder belongs"
        try:
            index_dir.mkdir(parents=True, exist_ok=True)
            storage = cls._storage(index_dir)
            if windex.exists(storage):
                meta = read_meta(index_dir)
                if meta is None:
                    reason = "the index has no readable stamp file"
                elif meta.get("schema") != SCHEMA_VERSION:
                    reason = "the index was built by another version of Reader"
                else:
                    ix = storage.open_index()
                    if stores_texts(ix) == (texts is None):
                        return cls(index_dir, ix, int(meta.get("stamp", -1)), searcher=check(ix),
                                   texts=texts)
                    reason = ("the index keeps its own copy of the abstracts" if texts is not None
                              else "the index reads its abstracts from a library")
            elif any(index_dir.iterdir()):
                reason = "the index directory holds no usable index"
            else:
                ix = storage.create_index(build_schema(texts is None))
                write_meta(index_dir, -1)
                return cls(index_dir, ix, -1, was_reset=reason is not None, reset_reason=reason,
                           texts=texts)
        except Exception as e:  # any failure to read means: start again
            reason = f"the index could not be read ({type(e).__name__}: {e})"
        shutil.rmtree(index_dir, ignore_errors=True)
        index_dir.mkdir(parents=True, exist_ok=True)
        ix = cls._storage(index_dir).create_index(build_schema(texts is None))
        write_meta(index_dir, -1)
        return cls(index_dir, ix, -1, was_reset=True, reset_reason=reason, texts=texts)

    # -- writing -------------------------------------------------------------------------

    def rebuild(self, docs: Iterable[dict], *, stamp: int, total: int | None = None,
                progress: Callable[[int, int], None] | None = None,
                cancelled: Callable[[], bool] | None = None) -> None:
        """Replace the whole index with `docs` in one commit; if cancelled, nothing changes."""
        with self._write_lock:
            size = total if total is not None else len(docs) if hasattr(docs, "__len__") else 0  # type: ignore[arg-type]
            n = build.rebuild(self._ix, *self._builder_options(), docs, total=size, progress=progress,
                              cancelled=cancelled)
            if n is None:
                return
            self._after_commit(stamp)
            if progress is not None:
                progress(n, total or n)

    def segment_builder(self, prepare: Prepare, standby: Standby | None = None) -> SegmentBuilder:
        """Workers (standby_builder()'s if given) preparing jobs and indexing their documents (see
        SegmentBuilder) until commit_builder() or cancel_builder(), holding the write lock till
        then; raises IndexLocked if another process holds the index's."""
        self._write_lock.acquire()
        try:
            return build.segment_builder(self._ix, *self._builder_options(), prepare, standby)
        except BaseException:
            self._write_lock.release()
            raise

    def standby_builder(self, prepare: Prepare) -> Standby | None:  # lock-free: see parallel.Standby
        return build.standby(self._ix, *self._builder_options(), prepare)

    def _builder_options(self) -> tuple[dict[str, Any], int]:  # the writer's options, the workers
        return (opts := dict(self.rebuild_options)), max(1, opts.pop("procs", self.rebuild_procs))

    def commit_builder(self, builder: SegmentBuilder, stamp: int) -> None:
        """Add the builder's segments to the index, stamped `stamp`."""
        try:
            try:
                builder.commit()
            except BaseException:
                builder.cancel()
                raise
            self._after_commit(stamp)
        finally:
            self._write_lock.release()

    def cancel_builder(self, builder: SegmentBuilder) -> None:
        try:
            builder.cancel()
        finally:
            self._write_lock.release()

    def update(self, docs: list[dict], *, deleted: Iterable[str] = (), stamp: int) -> None:
        """Add/replace `docs` and delete ids in `deleted`, in one commit."""
        deleted = list(deleted)
        with self._write_lock:
            if docs or deleted:
                w = self._ix.writer(timeout=LOCK_WAIT)  # another process may be writing
                try:
                    # Old documents by id (readers.py; the searcher's readers: under its lock).
                    with self._read_lock:
                        old = writer_documents(w, self._searcher, [*deleted, *(doc["id"] for doc in docs)])
                    for dn in sorted(old.values()):
                        w.delete_document(dn)
                    for doc in docs:
                        w.add_document(**doc_fields(doc))
                    # No merge on this interactive path (ten 1-paper segments cost ~150-300 ms):
                    # maintain() does it; past a hard cap here anyway, to bound the segment count.
                    w.commit(mergetype=merge_small_segments(MAX_SMALL_SEGMENTS, SMALL_SEGMENT))
                except BaseException:
                    cancel_quietly(w)
                    raise
            self._after_commit(stamp)

    def _small_segments(self) -> list:
        return [s for s in TOC.read(self._ix.storage, self._ix.indexname).segments
                if s.doc_count_all() < SMALL_SEGMENT]

    def settle(self) -> bool:
        """Merge the smallest segments by Whoosh's rule (writer.merge_small_by_whoosh) as a writing
        process (a CLI command) exits, so the next one opens few; True if it merged."""
        with self._write_lock:
            if not whoosh_merges([s.doc_count_all() for s in self._small_segments()]):
                return False
            w = self._ix.writer(timeout=LOCK_WAIT)
            try:
                w.commit(mergetype=merge_small_by_whoosh(SMALL_SEGMENT))
            except BaseException:
                cancel_quietly(w)
                raise
            self._after_commit(self.stamp)
            return True

    def maintain(self) -> bool:
        """Merge the small segments left by update() once there are MERGE_AFTER_SEGMENTS of them,
        by Whoosh's rule (the smallest together; folding all rewrote a 500-paper one every tenth
        triage decision, ~1.8 s of the writer at 100k). After each sync; True if it merged."""
        with self._write_lock:
            small = [s.doc_count_all() for s in self._small_segments()]
            if len(small) < MERGE_AFTER_SEGMENTS or not whoosh_merges(small):
                return False
            w = self._ix.writer(timeout=LOCK_WAIT)
            try:
                w.commit(mergetype=merge_small_by_whoosh(SMALL_SEGMENT))
            except BaseException:
                cancel_quietly(w)
                raise
            self._after_commit(self.stamp)
            return True

    def _after_commit(self, stamp: int) -> None:
        # The stamp is written after the commit: a crash in between leaves an older stamp,
        # and replaying changes since then is harmless (updates are by unique id).
        write_meta(self.index_dir, stamp)
        self.stamp = stamp
        self._wrote = True
        # A new searcher with the readers of segments left as they were (readers.py).
        opened = open_latest(self._ix, self._searcher)
        with self._read_lock:
            self._searcher = Searcher(opened.reader, fromindex=self._ix)
            self._generation += 1
            self._filters = {}
            self._ids = None
            self._idcol = None
        for leaf in opened.dropped:  # the old searcher's other readers: its segments are gone
            leaf.close()

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
               restrict: set[str] | None = None, as_you_type: bool = False,
               did_you_mean: bool = True) -> SearchResults:
        """Best `limit` hits (None: all); `restrict` limits hits to those paper ids.

        Plain words are ranked (every word optional, papers with all of them first);
        operators, quotes, +/-, fields, `*` and `~` keep their strict meaning. With
        `as_you_type` the unfinished last word is a prefix and there is no "did you mean".
        """
        plain = plain_query(query, as_you_type)
        if plain is not None:
            return self._ranked(query, plain, limit, restrict, as_you_type, did_you_mean)
        text = as_prefix(query) if as_you_type else query
        pq = parse_query(text, self._parser)
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
                # Every part is bounded by counted work (the expansion budget); the time limit
                # is the last-resort backstop only, far above any normal query, and says so.
                collector = TimeLimitCollector(
                    s.collector(limit=None if post is not None else limit, filter=flt,
                                scored=not pq.filters_only, terms=False),
                    timelimit=BACKSTOP_SECONDS, use_alarm=False)  # SIGALRM: main thread only
                stopped = False
                with expansion_budget() as budget:
                    try:
                        s.search_with_collector(q, collector)
                    except TimeLimit:  # keep what was found: a broad query is cut, not failed
                        collector.finish()
                        stopped = True
                r = collector.results()
                ids = self._id_column(s)
                if post is not None:
                    docnums = [(dn, sc) for sc, dn in r.top_n if ids[dn] in post]
                    res.total = len(docnums)
                    docnums = docnums[:limit] if limit is not None else docnums
                else:
                    docnums = [(hit.docnum, hit.score) for hit in r]
                    res.total = strict_total(r, docnums, limit, s.doc_count())
                stems, prefixes = highlight_terms(q, s.reader())
                res.hits = self._hits(s, docnums, stems, prefixes)
            except Exception as e:  # a damaged segment: report, don't crash the GUI
                res.problem = f"Search failed ({type(e).__name__}: {e}); rebuild the index"
                return res
        cut = truncated_parts(pq.query)
        notes = [f"Too many words match {', '.join(cut)}: searched the first ones only"] if cut else []
        if stopped or budget.backstop.fired:
            notes.append(budget.backstop.note)
        for note in notes:
            res.problem = f"{res.problem}; {note}" if res.problem else note
        # No "did you mean" for fuzzy queries (the user already asked for near matches) nor
        # while typing (only a finished query with no hits gets one).
        if (not res.hits and not pq.filters_only and not pq.fallback and "~" not in query
                and not as_you_type and did_you_mean):
            res.suggestion = self.suggest(query)
        return res

    def _id_column(self, s: Searcher):
        """The id column reader, opened once per generation (opening reads every offset: ~30 ms at
        50k), or a plain list once every segment's ids are read (a view searched, the warm-up):
        the column reads each id from the file (~15 µs, 200 per keystroke)."""
        if not isinstance(self._idcol, list):
            flat = read_ids(s)
            if flat is not None:
                self._idcol = flat
            elif self._idcol is None:
                self._idcol = s.reader().column_reader("id")
        return self._idcol

    def _hits(self, s: Searcher, docnums: list[tuple[int, float]], stems: frozenset[str],
              prefixes: tuple[str, ...], snippets: int = SNIPPETS) -> list[Hit]:
        ids = self._id_column(s)
        out = []
        gen = self._generation
        # From a library: the page's abstracts read together, at the first snippet asked for.
        batch = None if self._texts is None else TextBatch(self._texts, [ids[dn] for dn, _ in docnums[:snippets]])
        for i, (dn, score) in enumerate(docnums):
            snippet: Any = ""
            pid = ids[dn]
            if i < snippets:  # its abstract is read when first asked for (the window never asks)
                snippet = functools.partial(self._snippet, s, gen, dn, pid, stems, prefixes, batch)
            out.append(Hit(pid, float(score or 0.0), snippet))
        return out

    def _snippet(self, s: Searcher, gen: int, dn: int, pid: str, stems: frozenset[str],
                 prefixes: tuple[str, ...], batch: TextBatch | None = None) -> str:
        """A hit's snippet: its abstract from the library (`batch`), or from the searcher that found it,
        or by its id after a commit (a new searcher), or none once the index is closed."""
        text: str | None = None
        with self._read_lock:
            if self._searcher is None:
                text = ""
            elif self._texts is None and self._searcher is s and self._generation == gen:
                text = s.stored_fields(dn).get("abstract", "")
            elif self._texts is None:
                now = document_numbers(self._searcher.reader(), [pid]).get(pid)
                text = "" if now is None else self._searcher.stored_fields(now).get("abstract", "")
        if text is None and self._texts is not None:  # on the calling thread, outside the lock
            text = batch.abstract(pid) if batch is not None else id_texts(self._texts, [pid])[pid][1]
        return make_snippet(text or "", stems, prefixes)

    def _ranked(self, query: str, plain: PlainQuery, limit: int | None,
                restrict: set[str] | None, as_you_type: bool, did_you_mean: bool) -> SearchResults:
        terms = list(dict.fromkeys(plain.words + ([plain.prefix] if plain.prefix else [])))
        res = SearchResults(query=query, terms=terms, prefix=plain.prefix, ranked=True)
        with self._read_lock:
            s = self._s()
            gen = self._generation
            try:
                allowed = self._allowed(s, plain.flags, restrict)
                if allowed is not None and not allowed:
                    return res
                ranking = rank(s, plain.words, prefix=plain.prefix, allowed=allowed,
                               max_postings=TYPING_POSTINGS_BUDGET if as_you_type else POSTINGS_BUDGET,
                               typo_words=TYPING_TYPO_WORDS if as_you_type else MAX_TYPO_WORDS,
                               backstop=Backstop())
                stems = frozenset(ranking.stems) | frozenset(ranking.expansions)
                prefixes = (plain.prefix,) if plain.prefix else ()
                res.total = ranking.total
                res.hits = self._hits(s, ranking.top(limit), stems, prefixes)
            except Exception as e:  # a damaged segment: report, don't crash the GUI
                res.problem = f"Search failed ({type(e).__name__}: {e}); rebuild the index"
                return res
        # While typing, words left out for the budget are not worth a flickering note (the
        # backstop's is: the answer may be incomplete).
        left_out = ranking.note if not as_you_type or ranking.stopped else None
        res.problem = "; ".join(filter(None, (plain.note, left_out))) or None

        def fetch(start: int, n: int) -> list[Hit]:
            with self._read_lock:
                if self._generation == gen and self._searcher is not None:
                    return self._hits(self._s(), ranking.page(start, n), stems, prefixes, snippets=n)
            again = self.search(query, limit=start + n, restrict=restrict, as_you_type=as_you_type,
                                did_you_mean=False)
            return again.hits[start:start + n]

        res.fetch = fetch
        # A finished query with a typo'd word finds papers through near words (rank.py),
        # and still offers the corrected query.
        if not as_you_type and not plain.flags and did_you_mean:
            res.suggestion = self.suggest(query)
        return res

    def _allowed(self, s: Searcher, flags: list[str], restrict: set[str] | None) -> set[int] | None:
        """Document numbers passing the is:/has: filters and the view (None: all), cached
        per index generation (a view's filter is built once, then reused while typing)."""
        allowed: set[int] | None = None
        for flag in flags:
            flagged = self._flag_docs(s, flag)
            allowed = set(flagged) if allowed is None else allowed & flagged
        if restrict is not None:
            if len(restrict) <= RESTRICT_LOOKUPS:
                docs = self._docnums(s, restrict)
            else:
                idmap = self._id_map(s)
                docs = {idmap[i] for i in restrict if i in idmap}
            allowed = docs if allowed is None else allowed & docs
        return allowed

    def _flag_docs(self, s: Searcher, flag: str) -> frozenset[int]:
        key = "flag:" + flag
        hit = self._filters.get(key)
        if hit is None:
            docs: set[int] = set()
            for leaf, base in s.reader().leaf_readers():
                deleted = set(leaf.segment().deleted_docs()) if leaf.has_deletions() else ()
                ids, _ = postings(leaf, "flags", flag)
                docs.update(d + base for d in ids if d not in deleted)
            hit = self._filters[key] = frozenset(docs)
        return hit

    def _id_map(self, s: Searcher) -> dict[str, int]:
        """Paper id -> document number for live documents, cached per generation."""
        if self._ids is None:
            idmap: dict[str, int] = {}
            for leaf, base in s.reader().leaf_readers():
                ids = segment_ids(leaf)
                deleted = set(leaf.segment().deleted_docs()) if leaf.has_deletions() else ()
                idmap.update((pid, base + dn) for dn, pid in enumerate(ids) if dn not in deleted)
            self._ids = idmap
        return self._ids

    def _docnums(self, s: Searcher, ids: set[str]) -> set[int]:
        return set(document_numbers(s.reader(), ids).values())

    def snippet(self, text: str, query: str) -> str:
        """Snippet of any `text` for `query` (e.g. for hits past the first SNIPPETS)."""
        pq = parse_query(query, self._parser)
        if pq.query is None:
            return make_snippet(text, frozenset())
        with self._read_lock:
            stems, prefixes = highlight_terms(pq.query, self._s().reader())
        return make_snippet(text, stems, prefixes)

    def warm(self) -> None:
        """Read what the first keystrokes need (the lexicons prefixes are expanded from, the
        commonest postings), so they are as quick as later ones; call off the GUI thread.
        Short steps, each under the lock: a search typed meanwhile waits for one step only."""
        with self._read_lock:
            segments = len(self._s().reader().leaf_readers()) if self._searcher is not None else 0
        steps: list[Callable[[Any], None]] = [  # the lexicons, then what the first related list reads
            *(functools.partial(warm_lexicons, fieldname=f, letter=letter) for f, letter in warm_steps()), similar_warm,
            *[warm_ids] * segments]  # and each segment's paper ids, which name the hits
        for step in steps:
            pause()  # a warm-up gives way to the user's keys (the window's hook)
            with self._read_lock:
                if self._searcher is None:  # closed meanwhile
                    return
                try:
                    step(self._s())
                except Exception:  # a damaged segment: searches report it themselves
                    logger.warning("search warm-up failed", exc_info=True)
                    return
        with self._read_lock:  # typo tables: the lexicons under the lock, the CPU work outside
            builds = pending_tables(self._s()) if self._searcher is not None else []
        for make_table in builds:  # each pauses between its steps (pending_tables)
            make_table()
        if self._searcher is not None:
            self.search("a", limit=50, as_you_type=True)  # opens the stored-field and id columns

    def related(self, paper_id: str, *, limit: int = 10) -> list[tuple[str, float]]:
        """Papers most like this one (title and abstract key terms); itself excluded."""
        return self.more_like([paper_id], limit=limit)

    def more_like(self, paper_ids: Iterable[str], *, limit: int = 10,
                  exclude: Iterable[str] = (), title_only: bool = False) -> list[tuple[str, float]]:
        """Papers most like a set of papers (a tag, the starred ones), best first.

        TF-IDF cosine to the mean of the papers' normalised vectors (similar.py); the given
        papers and `exclude` are left out, and papers without an abstract unless `title_only`
        (a title alone says too little to rank by).
        """
        with self._read_lock:
            s = self._s()
            paper_ids = list(paper_ids)
            numbers = document_numbers(s.reader(), paper_ids)
            given = [numbers[pid] for pid in dict.fromkeys(paper_ids) if pid in numbers]
            read = doc_texts(s, given)
            texts = [f"{read[dn][0]} {read[dn][1]}" for dn in given]
            if not texts:
                return []
            skip = set(given) | self._docnums(s, set(exclude))
            if not title_only:
                skip |= self._flag_docs(s, "noabstract")
            found = similar(s, texts, skip=skip, limit=limit)
            ids = self._id_column(s)
            return [(ids[dn], sc) for dn, sc in found]

    def suggest(self, query: str) -> str | None:
        """A corrected query ("did you mean"): every word no paper has (or only a few where
        a near word is far commoner) replaced at once, by the near words that appear
        together in the most papers (typos.corrected); None if no word needs it."""
        pq = parse_query(query, self._parser)
        words = [w for w in pq.terms if len(w) <= SUGGEST_MAX_WORD and plain_words(w) == [w]]
        if not words:
            return None
        with self._read_lock:
            fixes = corrected(self._s(), words, RANKED_FIELDS)
        text, changed = query, False
        for word, new in fixes.items():
            text, n = replace_word(text, word, new)
            changed = changed or n > 0
        return text if changed else None

    def suggestion(self, query: str) -> Suggestion | None:
        """`suggest` with the corrected query's hit count; None if it has no hits either."""
        text = self.suggest(query)
        if text is None:
            return None
        hits = self.search(text, limit=1, did_you_mean=False).total
        return Suggestion(text, hits) if hits else None

    def close(self) -> None:
        """Close; after this process's own writes, its small segments are settled first."""
        try:
            if self._wrote:
                self.settle()
            self.maintain()
        except Exception:  # a failed merge (lock held elsewhere, disk full) leaves them as they were
            pass
        with self._write_lock, self._read_lock:
            if self._searcher is not None:
                self._searcher.close()
                self._searcher = None
            self._ix.close()
