"""Expanding and phrase terms for Whoosh: prefixes, fuzzy words and ranges bounded by a budget, phrases on word pairs."""

from __future__ import annotations

import functools
import re
import threading
import time
from bisect import bisect_left
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import compress, islice
from typing import TYPE_CHECKING

from whoosh import fields as wf
from whoosh import query as wq
from whoosh.matching import ListMatcher, NullMatcher
from whoosh.reading import TermNotFound

from reader.search.schema import BIGRAM_SUFFIX, FastText, analyze, pair_bucket
from reader.search.segments import postings_at, segment_lexicon, sorted_terms
from reader.search.texts import TEXT_FIELDS, doc_texts, field_text

MAX_FUZZY_LENGTH = 40  # longer "words" get no distance-2 expansion (edit distance is quadratic)


MAX_EXPANSIONS = 4000  # completions of one `word*` / `word~` / range per field and segment
# The work budget of one query, in units: TERM_UNITS per term looked at in a lexicon (a
# seek and read in the term file, ~10-25 us), one per document number read from postings
# (~0.1 us), DFA_UNITS per fuzzy automaton built and PHRASE_CHECK_UNITS per stored text
# analysed to check a phrase. Counted, never timed, so a query's answer is the same on a quiet
# and on a loaded machine: 600,000 units are ~0.15-0.2 s of CPU here (6,000 terms or 600k
# postings; benchmarks/fuzz_queries.py). Only the last-resort backstop below reads a clock.
WORK_LIMIT = 600_000
TERM_UNITS = 100
DFA_UNITS = 2_000  # a Levenshtein automaton of <= MAX_FUZZY_LENGTH letters, distance <= 2: ~10 ms
PHRASE_CHECK_UNITS = 200  # one stored abstract analysed (~50 us)
MAX_FUZZY_DISTANCE = 2  # Whoosh's automaton grows exponentially with the distance (5: seconds)
_ESTIMATE_TERMS = 50  # terms an expanding query looks at to estimate its size
# A last resort only, far above any query the counted budgets allow (those take under half a
# second of CPU): a search still running after this long (a machine so loaded it barely runs)
# stops where it is and says so in its note, the one case where an answer depends on load.
BACKSTOP_SECONDS = 30.0
BACKSTOP_NOTE = ("Stopped by the last-resort time limit ({:g} s; the machine is very busy): "
                 "the answer may be incomplete")
_CLOCK_EVERY = 256  # spends between two looks at the clock (the backstop is coarse)
_local = threading.local()


class Backstop:
    """The last-resort wall-clock limit of one search; `fired` once it has been passed."""

    def __init__(self, seconds: float = BACKSTOP_SECONDS) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.fired = False

    def expired(self) -> bool:
        if not self.fired and time.monotonic() > self.end:
            self.fired = True
        return self.fired

    @property
    def note(self) -> str:
        return BACKSTOP_NOTE.format(self.seconds)


class WorkBudget:
    """The work units one query may spend, shared by all its expanding parts (a query with a
    range over five fields and many segments must not take five times it)."""

    def __init__(self, limit: int | None = None, backstop: Backstop | None = None) -> None:
        self.limit = WORK_LIMIT if limit is None else limit
        self.used = 0
        self.cut = False  # some part was cut short
        self.backstop = backstop if backstop is not None else Backstop()
        self._calls = 0

    def spend(self, units: int) -> bool:
        """Take `units` if they fit; False, and the budget is cut, if not (or, the last
        resort, once the backstop's time has passed)."""
        if self.used + units > self.limit:
            self.cut = True
            return False
        self._calls += 1
        if (self._calls % _CLOCK_EVERY == 0 and self.backstop.expired()) or self.backstop.fired:
            self.cut = True
            return False
        self.used += units
        return True

    @property
    def left(self) -> int:
        return self.limit - self.used


def current_budget() -> WorkBudget:
    """The budget of the search running on this thread; outside one, a fresh budget per call."""
    budget = getattr(_local, "budget", None)
    return budget if budget is not None else WorkBudget()


def last_budget() -> WorkBudget | None:
    """The budget of the last search finished on this thread (for tests and benchmarks)."""
    return getattr(_local, "last", None)


@contextmanager
def expansion_budget(limit: int | None = None) -> Iterator[WorkBudget]:
    """One WorkBudget for every expanding term of the search run inside."""
    budget = WorkBudget(limit)
    _local.budget = budget
    try:
        yield budget
    finally:
        _local.budget = None
        _local.last = budget


