"""Bulk reads of Whoosh segments (whole lexicons, posting lists, length bytes), memoised.

Whoosh reads postings one at a time through matcher objects (~1 µs each in Python); ranked
search and more-like-this read whole lists instead. When the fast path is on
(fastpath.enabled) they come raw from Whoosh's private structures (rawread.py); otherwise,
or if a raw read meets an unexpected layout, through Whoosh's public API: slower, the same
numbers (tests/search/test_fastpath.py compares them).
"""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Sequence

from whoosh.reading import TermNotFound
from whoosh.util.numeric import byte_to_length, length_to_byte

from reader.search.segments import rawread
from reader.search.segments.fastpath import enabled as fast

# (segment id, field, term) -> (ids, weights): segments never change, so entries stay
# valid; typing re-reads the same words at every keystroke. Bounded by postings held.
_cache: OrderedDict[tuple[str, str, str], tuple[array, array]] = OrderedDict()
_cached = 0
CACHE_POSTINGS = 3_000_000  # ~24 MB
_lock = threading.Lock()


def postings(leaf, fieldname: str, btext: bytes | str,
             entry: tuple[int, int, int] | None = None) -> tuple[Sequence[int], Sequence[float]]:
    """(document numbers, weights) of one term in one segment, memoised; empty if absent.
    `entry`: the term's `lexicon` entry, if known (then read in one piece)."""
    global _cached
    seg = leaf.segment() if hasattr(leaf, "segment") else None
    if seg is None:
        return _postings(leaf, fieldname, btext)
    term = btext.decode("utf-8") if isinstance(btext, bytes) else btext
    key = (seg.segment_id(), fieldname, term)
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    if entry is not None:
        ids, weights = postings_at(leaf, fieldname, term, entry)
    else:
        ids, weights = _postings(leaf, fieldname, btext)
    value = (array("I", ids), array("f", weights))
    with _lock:
        if key not in _cache:
            _cache[key] = value
            _cached += len(ids)
            while _cached > CACHE_POSTINGS and _cache:
                _, (old, _w) = _cache.popitem(last=False)
                _cached -= len(old)
    return value


def _postings(leaf, fieldname: str, btext: bytes | str) -> tuple[list[int], list[float]]:
    """A term's postings through a matcher: its blocks whole on the fast path, else one
    posting at a time (the public API); empty if the segment lacks the term."""
    try:
        m = leaf.postings(fieldname, btext)
    except TermNotFound:
        return [], []
    if fast():
        try:
            return rawread.matcher_blocks(m)
        except rawread.READ_ERRORS:
            m = leaf.postings(fieldname, btext)
    ids: list[int] = []
    weights: list[float] = []
    while m.is_active():
        ids.append(m.id())
        weights.append(m.weight())
        m.next()
    return ids, weights


def doc_frequencies(leaf, fieldname: str) -> dict[str, int]:
    """Every term of a field in one segment -> its document frequency (the whole lexicon)."""
    return {t: e[0] for t, e in lexicon(leaf, fieldname).items()}


# (segment id, field) -> its lexicon (~0.13 s per 25k papers), read once: segments never
# change. Shared by ranked search (prefixes, frequencies) and more-like-this.
_lexicons: dict[tuple[str, str], dict[str, tuple[int, int, int]]] = {}


# (segment id, field) -> set once its lexicon is stored: a second thread asking for a lexicon
# being read waits for it instead of reading it again (at start, the first related list and
# the index's warm-up both read the `words` lexicons at 100k, ~0.3 s of Python each, side by side).
_reading: dict[tuple[str, str], threading.Event] = {}


