"""More like this: TF-IDF cosine (sublinear tf, smooth idf) of papers' words to a paper or to a set's centroid."""

from __future__ import annotations

import heapq
import math
import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Iterable
from itertools import compress, repeat
from operator import itemgetter, mul

from reader.search.rank import _segment_lengths
from reader.search.schema import similarity_words
from reader.search.segments import byte_length, postings_at, segment_lexicon
from reader.search.texts import doc_texts

# A paper's vector: the words of its title and abstract together (the `words` field,
# unstemmed), weight (1 + ln tf) * idf with the smooth idf ln((1 + n) / (1 + df)) + 1,
# divided by its norm: the vectors scikit-learn's TfidfVectorizer(sublinear_tf=True) makes.
WORDS = "words"
# The query (centroid) vector has every term of the given papers; the postings of its
# heaviest TOP_TERMS are walked (the rest adds little to the cosine and most of the work).
TOP_TERMS = 250
MAX_DF_SHARE = 0.3  # terms in more of the papers are not walked: weak signal, long postings
# ... for one paper (related): its vector has few terms, so fewer are left out.
MAX_DF_SHARE_ONE = 0.5
SMALL_LIBRARY = 50  # ... unless in at most this many (a small library: every term counts)
# Postings read per call; the heaviest terms are read first. Counted, never timed: the same
# library gives the same list whatever the machine's load (a time budget cut the walk at
# different terms on a busy machine, and best-first triage and "like these" got worse under
# load). A whole call at 50k: ~85 ms CPU.
POSTINGS_BUDGET = 12_000
# Terms of one paper only are left out of every vector (as min_df=2 would): they match
# nothing, and in the norm they only push down papers with rare words.
MIN_DF = 2
VECTOR_MAX_DF = 1.0  # share of papers above which a term leaves the vectors (1: none, as sklearn)
# Candidates given their exact cosine (the rest keep the approximate one): RESCORE_FACTOR
# x the limit, within these bounds.
RESCORE_FACTOR = 3
RESCORE_MIN, RESCORE = 30, 200
# One paper's related list: each candidate of the exact head also scores its mean cosine to
# the paper's NEIGHBOURS nearest papers (x NEIGHBOUR_WEIGHT): what the paper's closest
# neighbours agree on is more often on the same subject than what one abstract's words pick.
# Keyword-labelled pools (ICLR, IJCAI, COLM, CoRL, 10 pools; related = shares a keyword):
# P@10 +0.017 over the plain cosine on average, better in every pool; 3 to 10 neighbours and
# weights 0.6 to 1 all give the same, and re-ranking the head of 30 gets it all.
NEIGHBOURS = 5
NEIGHBOUR_WEIGHT = 1.0
# A set of papers: each term of the centroid weighs its mean times (the share of the papers
# that have it) ** CONSENSUS: the words the papers share say what the set is about, a word of
# one paper is that paper's. Keyword-labelled pools (5 papers of a keyword, P@10, 10 pools,
# 3 seeds): 0.281 against 0.273 for the plain centroid, better in 9 of 10; 1 is as good on
# average but uneven, 2 is worse.
CONSENSUS = 0.5
CONTRAST = 1.0

_SCORE = itemgetter(1)
_LOGTF = [0.0] + [1 + math.log(tf) for tf in range(1, 4096)]
_lock = threading.Lock()


def _logtfs(tfs: Iterable[float]) -> array:
    """1 + ln tf of each term frequency."""
    counts: list[int] = list(map(int, tfs))
    try:
        return array("f", map(_LOGTF.__getitem__, counts))
    except IndexError:  # a term thousands of times in one paper
        return array("f", (1 + math.log(tf) for tf in counts))


class _Weights(dict):
    """Term -> its idf in the vectors; 0 for terms left out of them (df < MIN_DF or too common)."""

    def __init__(self, stats: _Stats) -> None:
        super().__init__()
        self.stats = stats

    def __missing__(self, term: str) -> float:
        st = self.stats
        df = st.df(term)
        w = math.log((1 + st.n) / (1 + df)) + 1 if MIN_DF <= df <= st.n * VECTOR_MAX_DF else 0.0
        if len(self) < 2_000_000:
            self[term] = w
        return w


