"""Index readers that keep the segment readers of segments a commit left as they were.

Whoosh opens a reader for every segment of the index at each `ix.searcher()` and
`writer.reader()`: ~0.9 ms a segment (the compound file's directory and the terms table's
header, read a few bytes at a time). A change to one paper (a star, a tag, a note) commits
a one-document segment and marks the paper's old document deleted, and the search index
opened every segment twice: with 30 small segments waiting for a merge, ~50 ms of every
change at 100k papers (bench_core: change -> visible in search). Here only the segments the
commit made or changed are opened.

A segment reader is reused only for a segment with the same id, the same number of documents
and the same deleted documents: the files of a segment are never rewritten (a merge makes a
new segment), and deletions are the one thing a commit changes in an existing segment.
whoosh-reloaded 2.7.5's own `reader(reuse=...)` is not used: it also keeps the readers of
segments that a merge or a CLEAR removed (stale and duplicate hits).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from whoosh.index import TOC
from whoosh.reading import EmptyReader, IndexReader, MultiReader, SegmentReader
from whoosh.searching import Searcher

from reader.search.paper_ids import document_numbers


def segment_key(segment: Any) -> tuple[str, int, frozenset[int]]:
    """What identifies a segment's content: id, documents and deleted documents."""
    return segment.segment_id(), segment.doc_count_all(), frozenset(segment.deleted_docs())


@dataclass
class SegmentReaders:
    """A reader over some segments: `reader`, and which of its segment readers were opened
    for it (`fresh`; the others were taken from an older reader)."""

    reader: IndexReader
    fresh: list[IndexReader] = field(default_factory=list)
    dropped: list[IndexReader] = field(default_factory=list)  # the older reader's, not kept

    def close_fresh(self) -> None:
        """Close what was opened here only (the kept readers belong to the older reader)."""
        for r in self.fresh:
            r.close()


def open_segments(storage: Any, schema: Any, segments: Sequence[Any], generation: int,
                  older: IndexReader | None) -> SegmentReaders:
    """A reader over `segments` (in that order, as Whoosh numbers their documents), reusing
    `older`'s segment readers of unchanged segments."""
    reusable: dict[tuple[str, int, frozenset[int]], IndexReader] = {}
    unused: list[IndexReader] = []  # (a second reader of one segment: never, but then closed)
    if older is not None and not getattr(older, "is_closed", False):
        for leaf, _base in older.leaf_readers():
            seg = leaf.segment()
            if seg is not None and not getattr(leaf, "is_closed", False):
                key = segment_key(seg)
                if key in reusable:
                    unused.append(leaf)
                else:
                    reusable[key] = leaf
    out = SegmentReaders(EmptyReader(schema))
    readers: list[IndexReader] = []
    try:
        for seg in segments:
            leaf = reusable.pop(segment_key(seg), None)
            if leaf is None:
                leaf = SegmentReader(storage, schema, seg, generation=generation)
                out.fresh.append(leaf)
            readers.append(leaf)
    except BaseException:  # a segment that cannot be opened: nothing opened here stays open
        out.close_fresh()
        raise
    out.dropped = [*reusable.values(), *unused]
    if len(readers) == 1:
        out.reader = readers[0]
    elif readers:
        out.reader = MultiReader(readers, generation=generation)
    return out


def open_latest(ix: Any, searcher: Searcher | None, attempts: int = 10) -> SegmentReaders:
    """A reader of the index's latest commit, keeping `searcher`'s readers of unchanged segments.

    Another process may commit meanwhile and delete the files of segments it merged away: the
    latest commit is read again then, as Whoosh's own `reader()` does (up to `attempts` times)."""
    older = searcher.reader() if searcher is not None else None
    left = attempts
    while True:
        toc = TOC.read(ix.storage, ix.indexname)
        try:
            return open_segments(ix.storage, toc.schema, toc.segments, toc.generation, older)
        except OSError:
            left -= 1
            if left <= 0:
                raise


def writer_documents(writer: Any, searcher: Searcher | None, ids: list[str]) -> dict[str, int]:
    """Paper id -> document number in the segments `writer` sees (what it may delete), read
    through `searcher`'s readers of unchanged segments; the caller holds off other users of
    `searcher` (Whoosh's open files are not to be read by two threads at once)."""
    seen = open_segments(writer.storage, writer.schema, writer.segments, writer.generation,
                         searcher.reader() if searcher is not None else None)
    try:
        return document_numbers(seen.reader, ids)
    finally:
        seen.close_fresh()
