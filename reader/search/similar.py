"""More like this: TF-IDF cosine (sublinear tf, smooth idf) of papers to a paper or to a set's centroid."""

from __future__ import annotations

import heapq
import math
import threading
import time
from collections.abc import Iterable
from operator import itemgetter

from reader.search.internals import byte_length, postings
from reader.search.rank import _segment_lengths
from reader.search.schema import analyze

# A paper's vector: its title and abstract stems together (as one text), weight
# (1 + ln tf) * idf with the smooth idf ln((1 + n) / (1 + df)) + 1, divided by its norm;
# the vectors scikit-learn's TfidfVectorizer(sublinear_tf=True) makes, over stems.
SIMILAR_FIELDS = ("title", "abstract")
# The query (centroid) vector has every term of the given papers; the postings of its
# heaviest TOP_TERMS are walked (the rest adds little to the cosine and most of the work).
TOP_TERMS = 250
MAX_DF_SHARE = 0.3  # terms in more of the papers are not walked: weak signal, long postings
# ... for one paper (related): its vector has few terms, so fewer are left out.
MAX_DF_SHARE_ONE = 0.5
SMALL_LIBRARY = 50  # ... unless in at most this many (a small library: every term counts)
POSTINGS_BUDGET = 12_000  # postings read per call; the heaviest terms are read first
TIME_BUDGET = 0.15  # seconds walking postings; later (lighter) terms are skipped past it
# Terms of one paper only are left out of every vector (as min_df=2 would): they match
# nothing, and in the norm they only push down papers with rare words.
MIN_DF = 2
VECTOR_MAX_DF = 1.0  # share of papers above which a term leaves the vectors (1: none, as sklearn)
# Candidates given their exact norm (the rest keep the approximate one): 3 x the limit,
# within these bounds (each costs ~0.2 ms the first time).
RESCORE_MIN, RESCORE = 30, 200

_SCORE = itemgetter(1)


class _Stats:
    """Document frequencies (title or abstract, the larger) and idf of one index
    generation, looked up as needed (reading the whole lexicon takes seconds at 50k)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._df: dict[str, int] = {}
        self._idf: dict[str, float] = {}

    def df(self, reader, term: str) -> int:
        v = self._df.get(term)
        if v is None:
            v = max(sum(_leaf_df(leaf, f, term) for leaf, _ in reader.leaf_readers())
                    for f in SIMILAR_FIELDS)
            if len(self._df) < 1_000_000:
                self._df[term] = v
        return v

    def idf(self, reader, term: str) -> float:
        v = self._idf.get(term)
        if v is None:
            v = math.log((1 + self.n) / (1 + self.df(reader, term))) + 1
            if len(self._idf) < 1_000_000:
                self._idf[term] = v
        return v


# (segment id, field) -> term -> df in that segment: a small segment's whole lexicon (read
# once: updates make many), a big one's terms as looked up. Segments never change.
_seg_df: dict[tuple[str, str], dict[str, int]] = {}
# Segments up to this many documents are read whole (a 50k one takes ~2 s: looked up instead).
SMALL_SEGMENT = 2000


def _seg_terms(leaf, fieldname: str) -> tuple[dict[str, int], bool]:
    """The segment's df table for a field, and whether it is complete."""
    seg = leaf.segment()
    key = (seg.segment_id(), fieldname)
    table = _seg_df.get(key)
    small = leaf.doc_count_all() <= SMALL_SEGMENT
    if table is None:
        table = {}
        if small:
            try:
                for btext, info in leaf.iter_field(fieldname):
                    table[btext.decode("utf-8")] = info.doc_frequency()
            except Exception:  # a field this index lacks
                table = {}
        with _lock:
            if len(_seg_df) > 1024:
                _seg_df.clear()
            _seg_df[key] = table
    return table, small


def _leaf_df(leaf, fieldname: str, term: str) -> int:
    table, complete = _seg_terms(leaf, fieldname)
    v = table.get(term)
    if v is None:
        if complete:
            return 0
        try:
            v = leaf.doc_frequency(fieldname, term)
        except Exception:  # a field this index lacks
            v = 0
        if len(table) < 1_000_000:
            table[term] = v
    return v