class _UnionMatcherMixin:
    """Match the union of the expansions' postings with a constant score.

    Whoosh ORs one scored matcher per expansion ("tra*": thousands of terms, seconds);
    collecting the document numbers into one sorted list is 10-50x faster. Like Whoosh's
    default for these queries, every match scores the same (the other words rank them).
    Expansion is bounded by MAX_EXPANSIONS terms and the query's WorkBudget (terms looked
    at, postings read), both counted; a cut sets `truncated` so the search can say so. The expansions are listed once per segment reader: the size estimate and the
    matcher share them (building them is the expensive part).
    """

    truncated = False
    fieldname: str
    boost: float

    if TYPE_CHECKING:  # provided by the Whoosh query class mixed with this one
        def _btexts(self, ixreader) -> Iterator[bytes]: ...

    def _expansions(self, reader) -> list[bytes]:
        cache: dict[int, tuple[object, list[bytes]]] = self.__dict__.setdefault("_expanded", {})
        hit = cache.get(id(reader))
        if hit is not None and hit[0] is reader:
            return hit[1]
        budget = current_budget()
        out: list[bytes] = []
        for i, btext in enumerate(self._btexts(reader)):
            if i >= MAX_EXPANSIONS or not budget.spend(TERM_UNITS):
                self.truncated = True
                break
            out.append(btext)
        cache[id(reader)] = (reader, out)
        return out

    def matcher(self, searcher, context=None):
        reader = searcher.reader()
        fieldname = self.fieldname
        budget = current_budget()
        docs: set[int] = set()
        found = self.__dict__.setdefault("found", set())
        lex = _leaf_lexicon(reader, fieldname)
        for btext in self._expansions(reader):
            if lex is not None:  # one segment: its postings read raw from the lexicon's entry
                term = btext.decode("utf-8")
                entry = lex.get(term)
                if entry is None:
                    continue
                if not budget.spend(entry[0]):
                    self.truncated = True
                    break
                if entry[1] != -1:  # the fast path: the term's blocks (or inlined postings) read in one piece
                    docs.update(postings_at(reader, fieldname, term, entry)[0])
                else:
                    docs.update(reader.postings(fieldname, btext).all_ids())
                found.add(btext)
                continue
            n = reader.doc_frequency(fieldname, btext)
            if not n:
                continue  # the term is in another segment only
            if not budget.spend(n):
                self.truncated = True
                break
            try:
                docs.update(reader.postings(fieldname, btext).all_ids())
            except TermNotFound:  # the term is in another segment only
                continue
            found.add(btext)
        if lex is not None and docs and reader.has_deletions():
            docs.difference_update(reader.deleted_docs_set)
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
        for btext in self._expansions(ixreader)[:_ESTIMATE_TERMS]:
            total += ixreader.doc_frequency(self.fieldname, btext)
        self._estimate = (ixreader, total)
        return total


class FastRange(_UnionMatcherMixin, wq.TermRange):
    """`[a TO b]` and `abstract:>2019` over words, bounded like prefixes: in one segment its
    terms are a slice of the segment's sorted lexicon (a bisect, not a term-by-term walk
    through Whoosh's term file), their postings read raw."""

    def _btexts(self, ixreader):
        if _leaf_lexicon(ixreader, self.fieldname) is None:
            yield from super()._btexts(ixreader)
            return
        field = ixreader.schema[self.fieldname]
        try:
            start = "" if self.start is None else field.to_bytes(self.start).decode("utf-8")
            end = None if self.end is None else field.to_bytes(self.end).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return
        terms, _lex = sorted_terms(ixreader, self.fieldname)
        i = bisect_left(terms, start)
        if self.startexcl and i < len(terms) and terms[i] == start:
            i += 1
        for t in islice(terms, i, None):
            if end is not None and (t > end or (t == end and self.endexcl)):
                break
            yield t.encode("utf-8")


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


class FastWildcard(_UnionMatcherMixin, wq.Wildcard):
    """`ab*cd` as one union matcher: the terms of its literal prefix, each one looked at
    charged to the budget (without a prefix that is the whole word list, so it is cut)."""

    def _btexts(self, ixreader):
        budget = current_budget()
        pattern = re.compile(self._get_pattern())
        prefix = self._find_prefix(self.text)
        field = ixreader.schema[self.fieldname]
        if prefix:
            candidates = ixreader.expand_prefix(self.fieldname, prefix)
        else:
            candidates = ixreader.lexicon(self.fieldname)
        for btext in candidates:
            if not budget.spend(TERM_UNITS):
                self.truncated = True
                return
            if pattern.match(field.from_bytes(btext)):
                yield btext


class FastFuzzy(_UnionMatcherMixin, wq.FuzzyTerm):
    """`word~` as one union matcher; distance 1 is found by a regex over a cached word list,
    distance 2 by Whoosh's automaton (never more: its size grows exponentially)."""

    original: str = ""  # the word as typed, before stemming

    def _btexts(self, ixreader):
        field = ixreader.schema[self.fieldname]
        budget = current_budget()
        maxdist = min(self.maxdist, MAX_FUZZY_DISTANCE)
        if len(self.text) <= self.prefixlength:  # "a~": nothing to vary; the word itself
            if (self.fieldname, self.text) in ixreader:
                yield field.to_bytes(self.text)
        elif maxdist <= 1 or len(self.text) > MAX_FUZZY_LENGTH:
            words, cut = _near_terms(ixreader, self.fieldname, self.text, self.prefixlength, budget)
            self.truncated = self.truncated or cut
            for word in words:
                yield word.encode("utf-8")
        elif budget.spend(DFA_UNITS):
            for word in ixreader.terms_within(self.fieldname, self.text, maxdist,
                                              prefix=self.prefixlength):
                yield field.to_bytes(word)
        else:
            self.truncated = True
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