def segment_lexicon(leaf, fieldname: str) -> dict[str, tuple[int, int, int]]:
    """`lexicon`, memoised per segment, read by one thread at a time."""
    key = (leaf.segment().segment_id(), fieldname)
    table = _lexicons.get(key)
    while table is None:
        with _lock:
            table = _lexicons.get(key)
            if table is not None:
                break
            done = _reading.get(key)
            mine = done is None
            if done is None:
                done = _reading[key] = threading.Event()
        if not mine:
            done.wait()  # then the stored table (or, had its reader failed, read it here)
            table = _lexicons.get(key)
            continue
        try:
            table = lexicon(leaf, fieldname)
            with _lock:
                if len(_lexicons) > 1024:
                    _lexicons.clear()
                _lexicons[key] = table
        finally:
            with _lock:
                del _reading[key]
            done.set()
    return table


# (segment id, field) -> its terms in order, for prefixes and ranges (a bisect).
_sorted: dict[tuple[str, str], list[str]] = {}


def sorted_terms(leaf, fieldname: str) -> tuple[list[str], dict[str, tuple[int, int, int]]]:
    """The segment's lexicon (read in one pass: ~0.1-0.2 s for 25k abstracts, where Whoosh
    decodes a term info per term per segment, ~0.3 s for one cold one-letter prefix at
    50k) and its terms in order (str order is UTF-8 byte order, Whoosh's), memoised."""
    lex = segment_lexicon(leaf, fieldname)
    key = (leaf.segment().segment_id(), fieldname)
    terms = _sorted.get(key)
    if terms is None:
        terms = sorted(lex)  # read in key order already: a linear pass
        with _lock:
            if len(_sorted) > 1024:
                _sorted.clear()
            _sorted[key] = terms
    return terms, lex


def cached_lexicon(leaf, fieldname: str) -> dict[str, tuple[int, int, int]] | None:
    """The segment's lexicon if already read, else None (no reading)."""
    return _lexicons.get((leaf.segment().segment_id(), fieldname))


def lexicon(leaf, fieldname: str) -> dict[str, tuple[int, int, int]]:
    """Every term of a field in one segment -> (document frequency, offset, length of its
    postings), for `postings_at`; offset -1: read them through a matcher (the public API);
    below -1: inlined in the terms table (rawread.inlined_at)."""
    if fast():
        try:
            return rawread.lexicon(leaf, fieldname)
        except rawread.READ_ERRORS:
            pass
    out: dict[str, tuple[int, int, int]] = {}
    try:
        for btext, info in leaf.iter_field(fieldname):
            out[btext.decode("utf-8")] = (info.doc_frequency(), -1, 0)
    except TermNotFound:  # a field this segment's schema lacks
        return {}
    return out


def postings_at(leaf, fieldname: str, term: str, entry: tuple[int, int, int]) -> tuple[Sequence[int], Sequence[float]]:
    """(document numbers, weights) of a term whose `lexicon` entry is known: on the fast
    path its posting blocks read in one piece (a matcher costs ~70 µs per term before the
    first posting)."""
    _df, offset, length = entry
    if offset != -1 and fast():
        try:
            if offset < 0:
                return rawread.inlined_at(leaf, offset, length)
            return rawread.postings_at(leaf, offset, length)
        except rawread.READ_ERRORS:
            pass
    return _postings(leaf, fieldname, term)


def length_bytes(leaf, fieldname: str) -> bytes:
    """Each document's field length in one segment, as Whoosh's length byte (0: empty)."""
    if fast():
        try:
            return rawread.length_bytes(leaf, fieldname)
        except rawread.READ_ERRORS:
            pass
    return bytes(length_to_byte(leaf.doc_field_length(i, fieldname, 0) or 0)
                 for i in range(leaf.doc_count_all()))


def byte_length(b: int) -> int:
    return byte_to_length(b)


def doc_frequency(reader, fieldname: str, term: str) -> int:
    """Documents with `term` in the field (deleted ones included, as Whoosh counts): from
    the lexicons read so far, else from Whoosh (a one-off CLI search reads none)."""
    n = 0
    for leaf, _ in reader.leaf_readers():
        lex = cached_lexicon(leaf, fieldname) if leaf.segment() is not None else None
        if lex is None:
            n += leaf.doc_frequency(fieldname, term)
        else:
            entry = lex.get(term)
            n += entry[0] if entry else 0
    return n
