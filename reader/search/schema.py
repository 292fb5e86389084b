"""The Whoosh schema for the search index, with a fast indexing path for the text fields."""

from __future__ import annotations

import re
import threading
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import Stemmer
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
from whoosh.support.charset import accent_map
from whoosh.system import pack_uint

from reader.recent import remember_recent
from reader.search.fields import FIELDS
from reader.search.stopwords import SIMILARITY_STOP

# Bump when the schema or analysis changes: an index with another version is rebuilt.
# 2: no positions; phrases use the `<field>_bi` word-pair fields.
# 3: Snowball (Porter2) stems; derived titles in `dtitle`; the field table (fields.py).
# 4: `words`: a paper's title and abstract words unstemmed, for similarity (similar.py).
# 5: compressed posting blocks and stored fields (writer.bulk_codec): -40% on disk.
# 6: the skipped/unskipped flags.
# 7: the hasabstract / noabstract flags (title-only papers).
# 8: stems by PyStemmer (Snowball's own C stemmer) instead of Whoosh's Python port: the same
#    Porter2 stems but for ~0.15% of words, where the port was wrong (lateral -> later).
SCHEMA_VERSION = 8
# Word pairs: most occur once, and a term per distinct pair would triple the build time and
# the index size. A bulk-built segment gives its own term only to pairs seen in at least
# PAIR_SAMPLE_MIN_DF of its first PAIR_SAMPLE_DOCS documents (the frequent ones, whose
# phrases would otherwise be slow to check); every other pair goes to one of PAIR_BUCKETS
# hashed terms, which a phrase search narrows by the words' postings and then checks.
PAIR_SAMPLE_DOCS = 2000
PAIR_SAMPLE_MIN_DF = 2
PAIR_BUCKETS = 1 << 12

WORD_PATTERN = r"\w+(?:\.?\w+)*"  # Whoosh's default tokenizer pattern, without a capture group
_WORD_RE = re.compile(WORD_PATTERN, re.UNICODE)
# The same words found faster for indexing: without backtracking (a word run is followed by
# a non-word character, so the optional dot can only ever match a real dot), and in
# lowercased ASCII text (most abstracts once their LaTeX is converted) \w is [0-9_a-z].
# Python 3.11.0-3.11.4 (Debian 12 ships 3.11.2) get a possessive quantifier on a group wrong:
# "speed." was found with its dot. There the same patterns without possessives (the same words,
# a little slower); tests/search/test_analysis.py checks both against _WORD_RE.
POSSESSIVE = (r"\w++(?:\.\w++)*+", r"[0-9_a-z]++(?:\.[0-9_a-z]++)*+")
PLAIN = (r"\w+(?:\.\w+)*", r"[0-9_a-z]+(?:\.[0-9_a-z]+)*")


def possessive_groups_work() -> bool:
    """Does this Python's re run POSSESSIVE right (CPython gh-101955, fixed in 3.11.5)?"""
    return re.findall(POSSESSIVE[0], "speed. a.b.. c") == ["speed", "a.b", "c"]


_FAST_WORD_RE, _ASCII_WORD_RE = (re.compile(p) for p in (POSSESSIVE if possessive_groups_work() else PLAIN))
_STOP = frozenset(STOP_WORDS)
MAX_STEMMED = 40  # longer words are indexed and searched as they are
BIGRAM_SUFFIX = "_bi"
# Snowball English (Porter2) merges the forms a reader means as one word (generating and
# generation -> generat, regularizing and regularization -> regular) where Porter splits
# them, and keeps general/generation and new/news apart (see tests/search/test_index.py).
# PyStemmer runs the Snowball project's own C code: on the 100k corpus's 76,704 distinct words
# 0.12 s against 0.75 s for Whoosh's Python port (stemming is most of a new word's cost), and
# 109 words differ, where the port is wrong: lateral -> later, adding -> ad, organic and
# organization -> organ, universal and university -> univers, interval -> interv.
_stemmers = threading.local()  # a Stemmer is not to be shared between threads


def _snowball(word: str) -> str:
    stemmer = getattr(_stemmers, "stemmer", None)
    if stemmer is None:  # no cache of its own: _TermCache and cached_stem keep the stems
        stemmer = _stemmers.stemmer = Stemmer.Stemmer("english", 0)
    return stemmer.stemWord(word)


class _TermCache(dict):
    """Lowercased word -> indexed term ("" for stop words and 1-letter words), memoised.

    A dict with __missing__ lets analysis map whole word lists at C speed; an English
    corpus has a few hundred thousand distinct words at most, so it is unbounded.
    """

    def __init__(self, stemmed: bool, stop: frozenset[str] = _STOP) -> None:
        super().__init__()
        self.stemmed = stemmed
        self.stop = stop

    def __missing__(self, w: str) -> str:
        if len(w) < 2 or w in self.stop:
            t = ""
        elif len(w) > MAX_STEMMED:
            t = w  # not a word (a hash, a pasted blob): stemming it costs seconds
        elif self.stemmed:
            t = _snowball(w)
        else:
            t = w.translate(accent_map)
        self[w] = t
        return t


