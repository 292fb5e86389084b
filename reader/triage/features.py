"""The library's TF-IDF as numpy arrays: what triage's linear models score (built once per
library state, off the GUI thread; a derived value, never stored).

Rows are papers (title and plain abstract), columns the words similarity uses
(`search.schema.similarity_words`: unstemmed, the longer stop list), weight
(1 + ln tf) x smooth idf, each row L2-normalised: the vectors of `search/similar.py`. Terms of
one paper only are dropped (they match nothing)."""

from __future__ import annotations

import re
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from reader.search.schema import lower_words, similarity_words

MIN_DF = 2
MAX_DF_SHARE = 0.5  # words in more than half the papers carry no subject
# Parts of compound words, which mean nothing alone: "multi-goal" and "multi-agent" split into
# "multi", "goal" and "multi", "agent", and a multi-goal paper was offered for a tag named
# multi-agent "because of" multi. Such a part is never a why-line's word nor a tag name's word
# (the other half of the compound carries its meaning). It stays a feature for the models:
# left out of the vocabulary, it cost 0.2-0.3 papers found at 50 shown on ICLR 2017.
FRAGMENTS = frozenset({"multi", "non", "semi", "pre", "post", "self", "co", "anti", "sub", "inter", "intra",
                       "cross", "quasi", "pseudo", "bi", "tri", "de", "re", "un", "mid"})
# Word pairs did not help (keyword pools: -0.2 papers found at 50 shown; in the consensus
# centroid, 4 tuning pools x 2 reader seeds: -0.01x).


