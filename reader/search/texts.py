"""A paper's indexed title and abstract, read back for snippets, phrase checks and similarity.

An index opened by a library keeps no copy of them (the database has them: ~60 MB of a 100k
index): its searchers read them through the library's `TextSource`, by paper id, on the
calling thread. An index opened on its own (tests, benchmarks) stores them as before. Which
of the two an index is shows in its schema (`abstract` stored or not), so an index is never
read the other way: SearchIndex.open resets one built the other way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence

from reader.search.fields import FIELDS
from reader.search.paper_ids import segment_ids

# Paper ids -> {id: (title, abstract)}, as they were indexed: the real title ('' for a
# title derived from the abstract), the abstract's plain text; ids it lacks read as ('', '').
TextSource = Callable[[Sequence[str]], Mapping[str, tuple[str, str]]]
# The fields whose text can be read back (the table's `stored` text fields).
TEXT_FIELDS: tuple[str, ...] = tuple(f.name for f in FIELDS if f.stored and f.kind == "text")
_EMPTY = ("", "")


def attach(ix, source: TextSource | None) -> None:
    """Let every searcher of the Whoosh index `ix` read its texts from `source`."""
    ix.reader_texts = source


def source_of(searcher) -> TextSource | None:
    """The text source of a searcher (or of one of its segments' sub-searchers), if any."""
    while searcher.parent is not None:
        parent = searcher.parent()
        if parent is None:
            break
        searcher = parent
    return getattr(getattr(searcher, "_ix", None), "reader_texts", None)


def _paper_ids(searcher, docnums: list[int]) -> dict[int, str]:
    """Documents' paper ids, from their segments' id lists (paper_ids.segment_ids, read once
    per segment), or stored for a reader without segments."""
    out: dict[int, str] = {}
    for leaf, base in searcher.reader().leaf_readers():
        end = base + leaf.doc_count_all()
        mine = [dn for dn in docnums if base <= dn < end]
        if not mine:
            continue
        seg = leaf.segment() if hasattr(leaf, "segment") else None
        if seg is None:
            out.update((dn, searcher.stored_fields(dn).get("id", "")) for dn in mine)
            continue
        ids = segment_ids(leaf)
        out.update((dn, ids[dn - base]) for dn in mine)
    return out


def doc_texts(searcher, docnums: Iterable[int]) -> dict[int, tuple[str, str]]:
    """Each document's (title, abstract), in one read of the library for them all."""
    docnums = list(dict.fromkeys(docnums))
    source = source_of(searcher)
    if source is None:
        out = {}
        for dn in docnums:
            stored = searcher.stored_fields(dn)
            out[dn] = (stored.get("title", ""), stored.get("abstract", ""))
        return out
    pids = _paper_ids(searcher, docnums)
    return id_texts(source, pids.values(), pids)


def id_texts(source: TextSource, ids: Iterable[str], keys: Mapping | None = None) -> dict:
    """Texts by paper id from `source` (or by the `keys` mapping each key to its id)."""
    got = source(list(dict.fromkeys(ids)))
    if keys is None:
        return {pid: got.get(pid, _EMPTY) for pid in dict.fromkeys(ids)}
    return {k: got.get(pid, _EMPTY) for k, pid in keys.items()}


def field_text(texts: tuple[str, str], fieldname: str) -> str:
    """The text of one of TEXT_FIELDS."""
    return texts[TEXT_FIELDS.index(fieldname)]


def stores_texts(ix) -> bool:
    """Whether the Whoosh index `ix` keeps its own copy of the titles and abstracts."""
    return bool(ix.schema["abstract"].stored)


class TextBatch:
    """The texts of a page of hits, read together when the first of their snippets is asked for
    (one read of the library for the page instead of one per hit)."""

    def __init__(self, source: TextSource, ids: list[str]) -> None:
        self._source = source
        self._ids = ids
        self._read: dict | None = None
        self._lock = threading.Lock()

    def abstract(self, pid: str) -> str:
        with self._lock:
            if self._read is None:
                self._read = id_texts(self._source, self._ids)
            got = self._read.get(pid)
        return got[1] if got is not None else id_texts(self._source, [pid])[pid][1]