_STEMS = _TermCache(stemmed=True)
_FOLDED = _TermCache(stemmed=False)
_WORDS = _TermCache(stemmed=False, stop=_STOP | SIMILARITY_STOP)


_STOP_STEMS: dict[str, str] = {}


def cached_stem(word: str) -> str:
    """Stem of an already-lowercased word, memoised (stemming dominates analysis time)."""
    st = _STEMS[word]
    if st:
        return st
    st = _STOP_STEMS.get(word)  # stop and 1-letter words: not indexed, but stemmed the same
    if st is None:
        st = _snowball(word) if len(word) <= MAX_STEMMED else word
        if len(_STOP_STEMS) < 100_000:
            _STOP_STEMS[word] = st
    return st


def stem_analyzer():
    """The query-time analyzer; `FastText.terms` reproduces exactly what it produces."""
    return (
        RegexTokenizer(WORD_PATTERN)
        | LowercaseFilter()
        | StopFilter(stoplist=_STOP, minsize=2)
        | StemFilter(stemfn=cached_stem, cachesize=None)
    )


def plain_words(text: str) -> list[str]:
    """Lowercased words of `text` as the stemmed fields see them, before stemming."""
    return [w for w in _WORD_RE.findall(text.lower()) if len(w) >= 2 and w not in _STOP]


@remember_recent()
def analyze(text: str, stemmed: bool = True) -> list[str]:
    """Indexed terms of `text` in order (stop words dropped, as Whoosh's StopFilter does).

    The last result is remembered: a field and its word-pair field analyse the same string
    one after the other.
    """
    cache = _STEMS if stemmed else _FOLDED
    return list(filter(None, map(cache.__getitem__, lower_words(text))))


@remember_recent(4)
def lower_words(text: str) -> list[str]:
    """The lowercased words of `text`, the last few texts' remembered: a paper's abstract is
    read by its field, its word pairs and the similarity words, with other fields between."""
    low = text.lower()
    return (_ASCII_WORD_RE if low.isascii() else _FAST_WORD_RE).findall(low)


def similarity_words(text: str) -> list[str]:
    """The words of `text` that similarity compares (the `words` field): lowercased and
    accent-folded, not stemmed, without the longer stop list. Unstemmed words tell a paper's
    subject better than stems (ICLR 2018, 5 papers of a keyword, TF-IDF centroid P@10: 0.274
    against 0.245), though stems find more of what a query means."""
    return list(filter(None, map(_WORDS.__getitem__, lower_words(text))))


def bigrams(terms: list[str]) -> list[str]:
    """Consecutive term pairs ("a b"): a 2-word phrase is one such term."""
    return list(map(" ".join, zip(terms, terms[1:], strict=False)))


def pair_bucket(pair: str) -> str:
    """The hashed term standing for a rare pair ("#" + hex; real pairs contain a space)."""
    return bucket_term(zlib.crc32(pair.encode("utf-8")) & (PAIR_BUCKETS - 1))


def bucket_term(n: int) -> str:
    return f"#{n:x}"


@dataclass(frozen=True)
class PairTerms:
    """A pair field's value as the bulk writer indexes it, for Whoosh's own writer
    (rebuild.PairPlan): each term once (an exact pair or a bucket), the field's length its
    pair count."""

    terms: tuple[str, ...]
    length: int

    def postings(self, boost: float) -> Iterator[tuple[bytes, int, float, bytes]]:
        # Whoosh sums the frequencies into the length: the first term carries the pairs
        # counted twice (weights, which rank, stay 1 each as BulkWriter writes them).
        extra = self.length - len(self.terms)
        for i, t in enumerate(self.terms):
            f = 1 + extra if i == 0 else 1
            yield t.encode("utf-8"), f, boost, pack_uint(f)


