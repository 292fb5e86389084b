"""Expanding and phrase terms for Whoosh: prefixes, fuzzy words and ranges bounded by a budget, phrases on word pairs."""

from __future__ import annotations

import functools
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from whoosh import query as wq
from whoosh.matching import ListMatcher, NullMatcher
from whoosh.reading import TermNotFound

from reader.search.schema import BIGRAM_SUFFIX, FastText, analyze, pair_bucket

MAX_FUZZY_LENGTH = 40  # longer "words" get no distance-2 expansion (edit distance is quadratic)


MAX_EXPANSIONS = 4000  # completions of one `word*` / `word~` / range per field and segment
EXPANSION_SECONDS = 0.25  # time for one expanding term (per field and segment); then cut
QUERY_EXPANSION_SECONDS = 0.4  # time for all the expanding terms of one query together
_query_deadline = threading.local()


@contextmanager
def expansion_budget(seconds: float = QUERY_EXPANSION_SECONDS) -> Iterator[None]:
    """Share one deadline among every expanding term of the search run inside (a query with
    a range over five fields and many segments must not take five times the budget)."""
    _query_deadline.at = time.perf_counter() + seconds
    try:
        yield
    finally:
        _query_deadline.at = None
_ESTIMATE_TERMS = 50  # terms an expanding query looks at to estimate its size


class _UnionMatcherMixin:
    """Match the union of the expansions' postings with a constant score.

    Whoosh ORs one scored matcher per expansion ("tra*": thousands of terms, seconds);
    collecting the document numbers into one sorted list is 10-50x faster. Like Whoosh's
    default for these queries, every match scores the same (the other words rank them).
    Expansion is bounded by MAX_EXPANSIONS terms and EXPANSION_SECONDS; a cut sets
    `truncated` so the search can say so.
    """

    truncated = False
    fieldname: str
    boost: float

    if TYPE_CHECKING:  # provided by the Whoosh query class mixed with this one
        def _btexts(self, ixreader) -> Iterator[bytes]: ...

    def matcher(self, searcher, context=None):
        reader = searcher.reader()
        fieldname = self.fieldname
        docs: set[int] = set()
        deadline = time.perf_counter() + EXPANSION_SECONDS
        shared = getattr(_query_deadline, "at", None)
        if shared is not None:
            deadline = min(deadline, shared)
        for i, btext in enumerate(self._btexts(reader)):
            if i >= MAX_EXPANSIONS or (i & 15 == 15 and time.perf_counter() > deadline):
                self.truncated = True
                break
            try:
                docs.update(reader.postings(fieldname, btext).all_ids())
            except TermNotFound:  # the term is in another segment only
                continue
        if not docs:
            return NullMatcher()
        return ListMatcher(sorted(docs), all_weights=self.boost)

    def estimate_size(self, ixreader) -> int:
        # Whoosh sums every expansion's frequency (a full range scan) and asks again for each
        # sub-query it orders: a few expansions, counted once per reader, are enough.
        cached = getattr(self, "_estimate", None)
        if cached is not None and cached[0] is ixreader:
            return cached[1]
        total = 0
        for i, btext in enumerate(self._btexts(ixreader)):
            if i >= _ESTIMATE_TERMS:
                break
            total += ixreader.doc_frequency(self.fieldname, btext)
        self._estimate = (ixreader, total)
        return total


class FastRange(_UnionMatcherMixin, wq.TermRange):
    """`[a TO b]` and `abstract:>2019` over words, bounded like prefixes."""


class FastPrefix(_UnionMatcherMixin, wq.Prefix):
    """`word*` as one union matcher; in stemmed fields it also finds stems shorter than the
    typed prefix ("avoida*" finds "avoid", indexed for "avoidable")."""

    def _btexts(self, ixreader):
        yield from ixreader.expand_prefix(self.fieldname, self.text)
        field = ixreader.schema[self.fieldname]
        if isinstance(field, FastText) and field.stemmed:
            p = self.text
            for n in range(len(p) - 1, max(3, len(p) - 4) - 1, -1):
                if (self.fieldname, p[:n]) in ixreader:
                    yield p[:n].encode("utf-8")


