"""The library's TF-IDF as numpy arrays: what triage's linear models score (built once per
library state, off the GUI thread; a derived value, never stored).

Rows are papers (title and plain abstract), columns the words similarity uses
(`search.schema.similarity_words`: unstemmed, the longer stop list), weight
(1 + ln tf) x smooth idf, each row L2-normalised: the vectors of `search/similar.py`. Terms of
one paper only are dropped (they match nothing)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from reader.search.schema import similarity_words

MIN_DF = 2
MAX_DF_SHARE = 0.5  # words in more than half the papers carry no subject
BIGRAMS = False  # word pairs did not help (keyword pools: -0.2 papers found at 50 shown)


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

    def row_terms(self, row: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.indptr[row], self.indptr[row + 1]
        return self.indices[a:b], self.data[a:b]


def build(texts: Sequence[tuple[str, str, str, bool]]) -> Features:
    """Features of (id, title, plain abstract, own title) rows: the title's words count when it
    is the paper's own (one derived from the abstract would count its opening twice)."""
    counts: list[Counter[str]] = []
    df: Counter[str] = Counter()
    for _pid, title, abstract, own in texts:
        words = similarity_words(f"{title} {abstract}" if own else abstract)
        tf = Counter(words)
        if BIGRAMS:
            tf.update(map(" ".join, zip(words, words[1:], strict=False)))
        counts.append(tf)
        df.update(tf.keys())
    n = len(texts)
    cap = max(MIN_DF, MAX_DF_SHARE * n)
    vocab = sorted(t for t, d in df.items() if MIN_DF <= d <= cap)
    col = {t: i for i, t in enumerate(vocab)}
    idf = np.array([np.log((1 + n) / (1 + df[t])) + 1 for t in vocab], dtype=np.float32)
    indptr = np.zeros(n + 1, dtype=np.int64)
    cols: list[int] = []
    tfs: list[int] = []
    for i, tf in enumerate(counts):
        kept = [(col[t], c) for t, c in tf.items() if t in col]
        cols.extend(k for k, _ in kept)
        tfs.extend(c for _, c in kept)
        indptr[i + 1] = len(cols)
    indices = np.asarray(cols, dtype=np.int32)
    data = (1 + np.log(np.asarray(tfs, dtype=np.float32))) * idf[indices] if cols else np.zeros(0, np.float32)
    row_of = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
    norms = np.sqrt(np.bincount(row_of, weights=data * data, minlength=n))
    norms[norms == 0] = 1.0
    data = (data / norms[row_of]).astype(np.float32)
    return Features([t[0] for t in texts], [t[1] for t in texts], vocab, indptr, indices, data)