def _leaf_lexicon(reader, fieldname: str) -> dict[str, tuple[int, int, int]] | None:
    """The lexicon of a one-segment reader's text field (read once per segment), else None:
    a multi-segment reader, or a field that is not plain text (numbers: Whoosh's own way)."""
    if not reader.is_atomic() or fieldname not in reader.schema:
        return None
    seg = reader.segment() if hasattr(reader, "segment") else None
    if seg is None or isinstance(reader.schema[fieldname], wf.NUMERIC):
        return None
    return segment_lexicon(reader, fieldname)


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
    return _near_terms(reader, fieldname, text, prefixlength, WorkBudget())[0]


def _near_terms(reader, fieldname: str, text: str, prefixlength: int,
                budget: WorkBudget) -> tuple[list[str], bool]:
    """near_terms, each word of the prefix's list charged to `budget`; (terms, cut short)."""
    prefix = text[:prefixlength]
    if not reader.is_atomic():
        out: dict[str, None] = {}
        cut = False
        for leaf, _ in reader.leaf_readers():
            words, leaf_cut = _near_terms(leaf, fieldname, text, prefixlength, budget)
            out.update(dict.fromkeys(words))
            cut = cut or leaf_cut
        return list(out), cut
    vocab = _prefix_vocab(reader, fieldname, prefix)
    if not vocab:
        return [], False
    cut = False
    # The regex tries ~3 alternatives per letter on each line: longer words cost more per line.
    per_line = 1 + len(text) // 8
    lines = vocab.count("\n") + 1
    if not budget.spend(lines * per_line):
        cut = True
        vocab = _first_lines(vocab, budget.left // per_line)
        budget.spend(budget.left)
    return [prefix + m for m in _near_regex(text[prefixlength:]).findall(vocab)], cut


def _first_lines(text: str, n: int) -> str:
    """The first `n` lines of `text` (n steps, not a split of the whole text)."""
    end = -1
    for _ in range(n):
        end = text.find("\n", end + 1)
        if end < 0:
            return text
    return text[:max(end, 0)]


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

    truncated = False

    def _ids(self, reader, fieldname: str, text: str) -> set[int]:
        """The documents of one term, charged to the query's budget (none once it is spent)."""
        n = reader.doc_frequency(fieldname, text)
        if not n:
            return set()
        if not current_budget().spend(n):
            self.truncated = True
            return set()
        return set(reader.postings(fieldname, text).all_ids())

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
            extra = self._checked(searcher, context, self._ids(reader, bifield, bucket))
            if not extra[0]:
                return m
            ids, scores = _collect(m)
            return _merged(ids, scores, *extra)
        cand: set[int] | None = None
        for p in pairs:
            docs = self._ids(reader, bifield, p) if p in exact else set()
            if (bifield, pair_bucket(p)) in reader:
                docs |= self._ids(reader, bifield, pair_bucket(p))
            cand = docs if cand is None else cand & docs
            if not cand:
                return NullMatcher()
        ids, scores = self._checked(searcher, context, cand or set())
        if not ids:
            return NullMatcher()
        return ListMatcher(ids, weights=scores)

    def _checked(self, searcher, context, cand: set[int]) -> tuple[list[int], list[float]]:
        """Candidates having all the words (scored on them) and, if its text can be read back
        (stored, or from the library: texts.py), the phrase."""
        m = self._words_query().matcher(searcher, context)
        field = searcher.schema[self.fieldname]
        want = "\x00" + "\x00".join(self.words) + "\x00"
        stemmed = getattr(field, "stemmed", True)
        check = self.fieldname in TEXT_FIELDS
        ids: list[int] = []
        scores: list[float] = []
        budget = current_budget()
        for dn in sorted(cand):
            if not m.is_active():
                break
            if check and not budget.spend(PHRASE_CHECK_UNITS):
                self.truncated = True
                break
            if m.id() < dn:
                m.skip_to(dn)
                if not m.is_active():
                    break
            if m.id() != dn:
                continue
            ids.append(dn)
            scores.append(m.score())
        if not check or not ids:
            return ids, scores
        texts = doc_texts(searcher, ids)  # in one read for all the candidates
        keep = [want in "\x00" + "\x00".join(analyze(field_text(texts[dn], self.fieldname),
                                                         stemmed)) + "\x00" for dn in ids]
        return list(compress(ids, keep)), list(compress(scores, keep))


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
