"""TF-IDF of papers' words, reduced to a few dozen dimensions by a randomized truncated SVD (numpy).

The words are the similarity words of the search layer (`similarity_words`: unstemmed,
accent-folded, the long stop list), weighted as `search/similar.py` weighs them (sublinear tf,
smooth idf, min df 2, unit rows), so the map and "related" agree on what is near. The sparse
matrix is kept as numpy arrays (CSR and its transpose) and multiplied in row chunks, so 50k
papers never make a dense papers x words matrix. Everything is deterministic for a given
input (fixed seed, documents in id order)."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from reader.search.schema import similarity_words

from .memory import give_back

MIN_DF = 2
MAX_DF_SHARE = 0.5  # words in more of the papers say little of a subject
DIMENSIONS = 64  # the SVD's width (bench_map.py: 64 ≈ 100 in P@10, half the time)
OVERSAMPLE = 10
POWER_ITERATIONS = 1  # each more adds two sparse products (a third of the SVD time at 50k)
SEED = 20
CHUNK_FLOATS = 4_000_000  # the gathered rows of one chunk of a sparse product (16 MB)
COUNT_BLOCK = 2_000  # papers whose words are counted at once (tfidf)

Progress = Callable[[int, int, str], None] | None
CancelCheck = Callable[[], bool] | None


class LayoutCancelled(Exception):
    """The layout was cancelled between steps."""


def check(cancelled: CancelCheck) -> None:
    if cancelled is not None and cancelled():
        raise LayoutCancelled


@dataclass
class Sparse:
    """A CSR matrix as three numpy arrays (rows x cols)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    cols: int

    @property
    def rows(self) -> int:
        return len(self.indptr) - 1

    def transpose(self) -> Sparse:
        order = np.argsort(self.indices, kind="stable")
        row_of = np.repeat(np.arange(self.rows, dtype=np.int32), np.diff(self.indptr))
        counts = np.bincount(self.indices, minlength=self.cols)
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        return Sparse(indptr, row_of[order], self.data[order], self.rows)

    def dot(self, dense: np.ndarray) -> np.ndarray:
        """self @ dense, in row chunks (the gathered rows of a chunk stay under CHUNK_FLOATS)."""
        dense = np.ascontiguousarray(dense, dtype=np.float32)  # QR gives column-major: row gathers crawl
        out = np.zeros((self.rows, dense.shape[1]), dtype=np.float32)
        per_chunk = max(1, CHUNK_FLOATS // max(1, dense.shape[1]))
        start = 0
        while start < self.rows:
            s0 = int(self.indptr[start])
            end = int(np.searchsorted(self.indptr, s0 + per_chunk, side="right")) - 1
            end = min(self.rows, max(end, start + 1))
            s1 = int(self.indptr[end])
            if s1 > s0:
                gathered = dense[self.indices[s0:s1]] * self.data[s0:s1, None]
                starts = self.indptr[start:end]
                full = np.diff(self.indptr[start:end + 1]) > 0
                out[start:end][full] = np.add.reduceat(gathered, starts[full] - s0, axis=0)
            start = end
        return out


@dataclass
class Vocabulary:
    """The words kept and their idf: what turns a new paper's text into a row of the matrix."""

    words: list[str]
    idf: np.ndarray

    def index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}


def tokens(texts: Iterable[str]) -> Iterator[list[str]]:
    """Each text's similarity words, one text at a time (50k papers' word lists held at once
    were 60 MB of Python strings that the allocator never gave back)."""
    return (similarity_words(t) if t else [] for t in texts)


def _weigh(ptr: np.ndarray, ind: np.ndarray, tfs: np.ndarray, vocab: Vocabulary) -> Sparse:
    """Sublinear tf x idf, each row of unit length (an empty row stays zero)."""
    data = (1 + np.log(tfs.astype(np.float32))) * vocab.idf[ind] if len(tfs) else np.zeros(0, np.float32)
    n = len(ptr) - 1
    row_of = np.repeat(np.arange(n, dtype=np.int32), np.diff(ptr))
    norms = np.sqrt(np.bincount(row_of, weights=data.astype(np.float64) ** 2, minlength=n))
    data = (data / np.maximum(norms[row_of], 1e-12)).astype(np.float32)
    return Sparse(ptr.astype(np.int64), ind.astype(np.int32), data, len(vocab.words))