class _Stats:
    """Document frequencies and idf of one index generation, from its segments' whole
    lexicons (read once per segment: segments never change)."""

    def __init__(self, reader) -> None:
        self.n = max(1, reader.doc_count_all())
        self._tables = [segment_lexicon(leaf, WORDS) for leaf, _ in reader.leaf_readers()]
        self._df: dict[str, int] = {}
        self.weight = _Weights(self)

    def df(self, term: str) -> int:
        v = self._df.get(term)
        if v is None:
            v = sum(t[term][0] for t in self._tables if term in t)
            if len(self._df) < 2_000_000:
                self._df[term] = v
        return v

    def idf(self, term: str) -> float:
        return math.log((1 + self.n) / (1 + self.df(term))) + 1


# segment ids of a reader -> its stats.
_stats: dict[tuple[str, ...], _Stats] = {}


def _stats_for(reader) -> _Stats:
    key = tuple(leaf.segment().segment_id() for leaf, _ in reader.leaf_readers())
    hit = _stats.get(key)
    if hit is None:
        hit = _Stats(reader)
        with _lock:
            if len(_stats) > 8:
                _stats.clear()
            _stats[key] = hit
    return hit


def warm(searcher) -> None:
    """Read what the first related list needs (the words' lexicons and lengths), off the GUI
    thread."""
    reader = searcher.reader()
    if WORDS in reader.schema and reader.field_length(WORDS):  # (an empty index has no segment)
        _stats_for(reader)
        for leaf, _ in reader.leaf_readers():
            _inv_lengths(leaf)


def _text_tf(text: str) -> tuple[tuple[str, ...], array]:
    """A text's distinct words and their 1 + ln tf."""
    tf = Counter(similarity_words(text))
    return tuple(tf), _logtfs(tf.values())


def _unit(terms: tuple[str, ...], logtf: array, st: _Stats) -> dict[str, float]:
    ws = list(map(mul, logtf, map(st.weight.__getitem__, terms)))
    norm = math.sqrt(sum(map(mul, ws, ws))) or 1.0
    return {t: w / norm for t, w in zip(terms, ws, strict=True) if w}


def query_vector(texts: Iterable[str], st: _Stats, *, consensus: float = 0.0,
                 contrast: float = 0.0) -> dict[str, float]:
    """The mean of the texts' normalised tf-idf vectors, each term's weight times the share
    of the texts that have it to the power `consensus`, less `contrast` x the library's mean
    vector (terms left at or below 0 are dropped).

    The library's mean weight of a term is estimated as c x idf x df / n, where c, the mean
    (1 + ln tf) / norm of a term in a paper, is measured on the texts themselves."""
    out: dict[str, float] = {}
    have: Counter[str] = Counter()
    per_idf = 0.0
    k = 0
    for text in texts:
        k += 1
        unit = _unit(*_text_tf(text), st)
        have.update(unit.keys())  # counts the papers with each term
        for t, v in unit.items():
            out[t] = out.get(t, 0.0) + v
            per_idf += v / st.weight[t]
    if not k:
        return {}
    c = contrast * per_idf / max(1, sum(have.values())) / st.n
    vec = {t: v / k * (have[t] / k) ** consensus - c * st.weight[t] * st.df(t)
           for t, v in out.items()}
    return {t: v for t, v in vec.items() if v > 0}