class FastText(TEXT):
    """A stemmed TEXT field (frequencies, no positions) with a fast `terms` for bulk builds.

    Query-time analysis uses the regular analyzer chain, which yields the same terms.
    """

    stemmed = True  # else: accent-folded names (see _name_analyzer)
    pairs = False  # True: index consecutive word pairs instead of words

    def __init__(self, analyzer, field_boost: float = 1.0, stored: bool = False) -> None:
        super().__init__(analyzer=analyzer, phrase=False, field_boost=field_boost, stored=stored)

    def analysis(self, value: str) -> list[str]:
        """The terms of `value` in order."""
        return analyze(value, self.stemmed)

    def terms(self, value: str) -> Counter[str]:
        """Term -> frequency for `value` (pair fields: as pairs, to be folded by the writer)."""
        t = self.analysis(value)
        return Counter(bigrams(t) if self.pairs else t)

    def index_terms(self, value: str) -> Counter[str]:
        """Indexed terms for one document on its own (no segment statistics): pair fields
        put every pair in its bucket."""
        c = self.terms(value)
        if not self.pairs:
            return c
        out: Counter[str] = Counter()
        for p, n in c.items():
            out[pair_bucket(p)] += n
        return out

    def index(self, value, **kwargs) -> Iterator[tuple[bytes, int, float, bytes]]:
        if isinstance(value, PairTerms):
            yield from value.postings(self.format.field_boost)
            return
        if not isinstance(value, str):
            yield from super().index(value, **kwargs)
            return
        boost = self.format.field_boost
        for s, n in self.index_terms(value).items():
            yield s.encode("utf-8"), n, n * boost, pack_uint(n)


def _name_analyzer():
    # Names and venues: no stemming, no stop words, accents folded so "Muller" finds "Müller".
    # Stop words dropped too, else "the" in a free-word query would require an author "the".
    return (
        RegexTokenizer(WORD_PATTERN)
        | LowercaseFilter()
        | StopFilter(stoplist=_STOP, minsize=2)
        | CharsetFilter(accent_map)
    )


class FastKeyword(KEYWORD):
    """KEYWORD with the fast `terms` (Whoosh's KeywordAnalyzer: split, strip, lowercase)."""

    pairs = False

    def __init__(self, commas: bool = False, scorable: bool = False) -> None:
        super().__init__(commas=commas, lowercase=True, scorable=scorable)
        self.commas = commas

    def terms(self, value: str) -> Counter[str]:
        parts = value.lower().split("," if self.commas else None)
        if self.commas:
            parts = [p.strip() for p in parts]
        return Counter(filter(None, parts))


class FastID(ID):
    """ID with the fast `terms`: the whole value is the term."""

    pairs = False

    def terms(self, value: str) -> Counter[str]:
        return Counter((value,))


class FastNames(FastText):
    """Author names: like FastText but accent-folded instead of stemmed."""

    stemmed = False


class FastWords(FastText):
    """A paper's words for similarity: unstemmed, longer stop list (similarity_words)."""

    stemmed = False

    def analysis(self, value: str) -> list[str]:
        return similarity_words(value)


def _words_analyzer():
    # Never parsed from a query (the field has no name to type); kept equal to FastWords.terms.
    return (
        RegexTokenizer(WORD_PATTERN)
        | LowercaseFilter()
        | StopFilter(stoplist=_STOP | SIMILARITY_STOP, minsize=2)
        | CharsetFilter(accent_map)
    )


class FastPairs(FastText):
    """Word pairs of a stemmed field, for phrase search (never searched directly)."""

    pairs = True


class FastNamePairs(FastNames):
    """Word pairs of an accent-folded field."""

    pairs = True


def build_schema(texts_stored: bool = True) -> Schema:
    """The Whoosh schema from the field table (fields.py).

    `id` is stored (and a column, for fast hit lists); the abstract and title are stored too
    unless `texts_stored` is False: an index opened by a library reads them from the database
    instead (texts.py). Each word field has a `<name>_bi` twin
    holding its word pairs: a phrase is then a term lookup instead of a positions check
    (see query.PairPhrase). Ranking weights are applied at query time (rank.py), so the
    index keeps raw frequencies.
    """
    stem = stem_analyzer()
    names = _name_analyzer()
    fields: dict = {}
    for sf in FIELDS:
        if sf.kind == "id":
            fields[sf.name] = FastID(stored=sf.stored, unique=True, sortable=True)
        elif sf.kind == "venue":
            fields[sf.name] = TEXT(analyzer=StandardAnalyzer(stoplist=None))
        elif sf.kind == "numeric":
            # shift_step=0: one term per year instead of 8 tiered ones; ranges over ~100
            # years of terms are cheap anyway.
            fields[sf.name] = NUMERIC(int, bits=32, signed=False, shift_step=0)
        elif sf.kind == "keyword":
            # tags: exact lowercase keywords (commas); flags: is:/has: filters.
            fields[sf.name] = FastKeyword(commas=sf.name == "tags", scorable=sf.name == "tags")
        elif sf.kind == "words":
            fields[sf.name] = FastWords(_words_analyzer(), 1.0)
        elif sf.kind == "names":
            fields[sf.name] = FastNames(names, 1.0)
            fields[sf.name + BIGRAM_SUFFIX] = FastNamePairs(names, 1.0)
        else:
            fields[sf.name] = FastText(stem, 1.0, stored=sf.stored and texts_stored)
            if sf.pairs:
                fields[sf.name + BIGRAM_SUFFIX] = FastPairs(stem, 1.0)
    return Schema(**fields)