class _Numbers(dict[str, int]):
    """Each word's number, a new word numbered on first sight (`numbers[w]` stays in C for a
    known word: a third of the cost of setdefault with a len() per word)."""

    def __missing__(self, word: str) -> int:
        number = self[word] = len(self)
        return number


def _count(docs: Iterable[Sequence[str]]) -> tuple[dict[str, int], np.ndarray, np.ndarray, np.ndarray, int]:
    """(word numbers, row, word, count, papers) of each distinct (paper, word), papers in order, read in
    one pass over `docs`; a block of COUNT_BLOCK papers is counted at a time, so no array of
    every word occurrence is held."""
    numbers = _Numbers()
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    tfs: list[np.ndarray] = []
    flat = array("q")
    lengths = array("q")
    first = 0

    def flush() -> None:
        if not lengths:
            return
        start = np.repeat(np.arange(first, first + len(lengths), dtype=np.int64), np.asarray(lengths))
        keys, counts = np.unique(start << 32 | np.asarray(flat, dtype=np.int64), return_counts=True)
        rows.append((keys >> 32).astype(np.int32))
        cols.append((keys & 0xFFFFFFFF).astype(np.int32))
        tfs.append(counts.astype(np.int32))

    for doc in docs:
        flat.extend(map(numbers.__getitem__, doc))
        lengths.append(len(doc))
        if len(lengths) == COUNT_BLOCK:
            flush()
            first += len(lengths)
            del flat[:], lengths[:]
    flush()
    n = first + len(lengths)
    empty = np.zeros(0, np.int32)

    def join(parts: list[np.ndarray]) -> np.ndarray:
        return np.concatenate(parts) if parts else empty

    return numbers, join(rows), join(cols), join(tfs), n


def tfidf(docs: Iterable[Sequence[str]]) -> tuple[Vocabulary, Sparse]:
    """The vocabulary (words in at least MIN_DF papers and at most MAX_DF_SHARE of them, all
    when few papers) and the TF-IDF rows of `docs` (read once, in order). Counted with numpy
    over blocks of word numbers, not a dictionary per paper (50k abstracts: seconds)."""
    numbers, rows, cols, tfs, n = _count(docs)
    terms = max(1, len(numbers))
    df = np.bincount(cols, minlength=terms)
    top = max(MIN_DF, int(n * MAX_DF_SHARE)) if n >= 20 else n
    names = np.array(list(numbers), dtype=object)
    del numbers
    kept = np.flatnonzero((df >= MIN_DF) & (df <= top))
    kept = kept[np.argsort(names[kept].astype(str), kind="stable")] if len(kept) else kept
    new_number = np.full(terms, -1, dtype=np.int32)
    new_number[kept] = np.arange(len(kept), dtype=np.int32)
    idf = (np.log((1 + n) / (1 + df[kept].astype(np.float64))) + 1).astype(np.float32)
    vocab = Vocabulary([str(w) for w in names[kept]], idf)
    del names
    mapped = new_number[cols]
    del cols
    keep = mapped >= 0
    rows, mapped, tfs = rows[keep], mapped[keep], tfs[keep]
    del keep
    order = np.lexsort((mapped, rows))  # rows, then words in the vocabulary's order
    rows, mapped, tfs = rows[order], mapped[order], tfs[order]
    del order
    ptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
    return vocab, _weigh(ptr, mapped, tfs, vocab)