def similar(searcher, texts: list[str], *, skip: set[int] = frozenset(),  # type: ignore[assignment]
            limit: int | None = 10, top_terms: int | None = None,
            max_postings: int | None = None) -> list[tuple[int, float]]:
    """Documents (searcher-wide numbers) by cosine to the centroid of `texts`, best first;
    `skip` are left out. Only documents sharing one of the walked terms are returned.

    Dot products come from the postings of the heaviest terms; the best RESCORE by an
    approximate norm (the square root of the length) then get their exact norm from their
    stored text (and, for one paper, the exact cosine and the neighbours' consensus)."""
    top_terms = TOP_TERMS if top_terms is None else top_terms
    max_postings = POSTINGS_BUDGET if max_postings is None else max_postings
    reader = searcher.reader()
    st = _stats_for(reader)
    many = len(texts) > 1
    qvec = query_vector(texts, st, consensus=CONSENSUS if many else 0.0,
                        contrast=CONTRAST if many else 0.0)
    cap = max(SMALL_LIBRARY, (MAX_DF_SHARE_ONE if len(texts) == 1 else MAX_DF_SHARE) * st.n)
    # Terms in more than `cap` papers leave the query (a corpus-specific stop list: with them
    # "like tag X" finds fewer papers with the tag). Their share of a cosine is at most
    # their query weight x idf: heaviest first.
    qvec = {t: w for t, w in qvec.items() if st.df(t) <= cap}
    idf = st.weight
    terms = [(t, w * idf[t]) for t, w in qvec.items()]
    terms = heapq.nlargest(top_terms, terms, key=_SCORE)
    leaves = list(reader.leaf_readers())
    # Dot products with the walked terms, per segment (segment document numbers).
    partial: list[dict[int, float]] = [{} for _ in leaves]
    read = 0
    for t, qw in terms:
        df = st.df(t)
        if read and read + df > max_postings:
            continue  # a rarer term may still fit
        read += df
        for (leaf, _), scores in zip(leaves, partial, strict=True):
            found = _weighted_postings(leaf, t)
            if found is None:
                continue
            get = scores.get
            for d, x in zip(found[0], map(qw.__mul__, found[1]), strict=True):
                scores[d] = get(d, 0.0) + x
    for d in skip:
        for (leaf, base), scores in zip(leaves, partial, strict=True):
            if base <= d < base + leaf.doc_count_all():
                scores.pop(d - base, None)
                break
    # Approximate cosine: dot / sqrt(length) (0 for deleted documents); each segment's
    # best `rescore` (and ties) picked at C speed.
    rescore = min(RESCORE, max(RESCORE_MIN, RESCORE_FACTOR * (limit or RESCORE)))
    head: list[tuple[float, int]] = []
    approx: list[tuple[list[float], list[int], int]] = []
    for (leaf, base), scores in zip(leaves, partial, strict=True):
        if not scores:
            continue
        local = list(scores)
        vals = list(map(mul, scores.values(), _gather(_inv_lengths(leaf), local)))
        approx.append((vals, local, base))
        if rescore < len(vals):
            kth = heapq.nlargest(rescore, vals)[-1]
            keep = list(map(kth.__le__, vals))
            head += zip(compress(vals, keep), map(base.__add__, compress(local, keep)), strict=True)
        else:
            head += zip(vals, map(base.__add__, local), strict=True)
    head.sort(reverse=True)
    del head[rescore:]
    # One paper: the exact cosine, plus the neighbours' consensus (_with_neighbours). A set
    # of papers (its centroid weighted by consensus, contrasted): the dot over the walked terms
    # with the exact norm: a tag's papers share rare terms, and the full dot finds fewer
    # of them (ICLR 2018 stems, 5 seeds: P@10 0.247 against 0.274).
    exact = _exact_head(searcher, leaves, head, len(texts) == 1, qvec, st, partial)
    if limit is not None and limit <= len(exact):
        return exact[:limit]
    placed = {d for d, _ in exact}
    low = min((sc for _, sc in exact), default=0.0)
    # The rest by the approximate cosine, below the exact head (scaled under its lowest).
    rest = sorted(((sc, base + d) for vals, local, base in approx
                   for sc, d in zip(vals, local, strict=True) if sc and base + d not in placed),
                  reverse=True)
    top_rest = rest[0][0] if rest else 1.0
    out = exact + [(d, low * sc / top_rest) for sc, d in rest]
    return out[:limit]


def _exact_head(searcher, leaves, head: list[tuple[float, int]], whole: bool, qvec: dict[str, float],
                st: _Stats, partial: list[dict[int, float]]) -> list[tuple[int, float]]:
    """The head's documents with their exact scores, best first (see `similar`)."""
    exact = []
    units: dict[int, dict[str, float]] = {}
    read = _read_texts(searcher, leaves, head)
    for sc, d in head:
        if not sc:
            break  # deleted
        i, dn = _locate(leaves, d)
        if whole:
            units[d] = unit = _unit(*_doc_tf(searcher, leaves[i][0], d, dn, read), st)
            exact.append((d, _dot(qvec, unit)))
        else:
            exact.append((d, _cosine(searcher, leaves[i][0], d, dn, st, partial[i][dn], read)))
    if whole:
        exact = _with_neighbours(exact, units)
    exact.sort(key=_SCORE, reverse=True)
    return exact


# (segment id, term) -> (document numbers, 1 + ln tf): segments never change. Bounded by the
# postings held.
_weighted: OrderedDict[tuple[str, str], tuple[array, array] | None] = OrderedDict()
_weighted_held = 0
WEIGHTED_POSTINGS = 3_000_000  # ~24 MB