@dataclass
class Features:
    """A CSR matrix (indptr, indices, data) over `ids`, with its vocabulary and titles."""

    ids: list[str]
    titles: list[str]
    vocab: list[str]
    indptr: np.ndarray  # int64, len(ids) + 1
    indices: np.ndarray  # int32 column of each stored value
    data: np.ndarray  # float32 weights, each row of unit norm
    row_of: np.ndarray = field(init=False)  # int32 row of each stored value (for bincount)
    empty: np.ndarray = field(init=False)  # rows without a kept word
    index: dict[str, int] = field(init=False)
    _mean: np.ndarray | None = field(init=False, default=None)
    _idf: np.ndarray | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        lengths = np.diff(self.indptr)
        self.row_of = np.repeat(np.arange(len(self.ids), dtype=np.int32), lengths)
        self.empty = lengths == 0
        self.index = {pid: n for n, pid in enumerate(self.ids)}

    @property
    def n_terms(self) -> int:
        return len(self.vocab)

    def rows(self, ids: Sequence[str]) -> np.ndarray:
        """Row numbers of the known ids among `ids` (unknown ones left out)."""
        get = self.index.get
        return np.fromiter((r for r in map(get, ids) if r is not None), dtype=np.int64)

    def scores(self, weights: np.ndarray) -> np.ndarray:
        """Every row's dot product with a weight vector over the vocabulary (3.7 M stored
        values at 50k papers: a gather and a segmented sum, a few ms)."""
        products = np.append(self.data * weights[self.indices], np.float32(0))
        out = np.add.reduceat(products, self.indptr[:-1]) if len(self.ids) else np.zeros(0, np.float32)
        out[self.empty] = 0.0  # reduceat gives an empty row its next row's first value
        return out.astype(np.float32, copy=False)

    def sub(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(local row of each value, columns, weights) of the given rows: a small CSR slice."""
        starts, ends = self.indptr[rows], self.indptr[rows + 1]
        lengths = ends - starts
        local = np.repeat(np.arange(len(rows), dtype=np.int32), lengths)
        if not len(local):
            return local, np.zeros(0, np.int32), np.zeros(0, np.float32)
        offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
        at = np.arange(len(local)) + offsets
        return local, self.indices[at], self.data[at]

    def dense_weights(self, rows: np.ndarray) -> np.ndarray:
        """The sum of the given rows, as a vocabulary-long vector."""
        _, cols, vals = self.sub(rows)
        return np.bincount(cols, weights=vals, minlength=self.n_terms).astype(np.float32)

    def mean_row(self) -> np.ndarray:
        """The library's mean vector (memoised: the features never change)."""
        if self._mean is None:
            self._mean = np.bincount(self.indices, weights=self.data, minlength=self.n_terms) / max(len(self.ids), 1)
        return self._mean

    def idf(self) -> np.ndarray:
        """Each term's smooth idf, as `weigh` used it (memoised)."""
        if self._idf is None:
            df = np.bincount(self.indices, minlength=self.n_terms).astype(np.float64)
            self._idf = (np.log((1 + len(self.ids)) / (1 + df)) + 1).astype(np.float32)
        return self._idf

    def columns_of(self, text: str) -> np.ndarray:
        """The vocabulary columns of the words of `text` (a tag's name: "graph-nets", "rl_theory"),
        found as the papers' words are; words the vocabulary lacks are left out."""
        found = set()
        spaced = _CAMEL.sub(" ", text).replace("_", " ")  # "GraphNets", "graph_nets": two words
        # The words as written: adding each one's plural or singular found fewer papers (3 sets of
        # readers on the keyword pools: 1.130x against 1.135x the better reference).
        for term in similarity_words(spaced):
            if term in FRAGMENTS:  # "multi-agent": "agent" says it, "multi" alone says nothing
                continue
            at = bisect_left(self.vocab, term)  # the vocabulary is sorted
            if at < len(self.vocab) and self.vocab[at] == term:
                found.add(at)
        return np.array(sorted(found), dtype=np.int64)

    def row_terms(self, row: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.indptr[row], self.indptr[row + 1]
        return self.indices[a:b], self.data[a:b]


def build(texts: Sequence[tuple[str, str, str, bool]]) -> Features:
    """Features of (id, title, plain abstract, own title) rows: the title's words count when it
    is the paper's own (one derived from the abstract would count its opening twice)."""
    return weigh(count(texts))


@dataclass
class TermCounts:
    """Every paper's raw word counts (all words, before the document-frequency cut): what the
    features are weighed from, and what `feature_store` keeps so a new paper costs its own words only."""

    ids: list[str]
    titles: list[str]
    terms: list[str]  # every word of the papers, in first-seen order
    indptr: np.ndarray  # int64, len(ids) + 1
    cols: np.ndarray  # int32 term of each count
    tfs: np.ndarray  # int32
    hashes: np.ndarray  # int64 crc32 of each paper's text (an edited one is counted again)


def paper_text(title: str, abstract: str, own: bool) -> str:
    return f"{title} {abstract}" if own else abstract


def text_hash(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


class _Numbering(dict):
    """word -> its number, a new word taking the next: `map(numbering.__getitem__, words)` runs
    at C speed for the words seen before (nearly all of them)."""

    def __missing__(self, key: str) -> int:
        value = self[key] = len(self)
        return value


# The words of search.schema.lower_words on lowercased ASCII text, without its regex: a dot
# joins two word characters or goes, every other non-word character is a space (a test checks
# they agree on the seeds and the corpus). 50k abstracts: the regex took 4.3 s CPU of the 14.
_WORD_CHARS = "0123456789_abcdefghijklmnopqrstuvwxyz"
_TO_SPACE = str.maketrans({chr(c): " " for c in range(128) if chr(c) not in _WORD_CHARS + "."})
# A dot not between two word characters (led by the dot, so the search skips to the dots).
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_LONE_DOT = re.compile(r"\.(?:(?![0-9_a-z])|(?<![0-9_a-z]\.))")


def lowered_words(text: str) -> list[str]:
    """The lowercased words of `text`, as `search.schema.lower_words` finds them."""
    low = text.lower()
    if not low.isascii():
        return lower_words(text)
    if "." in low:
        low = _LONE_DOT.sub(" ", low)
    return low.translate(_TO_SPACE).split()


def count(texts: Sequence[tuple[str, str, str, bool]]) -> TermCounts:
    """The raw word counts of (id, title, plain abstract, own title) rows. Each word is numbered
    once per occurrence (a dict lookup), the stop list and accent folding of
    `similarity_words` applied once per distinct word, the counting done by numpy."""
    numbering = _Numbering()
    get = numbering.__getitem__
    flat = array("q")
    n = len(texts)
    lengths = np.zeros(n, np.int64)
    hashes = np.zeros(n, np.int64)
    for i, (_pid, title, abstract, own) in enumerate(texts):
        text = paper_text(title, abstract, own)
        hashes[i] = text_hash(text)
        before = len(flat)
        flat.extend(map(get, lowered_words(text)))
        lengths[i] = len(flat) - before
    words = list(numbering)
    term_of = _Numbering()
    lookup = np.fromiter((term_of[t[0]] if (t := similarity_words(w)) else -1 for w in words),
                         dtype=np.int64, count=len(words))
    nums = lookup[np.frombuffer(flat, dtype=np.int64)] if len(flat) else np.zeros(0, np.int64)
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    kept = nums >= 0
    width = max(len(term_of), 1)
    keys, tfs = np.unique(rows[kept] * width + nums[kept], return_counts=True)
    doc = keys // width
    indptr = np.concatenate(([0], np.cumsum(np.bincount(doc, minlength=n)))).astype(np.int64)
    return TermCounts([t[0] for t in texts], [t[1] for t in texts], list(term_of),
                  indptr, (keys % width).astype(np.int32), tfs.astype(np.int32), hashes)


def weigh(c: TermCounts) -> Features:
    """TF-IDF features of counts: the vocabulary (words in MIN_DF papers up to MAX_DF_SHARE of
    them, sorted), (1 + ln tf) x smooth idf, unit rows."""
    n = len(c.ids)
    df = np.bincount(c.cols, minlength=len(c.terms))
    cap = max(MIN_DF, MAX_DF_SHARE * n)
    kept = np.flatnonzero((df >= MIN_DF) & (df <= cap))
    names = [c.terms[t] for t in kept.tolist()]
    by_name = sorted(range(len(names)), key=names.__getitem__)
    kept = kept[np.asarray(by_name, dtype=np.int64)]
    column = np.full(len(c.terms), -1, np.int64)
    column[kept] = np.arange(len(kept))
    vocab = [names[i] for i in by_name]
    idf = (np.log((1 + n) / (1 + df[kept].astype(np.float64))) + 1).astype(np.float32)
    mapped = column[c.cols] if len(c.cols) else np.zeros(0, np.int64)
    keep = mapped >= 0
    row_of = np.repeat(np.arange(n, dtype=np.int64), np.diff(c.indptr))[keep]  # still by row
    indices = mapped[keep].astype(np.int32)
    tfs = c.tfs[keep]
    indptr = np.concatenate(([0], np.cumsum(np.bincount(row_of, minlength=n)))).astype(np.int64)
    data = (1 + np.log(tfs.astype(np.float32))) * idf[indices] if len(indices) else np.zeros(0, np.float32)
    norms = np.sqrt(np.bincount(row_of, weights=data * data, minlength=n))
    norms[norms == 0] = 1.0
    data = (data / norms[row_of]).astype(np.float32)
    return Features(list(c.ids), list(c.titles), vocab, indptr, indices, data)