# segment ids of a reader -> its stats.
_stats: dict[tuple[str, ...], _Stats] = {}
_lock = threading.Lock()


def _stats_for(reader) -> _Stats:
    key = tuple(leaf.segment().segment_id() for leaf, _ in reader.leaf_readers())
    hit = _stats.get(key)
    if hit is None:
        hit = _Stats(max(1, reader.doc_count_all()))
        with _lock:
            if len(_stats) > 8:
                _stats.clear()
            _stats[key] = hit
    return hit


def query_vector(reader, texts: Iterable[str], st: _Stats) -> dict[str, float]:
    """The mean of the texts' normalised tf-idf vectors."""
    out: dict[str, float] = {}
    k = 0
    for text in texts:
        k += 1
        tf: dict[str, int] = {}
        for t in analyze(text):
            tf[t] = tf.get(t, 0) + 1
        vec = {t: (1 + math.log(c)) * st.idf(reader, t) for t, c in tf.items()
               if MIN_DF <= st.df(reader, t) <= st.n * VECTOR_MAX_DF}
        norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
        for t, v in vec.items():
            out[t] = out.get(t, 0.0) + v / norm
    return {t: v / k for t, v in out.items()} if k else {}


def similar(searcher, texts: list[str], *, skip: set[int] = frozenset(),  # type: ignore[assignment]
            limit: int | None = 10, top_terms: int | None = None,
            max_postings: int | None = None) -> list[tuple[int, float]]:
    """Documents (searcher-wide numbers) by cosine to the centroid of `texts`, best first;
    `skip` are left out. Only documents sharing one of the walked terms are returned.

    Dot products come from the postings; the best RESCORE by an approximate norm (the
    square root of the length) then get their exact norm, from their stored text."""
    t0 = time.perf_counter()
    top_terms = TOP_TERMS if top_terms is None else top_terms
    max_postings = POSTINGS_BUDGET if max_postings is None else max_postings
    reader = searcher.reader()
    st = _stats_for(reader)
    qvec = query_vector(reader, texts, st)
    cap = max(SMALL_LIBRARY, (MAX_DF_SHARE_ONE if len(texts) == 1 else MAX_DF_SHARE) * st.n)
    # A term's share of a cosine is at most its query weight x idf: heaviest first.
    terms = [(t, w * st.idf(reader, t)) for t, w in qvec.items() if 1 < st.df(reader, t) <= cap]
    terms = heapq.nlargest(top_terms, terms, key=_SCORE)
    leaves = list(reader.leaf_readers())
    title, abstract = SIMILAR_FIELDS
    scores: dict[int, float] = {}
    read = 0
    for t, qw in terms:
        df = st.df(reader, t)
        if scores and (read + df > max_postings or time.perf_counter() - t0 > TIME_BUDGET):
            continue  # a rarer term may still fit
        read += df
        for leaf, base in leaves:
            # Skip segments without the term (updates leave many small ones).
            has_abs, has_title = _leaf_df(leaf, abstract, t), _leaf_df(leaf, title, t)
            if not has_abs and not has_title:
                continue
            ids, tfs = postings(leaf, abstract, t) if has_abs else ((), ())
            tids, ttfs = postings(leaf, title, t) if has_title else ((), ())
            if tids:
                merged = dict(zip(ids, tfs, strict=True))
                for d, tf in zip(tids, ttfs, strict=True):
                    merged[d] = merged.get(d, 0.0) + tf
                pairs: Iterable = merged.items()
            else:
                pairs = zip(ids, tfs, strict=True)
            get = scores.get
            for d, tf in pairs:
                d += base
                scores[d] = get(d, 0.0) + qw * _LOGTF[min(int(tf), 1023)]
    for d in skip:
        scores.pop(d, None)
    # Approximate cosine: dot / sqrt(length) (deleted documents dropped).
    approx: dict[int, float] = {}
    if len(leaves) == 1:
        inv = _inv_lengths(reader, leaves[0][0])
        approx = {d: sc * inv[d] for d, sc in scores.items() if inv[d]}
    else:
        spans = [(base, base + leaf.doc_count_all(), _inv_lengths(reader, leaf))
                 for leaf, base in leaves]
        for d, sc in scores.items():
            for lo, hi, inv in spans:
                if lo <= d < hi:
                    if inv[d - lo]:
                        approx[d] = sc * inv[d - lo]
                    break
    rescore = min(RESCORE, max(RESCORE_MIN, 3 * (limit or RESCORE)))
    head = heapq.nlargest(rescore, approx.items(), key=_SCORE)
    exact = [(d, scores[d] / _norm(searcher, d, st)) for d, _ in head]
    exact.sort(key=_SCORE, reverse=True)
    if limit is not None and limit <= len(exact):
        return exact[:limit]
    placed = {d for d, _ in exact}
    low = min((sc for _, sc in exact), default=0.0)
    # The rest by the approximate cosine, below the exact head (scaled under its lowest).
    top_rest = max((sc for d, sc in approx.items() if d not in placed), default=0.0) or 1.0
    rest = sorted(((d, sc) for d, sc in approx.items() if d not in placed),
                  key=_SCORE, reverse=True)
    out = exact + [(d, low * sc / top_rest) for d, sc in rest]
    return out[:limit]