class FastFuzzy(_UnionMatcherMixin, wq.FuzzyTerm):
    """`word~` as one union matcher; distance 1 is found by a regex over a cached word list."""

    original: str = ""  # the word as typed, before stemming

    def _btexts(self, ixreader):
        field = ixreader.schema[self.fieldname]
        if self.maxdist <= 1 and len(self.text) > self.prefixlength:
            for word in near_terms(ixreader, self.fieldname, self.text, self.prefixlength):
                yield word.encode("utf-8")
        elif len(self.text) <= self.prefixlength:  # "a~": nothing to vary; the word itself
            if (self.fieldname, self.text) in ixreader:
                yield field.to_bytes(self.text)
        elif len(self.text) <= MAX_FUZZY_LENGTH:
            for word in ixreader.terms_within(self.fieldname, self.text, self.maxdist,
                                              prefix=self.prefixlength):
                yield field.to_bytes(word)
        # A typo in a suffix changes the stem ("predictng" -> "predictng", not "predict"):
        # also accept stems that are the typed word cut by one to four letters.
        w = self.original
        if w and isinstance(field, FastText) and field.stemmed:
            for n in range(len(w) - 1, max(3, len(w) - 4) - 1, -1):
                if (self.fieldname, w[:n]) in ixreader:
                    yield w[:n].encode("utf-8")


# (segment id, field, prefix) -> "\n"-joined rests of the terms with that prefix (the
# prefix cut off). Segments never change,
# so entries stay valid; the oldest are dropped past _VOCAB_MAX.
_vocab: dict[tuple[str, str, str], str] = {}
_VOCAB_MAX = 2000
_vocab_lock = threading.Lock()


