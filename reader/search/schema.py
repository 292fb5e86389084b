"""The Whoosh schema for the search index, with a fast indexing path for the text fields."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pickle import dumps

from whoosh.analysis import (
    CharsetFilter,
    LowercaseFilter,
    RegexTokenizer,
    StandardAnalyzer,
    StemFilter,
    StopFilter,
)
from whoosh.analysis.filters import STOP_WORDS
from whoosh.fields import ID, KEYWORD, NUMERIC, TEXT, Schema
from whoosh.formats import Positions
from whoosh.lang.porter import stem as porter_stem
from whoosh.support.charset import accent_map
from whoosh.system import pack_uint

# Bump when the schema or analysis changes: an index with another version is rebuilt.
SCHEMA_VERSION = 1

WORD_PATTERN = r"\w+(?:\.?\w+)*"  # Whoosh's default tokenizer pattern, without a capture group
_WORD_RE = re.compile(WORD_PATTERN, re.UNICODE)
_STOP = frozenset(STOP_WORDS)

# Unbounded: an English corpus has a few hundred thousand distinct words at most.
_stem_cache: dict[str, str] = {}


def cached_stem(word: str) -> str:
    """Porter stem of an already-lowercased word, memoised (stemming dominates analysis time)."""
    s = _stem_cache.get(word)
    if s is None:
        s = _stem_cache[word] = porter_stem(word)
    return s


def stem_analyzer():
    """The query-time analyzer; `FastText.index` reproduces exactly what it produces."""
    return (
        RegexTokenizer(WORD_PATTERN)
        | LowercaseFilter()
        | StopFilter(stoplist=_STOP, minsize=2)
        | StemFilter(stemfn=cached_stem, cachesize=None)
    )


def plain_words(text: str) -> list[str]:
    """Lowercased words of `text` as the stemmed fields see them, before stemming."""
    return [w for w in _WORD_RE.findall(text.lower()) if len(w) >= 2 and w not in _STOP]


class FastText(TEXT):
    """A stemmed TEXT field whose indexing skips Whoosh's per-token objects (3-4x faster).

    Query-time analysis still uses the regular analyzer chain, which yields the same terms.
    """

    stemmed = True  # else: accent-folded names (see _name_analyzer)

    def index(self, value, **kwargs) -> Iterator[tuple[bytes, int, float, bytes]]:
        if not isinstance(value, str):
            yield from super().index(value, **kwargs)
            return
        poses: dict[str, list[int]] = {}
        pos = -1
        stop = _STOP
        for i, w in enumerate(_WORD_RE.findall(value.lower())):
            if len(w) < 2 or w in stop:
                continue
            if pos < 0:
                pos = i  # Whoosh's StopFilter numbers from the first kept word's position
            if self.stemmed:
                s = _stem_cache.get(w)
                if s is None:
                    s = cached_stem(w)
            else:
                s = w.translate(accent_map)
            lst = poses.get(s)
            if lst is None:
                poses[s] = [pos]
            else:
                lst.append(pos)
            pos += 1
        fmt = self.format
        boost = fmt.field_boost
        if isinstance(fmt, Positions):
            # Inlined Positions.encode: delta-coded positions, pickled.
            for s, lst in poses.items():
                n = len(lst)
                if n == 1:
                    deltas = lst
                else:
                    deltas = [lst[0]] + [b - a for a, b in zip(lst, lst[1:], strict=False)]
                yield s.encode("utf-8"), n, n * boost, pack_uint(n) + dumps(deltas, 2)
        else:  # Frequency
            for s, lst in poses.items():
                yield s.encode("utf-8"), len(lst), len(lst) * boost, pack_uint(len(lst))


def _name_analyzer():
    # Names and venues: no stemming, no stop words, accents folded so "Muller" finds "Müller".
    # Stop words dropped too, else "the" in a free-word query would require an author "the".
    return (
        RegexTokenizer(WORD_PATTERN)
        | LowercaseFilter()
        | StopFilter(stoplist=_STOP, minsize=2)
        | CharsetFilter(accent_map)
    )


class FastNames(FastText):
    """Author names: like FastText but accent-folded instead of stemmed."""

    stemmed = False


def build_schema() -> Schema:
    """Fields: `id` is stored (and a column, for fast hit lists); everything else is index-only.

    The abstract and title are stored too so snippets and more-like-this need no round trip.
    """
    stem = stem_analyzer()
    return Schema(
        id=ID(stored=True, unique=True, sortable=True),
        title=FastText(analyzer=stem, stored=True, field_boost=3.0),
        abstract=FastText(analyzer=stem, stored=True),
        method=FastText(analyzer=stem, field_boost=2.0),
        authors=FastNames(analyzer=_name_analyzer()),
        venue=TEXT(analyzer=StandardAnalyzer(stoplist=None)),
        # shift_step=0: one term per year instead of 8 tiered ones; ranges over ~100 years
        # of terms are cheap anyway.
        year=NUMERIC(int, bits=32, signed=False, shift_step=0),
        # Tags: exact lowercase keywords for `tag:`, and their words in `tagtext` for free text.
        tags=KEYWORD(commas=True, lowercase=True, scorable=True),
        tagtext=FastText(analyzer=stem),
        note=FastText(analyzer=stem),
        comments=FastText(analyzer=stem),
        # is:/has: filters as keywords: starred/unstarred/read/unread/hasnote.
        flags=KEYWORD(),
    )


# Fields searched by free words, in BM25F order of importance.
TEXT_FIELDS = ["title", "method", "abstract", "authors", "tagtext", "note", "comments"]