def _inv_lengths(reader, leaf) -> list[float]:
    """1 / sqrt(title + abstract length) per document of a segment; 0 for deleted ones."""
    seg = leaf.segment()
    key = (seg.segment_id(), seg.deleted_count() if leaf.has_deletions() else 0)
    hit = _inv.get(key)
    if hit is not None:
        return hit
    lens = [_segment_lengths(leaf, f) for f in SIMILAR_FIELDS if f in reader.schema]
    table = [1 / math.sqrt(b or 1) for b in (byte_length(i) for i in range(256))]
    if len(lens) == 1 or not any(lens[0]):
        inv = [table[b] for b in lens[-1]]
    else:
        inv = [1 / math.sqrt((byte_length(a) + byte_length(b)) or 1) for a, b in zip(*lens, strict=True)]
    if leaf.has_deletions():
        for d in seg.deleted_docs():
            inv[d] = 0.0
    with _lock:
        if len(_inv) > 512:
            _inv.clear()
        _inv[key] = inv
    return inv


_inv: dict[tuple[str, int], list[float]] = {}


def _norm(searcher, docnum: int, st: _Stats) -> float:
    """A document's exact vector norm, from its stored title and abstract (memoised per
    segment and document: segments never change; the idf drifts little)."""
    reader = searcher.reader()
    key = None
    for leaf, base in reader.leaf_readers():
        if base <= docnum < base + leaf.doc_count_all():
            key = (leaf.segment().segment_id(), docnum - base)
            break
    hit = _norms.get(key) if key is not None else None
    if hit is not None:
        return hit
    stored = searcher.stored_fields(docnum)
    tf: dict[str, int] = {}
    for t in analyze(f"{stored.get('title', '')} {stored.get('abstract', '')}"):
        tf[t] = tf.get(t, 0) + 1
    sq = 0.0
    for t, c in tf.items():
        if MIN_DF <= st.df(reader, t) <= st.n * VECTOR_MAX_DF:
            w = _LOGTF[c] * st.idf(reader, t) if c < len(_LOGTF) else (1 + math.log(c)) * st.idf(reader, t)
            sq += w * w
    norm = math.sqrt(sq) or 1.0
    if key is not None:
        with _lock:
            if len(_norms) > NORMS_HELD:
                _norms.clear()
            _norms[key] = norm
    return norm


# (segment id, document number) -> norm.
_norms: dict[tuple[str, int], float] = {}
NORMS_HELD = 500_000
_LOGTF = [0.0] + [1 + math.log(tf) for tf in range(1, 1024)]