def _prefix_vocab(reader, fieldname: str, prefix: str) -> str:
    seg = reader.segment()
    key = (seg.segment_id(), fieldname, prefix) if seg is not None else None
    if key is not None:
        hit = _vocab.get(key)
        if hit is not None:
            return hit
    try:
        n = len(prefix.encode("utf-8"))
        text = "\n".join(b[n:].decode("utf-8") for b in reader.expand_prefix(fieldname, prefix))
    except TermNotFound:  # a field this segment lacks
        text = ""
    if key is not None:
        with _vocab_lock:
            if len(_vocab) >= _VOCAB_MAX:
                for k in list(_vocab)[: _VOCAB_MAX // 4]:
                    _vocab.pop(k, None)
            _vocab[key] = text
    return text


@functools.lru_cache(maxsize=256)
def _near_regex(rest: str) -> re.Pattern[str]:
    """Matches a line that is `rest` with at most one letter deleted, changed or inserted."""
    any_ = "[^\n]"
    e = re.escape
    alts = {e(rest)}
    for i in range(len(rest)):
        alts.add(e(rest[:i]) + e(rest[i + 1:]))
        alts.add(e(rest[:i]) + any_ + e(rest[i + 1:]))
    for i in range(len(rest) + 1):
        alts.add(e(rest[:i]) + any_ + e(rest[i:]))
    return re.compile("^(?:" + "|".join(sorted(alts)) + ")$", re.M)


def near_terms(reader, fieldname: str, text: str, prefixlength: int) -> list[str]:
    """Terms of `fieldname` within edit distance 1 of `text` sharing its first letters."""
    prefix = text[:prefixlength]
    if not reader.is_atomic():
        out: dict[str, None] = {}
        for leaf, _ in reader.leaf_readers():
            out.update(dict.fromkeys(near_terms(leaf, fieldname, text, prefixlength)))
        return list(out)
    vocab = _prefix_vocab(reader, fieldname, prefix)
    if not vocab:
        return []
    return [prefix + m for m in _near_regex(text[prefixlength:]).findall(vocab)]


class PairPhrase(wq.Phrase):
    """A phrase in a free-text field, matched on the field's word-pair twin (`<name>_bi`).

    A pair in at least PAIR_EXACT_MIN_DF documents of a bulk-built segment is its own term
    ("mode connect"), exact for two words: pairs are built from the same kept-word sequence
    that positions were counted on. Rarer pairs share a hashed bucket term; its documents
    are narrowed to those with all the words and then checked against the stored text, so
    the candidates to check are few. Phrases of 3+ words are the AND of their pairs, also
    checked. Fields that are not stored (method, authors, tags, notes, comments: short)
    are not checked; a false match there needs a hash collision and is accepted.
    """

    def _words_query(self) -> wq.Query:
        return wq.And([wq.Term(self.fieldname, w) for w in self.words], boost=self.boost)

    def estimate_size(self, ixreader) -> int:
        return self._words_query().estimate_size(ixreader)

    def estimate_min_size(self, ixreader) -> int:
        return self._words_query().estimate_min_size(ixreader)

    def matcher(self, searcher, context=None):
        schema = searcher.schema
        fieldname = self.fieldname
        bifield = fieldname + BIGRAM_SUFFIX
        if bifield not in schema:
            return super().matcher(searcher, context)
        reader = searcher.reader()
        words = self.words
        pairs = list(dict.fromkeys(f"{a} {b}" for a, b in zip(words, words[1:], strict=False)))
        exact = [p for p in pairs if (bifield, p) in reader]
        if len(pairs) == 1 and exact:
            # The common case: one exact term; a bucket may still hold the pair in documents
            # merged in from small segments.
            m = wq.Term(bifield, exact[0], boost=self.boost).matcher(searcher, context)
            bucket = pair_bucket(pairs[0])
            if (bifield, bucket) not in reader:
                return m
            extra = self._checked(searcher, context, _ids(reader, bifield, bucket))
            if not extra[0]:
                return m
            ids, scores = _collect(m)
            return _merged(ids, scores, *extra)
        cand: set[int] | None = None
        for p in pairs:
            docs = _ids(reader, bifield, p) if p in exact else set()
            if (bifield, pair_bucket(p)) in reader:
                docs |= _ids(reader, bifield, pair_bucket(p))
            cand = docs if cand is None else cand & docs
            if not cand:
                return NullMatcher()
        ids, scores = self._checked(searcher, context, cand or set())
        if not ids:
            return NullMatcher()
        return ListMatcher(ids, weights=scores)

    def _checked(self, searcher, context, cand: set[int]) -> tuple[list[int], list[float]]:
        """Candidates having all the words (scored on them) and, if stored, the phrase."""
        m = self._words_query().matcher(searcher, context)
        field = searcher.schema[self.fieldname]
        want = "\x00" + "\x00".join(self.words) + "\x00"
        stemmed = getattr(field, "stemmed", True)
        ids: list[int] = []
        scores: list[float] = []
        for dn in sorted(cand):
            if not m.is_active():
                break
            if m.id() < dn:
                m.skip_to(dn)
                if not m.is_active():
                    break
            if m.id() != dn:
                continue
            if field.stored:
                text = searcher.stored_fields(dn).get(self.fieldname) or ""
                if want not in "\x00" + "\x00".join(analyze(text, stemmed)) + "\x00":
                    continue
            ids.append(dn)
            scores.append(m.score())
        return ids, scores


def _ids(reader, fieldname: str, text: str) -> set[int]:
    try:
        return set(reader.postings(fieldname, text).all_ids())
    except TermNotFound:
        return set()


def _collect(m) -> tuple[list[int], list[float]]:
    ids: list[int] = []
    scores: list[float] = []
    while m.is_active():
        ids.append(m.id())
        scores.append(m.score())
        m.next()
    return ids, scores


def _merged(ids: list[int], scores: list[float], ids2: list[int], scores2: list[float]):
    best = dict(zip(ids2, scores2, strict=True))
    best.update(zip(ids, scores, strict=True))
    order = sorted(best)
    return ListMatcher(order, weights=[best[d] for d in order])