def _weighted_postings(leaf, term: str) -> tuple[array, array] | None:
    global _weighted_held
    key = (leaf.segment().segment_id(), term)
    with _lock:
        if key in _weighted:
            _weighted.move_to_end(key)
            return _weighted[key]
    entry = segment_lexicon(leaf, WORDS).get(term)
    value: tuple[array, array] | None = None
    if entry:
        ids, tfs = postings_at(leaf, WORDS, term, entry)
        value = (array("I", ids), _logtfs(tfs))
    with _lock:
        if key not in _weighted:
            _weighted[key] = value
            _weighted_held += len(value[0]) if value else 1
            while _weighted_held > WEIGHTED_POSTINGS and _weighted:
                _, old = _weighted.popitem(last=False)
                _weighted_held -= len(old[0]) if old else 1
    return value


def _inv_lengths(leaf) -> list[float]:
    """1 / sqrt(length in words) per document of a segment; 0 for deleted ones."""
    seg = leaf.segment()
    key = (seg.segment_id(), seg.deleted_count() if leaf.has_deletions() else 0)
    hit = _inv.get(key)
    if hit is not None:
        return hit
    table = [1 / math.sqrt(b or 1) for b in (byte_length(i) for i in range(256))]
    inv = [table[b] for b in _segment_lengths(leaf, WORDS)]
    if leaf.has_deletions():
        for d in seg.deleted_docs():
            inv[d] = 0.0
    with _lock:
        if len(_inv) > 512:
            _inv.clear()
        _inv[key] = inv
    return inv


_inv: dict[tuple[str, int], list[float]] = {}


def _gather(values: list[float], at: list[int]) -> Iterable[float]:
    """values[i] for each i in `at`, at C speed."""
    return itemgetter(*at)(values) if len(at) > 1 else [values[i] for i in at]


def _locate(leaves, docnum: int) -> tuple[int, int]:
    """(segment index, segment document number) of a searcher-wide document number."""
    for i, (leaf, base) in enumerate(leaves):
        if base <= docnum < base + leaf.doc_count_all():
            return i, docnum - base
    raise IndexError(docnum)


def _dot(a: dict[str, float], b: dict[str, float]) -> float:
    if len(b) < len(a):
        a, b = b, a
    return sum(map(mul, a.values(), map(b.get, a, repeat(0.0))))


def _with_neighbours(exact: list[tuple[int, float]],
                     units: dict[int, dict[str, float]]) -> list[tuple[int, float]]:
    """Each (document, cosine) plus NEIGHBOUR_WEIGHT x its mean cosine to the NEIGHBOURS
    best of them (itself counted as 0)."""
    top = [units[d] for d, _ in heapq.nlargest(NEIGHBOURS, exact, key=_SCORE)]
    if not top:
        return exact
    w = NEIGHBOUR_WEIGHT / len(top)
    return [(d, c + w * sum(_dot(n, units[d]) for n in top if n is not units[d]))
            for d, c in exact]


def _read_texts(searcher, leaves, head: list[tuple[float, int]]) -> dict[int, tuple[str, str]]:
    """The titles and abstracts of the head's documents not memoised yet, in one read."""
    missing = []
    for sc, d in head:
        if not sc:
            break
        i, dn = _locate(leaves, d)
        if (leaves[i][0].segment().segment_id(), dn) not in _tfs:
            missing.append(d)
    return doc_texts(searcher, missing) if missing else {}


def _doc_tf(searcher, leaf, docnum: int, local: int,
            read: dict[int, tuple[str, str]] | None = None) -> tuple[tuple[str, ...], array]:
    """A document's words and their 1 + ln tf, from its title and abstract (`read`, or read
    now: texts.py; memoised per segment and document)."""
    key = (leaf.segment().segment_id(), local)
    hit = _tfs.get(key)
    if hit is None:
        title, abstract = read[docnum] if read and docnum in read else doc_texts(
            searcher, [docnum])[docnum]
        hit = _text_tf(f"{title} {abstract}")
        with _lock:
            if len(_tfs) > TFS_HELD:
                _tfs.clear()
            _tfs[key] = hit
    return hit


def _cosine(searcher, leaf, docnum: int, local: int, st: _Stats, dot: float,
            read: dict[int, tuple[str, str]] | None = None) -> float:
    """`dot` (a document's dot product with a query) over the document's exact norm."""
    terms, logtf = _doc_tf(searcher, leaf, docnum, local, read)
    ws = list(map(mul, logtf, map(st.weight.__getitem__, terms)))
    return dot / (math.sqrt(sum(map(mul, ws, ws))) or 1.0)


# (segment id, document number) -> its words and their 1 + ln tf.
_tfs: dict[tuple[str, int], tuple[tuple[str, ...], array]] = {}
TFS_HELD = 20_000