def matrix(docs: Iterable[Sequence[str]], vocab: Vocabulary) -> Sparse:
    """The TF-IDF rows of a few papers in an existing vocabulary (new papers placed on a map)."""
    index = vocab.index()
    indptr = [0]
    indices: list[int] = []
    tfs: list[int] = []
    for doc in docs:
        counts: dict[int, int] = {}
        for w in doc:
            j = index.get(w)
            if j is not None:
                counts[j] = counts.get(j, 0) + 1
        for j in sorted(counts):
            indices.append(j)
            tfs.append(counts[j])
        indptr.append(len(indices))
    return _weigh(np.array(indptr, dtype=np.int64), np.array(indices, dtype=np.int64),
                  np.array(tfs, dtype=np.int64), vocab)


@dataclass
class MapFeatures:
    """The papers' reduced vectors (unit rows) and what projects a new paper the same way."""

    vectors: np.ndarray  # papers x d, float32, unit length (zero for a paper without words)
    vocab: Vocabulary
    components: np.ndarray  # d x words: a row of the TF-IDF matrix times its transpose = the vector
    matrix: Sparse | None = None  # the TF-IDF rows (labels count words in them); not stored


def _gaussian(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """rng.standard_normal((rows, cols)) as float32, drawn in row blocks (the same numbers: one
    stream) so the float64 draw of 100k words x 74 is never whole (60 MB)."""
    out = np.empty((rows, cols), dtype=np.float32)
    step = max(1, CHUNK_FLOATS // max(1, cols))
    for start in range(0, rows, step):
        out[start:start + step] = rng.standard_normal((min(step, rows - start), cols))
    return out


def svd(x: Sparse, d: int, *, seed: int = SEED, cancelled: CancelCheck = None) -> np.ndarray:
    """The top-d right singular vectors of x (d x cols), by randomized range finding."""
    k = min(d + OVERSAMPLE, x.cols, x.rows)
    if k <= 0:
        return np.zeros((0, x.cols), dtype=np.float32)
    rng = np.random.default_rng(seed)
    xt = x.transpose()
    q = np.linalg.qr(x.dot(_gaussian(rng, x.cols, k)))[0]
    for _ in range(POWER_ITERATIONS):
        check(cancelled)
        q = np.linalg.qr(xt.dot(q))[0]
        q = np.linalg.qr(x.dot(q))[0]
    b = xt.dot(q).T  # k x cols = q.T @ x
    _, _, vt = np.linalg.svd(b, full_matrices=False)
    vt = vt[: min(d, len(vt))]
    # Deterministic signs: the largest entry of each component positive.
    signs = np.sign(vt[np.arange(len(vt)), np.abs(vt).argmax(axis=1)])
    return (vt * signs[:, None]).astype(np.float32)


def unit_rows(v: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return (v / np.maximum(norms, 1e-12)).astype(np.float32)


def features(texts: Iterable[str], *, d: int = DIMENSIONS, cancelled: CancelCheck = None,
             progress: Progress = None) -> MapFeatures:
    """The reduced TF-IDF vectors of `texts` (one per paper, in the given order; read once,
    so a generator of rows never holds every abstract)."""
    return features_of(tokens(texts), d=d, cancelled=cancelled, progress=progress)


def features_of(docs: Iterable[Sequence[str]], *, d: int = DIMENSIONS, cancelled: CancelCheck = None,
                progress: Progress = None) -> MapFeatures:
    """`features` of papers given as their words (`tokens` of their texts), read once."""
    if progress:
        progress(0, 4, "Reading the papers' words")
    check(cancelled)
    vocab, x = tfidf(docs)
    del docs
    give_back()
    if progress:
        progress(1, 4, "Reducing the words")
    components = svd(x, d, cancelled=cancelled)
    vectors = unit_rows(x.dot(np.ascontiguousarray(components.T)))
    give_back()
    return MapFeatures(vectors, vocab, components, x)


def project(texts: Sequence[str], feats: MapFeatures) -> np.ndarray:
    """New papers' vectors in the space of `feats` (its vocabulary and components)."""
    x = matrix(tokens(texts), feats.vocab)
    return unit_rows(x.dot(np.ascontiguousarray(feats.components.T)))
