"""Bulk reads of Whoosh-Reloaded 2.7.5 segments (posting blocks, length bytes), with public-API fallbacks.

Whoosh reads postings one at a time through matcher objects (~1 µs each in Python); the ranker
reads whole blocks instead. Everything that touches private attributes on the read side is here;
tests/test_search_internals.py pins the Whoosh version and compares with the public API.
"""

from __future__ import annotations

import io
import pickle
import struct
import threading
import zlib
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from itertools import accumulate, repeat

from whoosh.util.numeric import byte_to_length

WHOOSH_VERSION = "2.7.5"  # the version these reads were written against (see the tests)


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
    try:
        m = leaf.postings(fieldname, btext)
    except Exception:  # TermNotFound
        return [], []
    ids: list[int] = []
    weights: list[float] = []
    if hasattr(m, "_read_ids") and hasattr(m, "_next_block") and hasattr(m, "_blocklength"):
        try:
            while m.is_active():
                m._read_ids()
                m._read_weights()
                ids.extend(m._ids)
                weights.extend(m._weights)
                m._next_block()
            return ids, weights
        except (AttributeError, TypeError):
            m = leaf.postings(fieldname, btext)
            ids, weights = [], []
    while m.is_active():  # public API: one posting at a time
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


def segment_lexicon(leaf, fieldname: str) -> dict[str, tuple[int, int, int]]:
    """`lexicon`, memoised per segment."""
    key = (leaf.segment().segment_id(), fieldname)
    table = _lexicons.get(key)
    if table is None:
        table = lexicon(leaf, fieldname)
        with _lock:
            if len(_lexicons) > 1024:
                _lexicons.clear()
            _lexicons[key] = table
    return table


def cached_lexicon(leaf, fieldname: str) -> dict[str, tuple[int, int, int]] | None:
    """The segment's lexicon if already read, else None (no reading)."""
    return _lexicons.get((leaf.segment().segment_id(), fieldname))


def lexicon(leaf, fieldname: str) -> dict[str, tuple[int, int, int]]:
    """Every term of a field in one segment -> (document frequency, offset, length of its
    postings; offset -1 if they are inlined), for `postings_at`.

    Read from the raw terms table in one pass: ~5x faster than decoding each TermInfo."""
    try:
        from whoosh.codec.whoosh3 import W3TermInfo
        from whoosh.filedb.filetables import _lengths

        if W3TermInfo._struct.format != "!BfIBBfII":
            raise TypeError("another term info layout")
        terms = leaf._terms
        tindex, prefix = terms._tindex, terms._keycoder(fieldname, b"")
        start = tindex.closest_key_pos(prefix)
        buf = tindex.dbfile.get(start, tindex.endofdata - start) if start is not None else b""
    except (AttributeError, TypeError, KeyError, ImportError):
        return _lexicon(leaf, fieldname)
    lens, info, extent, head = _lengths.unpack_from, _INFO.unpack_from, _EXTENT.unpack_from, _lengths.size
    plen, end, pos = len(prefix), len(buf), 0
    out: dict[str, tuple[int, int, int]] = {}
    while pos < end:  # (key length, value length) key value ..., keys in order
        klen, vlen = lens(buf, pos)
        key = pos + head
        if buf[key:key + plen] != prefix:
            break  # the next field's terms
        flags, df = info(buf, key + klen)
        offset, length = extent(buf, key + klen + _INFO_SIZE) if not flags else (-1, 0)
        out[buf[key + plen:key + klen].decode("utf-8")] = (df, offset, length)
        pos = key + klen + vlen
    return out


_INFO = struct.Struct("!B4xI")  # a term info's flags (1: inlined) and doc frequency
_INFO_SIZE = struct.calcsize("!BfIBBfII")
_EXTENT = struct.Struct("!qi")  # then, if not inlined, its postings' offset and length


def _lexicon(leaf, fieldname: str) -> dict[str, tuple[int, int, int]]:
    out: dict[str, tuple[int, int, int]] = {}
    try:
        for btext, info in leaf.iter_field(fieldname):
            out[btext.decode("utf-8")] = (info.doc_frequency(), -1, 0)
    except Exception:  # a field this index lacks
        return {}
    return out


def postings_at(leaf, fieldname: str, term: str, entry: tuple[int, int, int]) -> tuple[Sequence[int], Sequence[float]]:
    """(document numbers, weights) of a term whose `lexicon` entry is known: its posting
    blocks read in one piece (a matcher costs ~70 us per term before the first posting)."""
    _df, offset, length = entry
    postfile = getattr(getattr(leaf, "_terms", None), "_postfile", None)
    if offset < 0 or postfile is None:
        return _postings(leaf, fieldname, term)
    try:
        buf = postfile.get(offset, length)
        if buf[:4] != b"W3Bl":
            raise ValueError("not a posting list")
        ids: list[int] = []
        weights: list[float] = []
        pos, end = 4, len(buf)
        while pos < end:
            (blen,) = _BLOCK_LENGTH.unpack_from(buf, pos)
            nxt = pos + 4 + abs(blen)
            f = io.BytesIO(buf[pos + 4:nxt])
            count, _maxid, _maxw, compressed, _mn, _mx = pickle.load(f)
            data = f.read()
            bids, bweights, _values = pickle.loads(zlib.decompress(data) if compressed else data)
            ids.extend(accumulate(bids))
            if bweights is None or isinstance(bweights, float):
                weights.extend(repeat(1.0 if bweights is None else bweights, count))
            else:
                weights.extend(bweights)
            if blen < 0:  # the last block
                break
            pos = nxt
        if len(ids) != len(weights):
            raise ValueError("ids and weights differ in length")
        return ids, weights
    except (ValueError, TypeError, struct.error, pickle.UnpicklingError, zlib.error):
        return _postings(leaf, fieldname, term)


_BLOCK_LENGTH = struct.Struct("!i")  # negative for the last block


def length_bytes(leaf, fieldname: str) -> bytes:
    """Each document's field length in one segment, as Whoosh's length byte (0: empty)."""
    n = leaf.doc_count_all()
    perdoc = getattr(leaf, "_perdoc", None)
    get = getattr(perdoc, "_cached_reader", None)
    if get is not None:
        try:
            from whoosh.codec.whoosh3 import LENGTHS_COLUMN, _lenfield

            col = get(_lenfield(fieldname), LENGTHS_COLUMN)
            if col is None:
                return bytes(n)
            return bytes(col[i] for i in range(n))
        except (ImportError, AttributeError, TypeError):
            pass
    from whoosh.util.numeric import length_to_byte

    return bytes(length_to_byte(leaf.doc_field_length(i, fieldname, 0) or 0) for i in range(n))


def byte_length(b: int) -> int:
    return byte_to_length(b)
