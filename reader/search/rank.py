"""Ranked retrieval for plain-word queries: BM25 over the free fields, every word optional,
papers with more of the (rarer) words first; the last word may be a prefix (as you type)."""

from __future__ import annotations

import heapq
import math
import threading
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import islice
from operator import itemgetter
from typing import Any

from reader.search import typos
from reader.search.fields import BY_NAME, RANKED_FIELDS
from reader.search.schema import BIGRAM_SUFFIX, analyze, cached_stem, pair_bucket, similarity_words
from reader.search.segments import (
    byte_length,
    cached_lexicon,
    doc_frequency,
    length_bytes,
    postings,
    sorted_terms,
)
from reader.search.terms import Backstop

# K1 1.6 (not the textbook 1.2) and a pair bonus of half the pair's idf (not 1): +0.008
# known-item MRR@10 on five held-out samples of 1,000 titles, with dtitle (see fields.py).
K1 = 1.6
B = 0.75
# Coordination: a paper's BM25 score is multiplied by (share of the query's idf it covers)
# ** COORD, so papers with all the words come first unless a partial match is far better.
COORD = 1.0
COORD_BY_IDF = True  # the share of the query's idf a paper covers (else: of its words)
PAIR_WEIGHT = 0.5  # bonus for two query words next to each other (as a share of their idf)
# A word also scores its typed form in the unstemmed `words` (title and abstract), at that
# field's boost: the stem finds every form, the form a user typed ranks higher. Known-item
# MRR@10, six samples of 1,000 titles at 50k: +0.005 to +0.009 each (held-out seeds 3-6
# at boost 0.5: 0.838 -> 0.845 on average).
EXACT_FIELD = "words"
# A paper with a query word's stem in its title or abstract but none of the word's own forms
# (as typed, singular or plural) there scores that part at STEM_ONLY: stemming merges words
# of other meanings ("transformers" and "The Wasserstein Transform", "learners" and
# "learning"), so a paper with the word itself ranks above one sharing only its stem.
STEM_ONLY = 0.75  # known-item MRR@10 at 50k (200 held-out titles): 0.868 as at 1.0; 0.5: 0.861
_STEM_ONLY_FIELDS = frozenset({"title", "dtitle", "abstract"})  # what `words` holds (as written)
PREFIX_EXPANSIONS = 16  # completions of the unfinished word searched (the most frequent)
SHORT_PREFIX_EXPANSIONS = {1: 3, 2: 6}  # fewer for 1-2 letters: their words are the commonest
PREFIX_SCAN = 20_000  # terms per segment looked at to choose them (bounds "c")
# A word in more than 1/COMMON_DIVISOR of the papers only scores papers found by the rarer
# words (its postings are looked up, not walked): most of the work, little of the ranking.
COMMON_DIVISOR = 20
COMMON_MIN = 1000  # ... and in more than this many (small libraries: every word counts)
# The work of one query is counted in postings read, never timed, so its answer is the same
# on a quiet and on a loaded machine (a time budget cut different words under load: 300
# held-out titles at 50k found their paper at MRR@10 0.844 quiet and 0.753 at load 12).
# The rarest words are read first; a word whose postings would pass the budget is left out
# (with a note), a rarer one after it may still fit.
POSTINGS_BUDGET = 400_000
# While typing: a result is on screen for a keystroke or two, so the commonest words (which
# add the least) give way sooner to keep every keystroke quick; counted the same way.
TYPING_POSTINGS_BUDGET = 50_000
# From this many documents (deleted ones included) rank_arrays.rank computes the same numbers on
# numpy arrays: each (field, term)'s BM25 parts and each word's scores memoised per searcher
# (typing asks for the same words at every keystroke; a commit makes a new searcher), the sums
# in the same order, so every score and the order are this dict path's exactly
# (tests/search/test_rank_arrays.py). Below it, numpy is not even imported (a CLI search).
VECTOR_FROM = 20_000
MEMO_POSTINGS = 1_000_000  # postings held per searcher by each rank_arrays memo table (<= 16 MB each), oldest out first


@dataclass
class Ranking:
    """Matched documents (searcher-wide numbers) and scores; ordered lazily. Held as a dict
    (small indexes) or as two numpy arrays (`arrays`: the documents in the order they were
    first scored and their scores, the dict's items exactly), ordered the same way."""

    _scores: dict[int, float] | None
    stems: list[str] = field(default_factory=list)
    prefix: str | None = None
    expansions: list[str] = field(default_factory=list)
    note: str | None = None
    postings_read: int = 0  # the work done: postings read (bounded by the postings budget)
    stopped: bool = False  # the last-resort time limit fired (the note says so)
    arrays: tuple[Any, Any] | None = None
    postings_scored: int = 0  # postings whose BM25 part was computed (not memoised) by this query
    _order: list[int] | None = None
    _ranked: Any = None  # arrays: positions, best first

    @property
    def scores(self) -> dict[int, float]:
        if self._scores is None:
            self._scores = {}
            if self.arrays is not None:
                docs, vals = self.arrays
                self._scores = dict(zip(docs.tolist(), vals.tolist(), strict=True))
        return self._scores

    @property
    def total(self) -> int:
        """How many documents matched."""
        return len(self.arrays[0]) if self.arrays is not None else len(self.scores)

    def top(self, n: int | None) -> list[tuple[int, float]]:
        if self.arrays is not None:
            return self._pairs(self._top_positions(n))
        if n is None or n >= len(self.scores) // 4:
            return [(d, self.scores[d]) for d in self.order()[:n]]
        return heapq.nlargest(n, self.scores.items(), key=_SCORE)

    def order(self) -> list[int]:
        if self._order is None:
            if self.arrays is not None:
                self._order = self.arrays[0][self._positions()].tolist()
            else:
                # Stable: equal scores keep document order (older papers first).
                self._order = [d for d, _ in sorted(self.scores.items(), key=_SCORE, reverse=True)]
        return self._order

    def page(self, start: int, n: int) -> list[tuple[int, float]]:
        """(document, score) of places start..start+n in rank order."""
        if self.arrays is not None:
            return self._pairs(self._positions()[start:start + n])
        return [(d, self.scores[d]) for d in self.order()[start:start + n]]

    def _pairs(self, positions) -> list[tuple[int, float]]:
        docs, vals = self.arrays  # type: ignore[misc]
        return list(zip(docs[positions].tolist(), vals[positions].tolist(), strict=True))

    def _positions(self):
        """Every position best first; equal scores in the order first scored (as the dict's
        stable sort)."""
        if self._ranked is None:
            self._ranked = _np().argsort(-self.arrays[1], kind="stable")  # type: ignore[index]
        return self._ranked

    def _top_positions(self, n: int | None):
        """The first n of `_positions` without sorting them all: every score at or above the
        n-th best (ties at the cut included), in first-scored order, sorted stably."""
        vals = self.arrays[1]  # type: ignore[index]
        if n is None or n >= len(vals) // 4 or self._ranked is not None:
            return self._positions()[:n]
        np = _np()
        if n <= 0:
            return np.empty(0, dtype=np.intp)
        cut = np.partition(vals, len(vals) - n)[len(vals) - n]
        near = np.flatnonzero(vals >= cut)
        return near[np.argsort(-vals[near], kind="stable")][:n]


_SCORE = itemgetter(1)


# (segment id, field) -> the segment's length bytes; segments never change.
_lengths: dict[tuple[str, str], bytes] = {}
_lengths_lock = threading.Lock()


def _segment_lengths(leaf, fieldname: str) -> bytes:
    seg = leaf.segment()
    key = (seg.segment_id(), fieldname) if seg is not None else None
    if key is not None:
        hit = _lengths.get(key)
        if hit is not None:
            return hit
    lens = length_bytes(leaf, fieldname)
    if key is not None:
        with _lengths_lock:
            if len(_lengths) > 512:
                _lengths.clear()
            _lengths[key] = lens
    return lens


def _norms(reader, fieldname: str, n_docs: int) -> list[float]:
    """K1 * length normalisation for each of the 256 length bytes."""
    avg = (reader.field_length(fieldname) / n_docs) if n_docs else 1.0
    avg = avg or 1.0
    return [K1 * ((1 - B) + B * byte_length(b) / avg) for b in range(256)]



def _idf(df: int, n: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


# A segment's lexicon and its terms in order, for prefixes (a bisect); `warm` reads them off
# the GUI thread.
_sorted_terms = sorted_terms


def _postings(leaf, fieldname: str, term: str):
    """A term's postings in one segment, read in one piece when its lexicon is known."""
    lex = cached_lexicon(leaf, fieldname)
    if lex is None:
        return postings(leaf, fieldname, term)
    entry = lex.get(term)
    return postings(leaf, fieldname, term, entry) if entry else ((), ())


def warm_steps(fields: Iterable[str] = RANKED_FIELDS) -> list[tuple[str, str]]:
    """The steps of `warm`, each short: a field's lexicons, then each first letter's postings."""
    return [(f, letter) for f in fields for letter in ("", *"abcdefghijklmnopqrstuvwxyz")]


def warm(searcher, fieldname: str, letter: str) -> None:
    """One step of reading what the first keystrokes need (off the GUI thread): a field's
    lexicons and length bytes, or the postings of the words a first letter expands to
    (the longest lists, read cold several times slower)."""
    reader = searcher.reader()
    if fieldname not in reader.schema or not reader.field_length(fieldname):
        return
    leaves = [leaf for leaf, _ in reader.leaf_readers()]
    if not letter:
        for leaf in leaves:
            _sorted_terms(leaf, fieldname)
            _segment_lengths(leaf, fieldname)
        return
    for t in expand_prefix(reader, fieldname, letter, SHORT_PREFIX_EXPANSIONS[1]):
        for leaf in leaves:
            _postings(leaf, fieldname, t)


def expand_prefix(reader, fieldname: str, prefix: str, limit: int = PREFIX_EXPANSIONS) -> list[str]:
    """The `limit` most frequent terms starting with `prefix`, plus stems shorter than the
    typed prefix ("generati" -> "generat")."""
    leaves = [leaf for leaf, _ in reader.leaf_readers()]
    key = (tuple(leaf.segment().segment_id() for leaf in leaves), fieldname, prefix, limit)
    hit = _expansions.get(key)
    if hit is not None:
        return hit
    if fieldname not in reader.schema:
        return []
    totals: dict[str, int] = {}
    # Every word with the prefix sorts in [prefix, end): the prefix with its last letter's
    # successor (str order is code point order); the first PREFIX_SCAN of them per segment.
    end = prefix[:-1] + chr(ord(prefix[-1]) + 1) if prefix and prefix[-1] < "\U0010ffff" else None
    for leaf in leaves:
        terms, lex = _sorted_terms(leaf, fieldname)
        i = bisect_left(terms, prefix)
        if end is None:
            for t in islice(terms, i, i + PREFIX_SCAN):
                if not t.startswith(prefix):
                    break
                totals[t] = totals.get(t, 0) + lex[t][0]
            continue
        j = bisect_left(terms, end, i, min(len(terms), i + PREFIX_SCAN))
        dfs = _term_dfs(leaf, fieldname, terms, lex)
        if not totals:  # the first segment's words: each once
            totals = dict(zip(terms[i:j], dfs[i:j], strict=True))
            continue
        get = totals.get
        for t, df in zip(terms[i:j], dfs[i:j], strict=True):
            totals[t] = get(t, 0) + df
    best = heapq.nlargest(limit, totals, key=totals.__getitem__)
    field = reader.schema[fieldname]
    if getattr(field, "stemmed", False):  # the typed word whole: its stem may be much shorter
        st = cached_stem(prefix)
        if st not in best and doc_frequency(reader, fieldname, st):
            best.append(st)
    for n in range(len(prefix) - 1, max(3, len(prefix) - 4) - 1, -1):
        cut = prefix[:n]
        if cut not in best and doc_frequency(reader, fieldname, cut):
            best.append(cut)
    with _lengths_lock:
        if len(_expansions) > 4096:
            _expansions.clear()
        _expansions[key] = best
    return best


# (segment ids, field, prefix, limit) -> expansions: typing asks for the same ones again.
_expansions: dict[tuple, list[str]] = {}
# (segment id, field) -> the document frequency of each of its terms in sorted order.
_dfs: dict[tuple[str, str], list[int]] = {}


def _term_dfs(leaf, fieldname: str, terms: list[str], lex: dict[str, tuple[int, int, int]]) -> list[int]:
    """`sorted_terms`' document frequencies in the same order, memoised (segments never change)."""
    key = (leaf.segment().segment_id(), fieldname)
    dfs = _dfs.get(key)
    if dfs is None:
        dfs = [lex[t][0] for t in terms]
        with _lengths_lock:
            if len(_dfs) > 1024:
                _dfs.clear()
            _dfs[key] = dfs
    return dfs


def rank(searcher, words: list[str], *, prefix: str | None = None,
         allowed: set[int] | None = None, fields: Iterable[str] = RANKED_FIELDS,
         max_postings: int = POSTINGS_BUDGET, typo_words: int = typos.MAX_TYPO_WORDS,
         backstop: Backstop | None = None, frequency: Callable[[Any, str, str], int] | None = None,
         scorer: Callable[..., Ranking] | None = None) -> Ranking:
    """Score every document with at least one of `words` (raw query words, analysed here)
    or a completion of `prefix`; `allowed` limits the documents (filters, views).
    Words are read rarest first; those whose postings would pass `max_postings` are left
    out, and up to `typo_words` words are looked up as typos: counted work, so the answer
    never depends on the machine's load. `backstop`: the last-resort time limit (the
    search's), which says so in the note if it ever fires. `frequency` and `scorer`: rank_arrays'
    memoised frequencies and scoring on arrays (the same answer)."""
    backstop = backstop if backstop is not None else Backstop()
    reader = searcher.reader()
    n_all = max(1, reader.doc_count_all())
    stems = list(dict.fromkeys(analyze(" ".join(words))))
    fields = [f for f in fields if f in reader.schema and reader.field_length(f)]
    exact = EXACT_FIELD in reader.schema and bool(reader.field_length(EXACT_FIELD))
    qwords = _query_words(words, stems, fields, exact)
    # Typo'd finished words also match their nearest library words, weighted down.
    typo_weight = typos.expand(reader, qwords, words, fields, typo_words)
    if prefix and len(prefix) == 1 and stems:
        prefix = None  # "graph n": one letter adds little to the finished words, at a high cost
    expansions: list[str] = []
    if prefix:
        alts, expansions = _prefix_word(reader, prefix, fields)
        if alts:
            qwords.append(("*" + prefix, alts))
    infos = _rarest_first(reader, qwords, frequency or doc_frequency)
    scores: dict[int, float] = {}
    cover: dict[int, float] = {}
    matched: dict[str, dict[int, float]] = {}  # stem -> its documents
    total_idf = 0.0
    read = 0
    skipped: list[str] = []
    stopped = False
    leaves = list(reader.leaf_readers())
    if scorer is not None:
        return scorer(reader, leaves, infos, typo_weight, stems, fields, prefix, expansions, allowed,
                      max_postings, backstop)
    norms = {f: _norms(reader, f, n_all) for f in [*fields, *[EXACT_FIELD] * exact]}
    for df, label, alts, dfs in infos:
        if scores and read + df > max_postings:
            skipped.append(label.lstrip("*"))
            continue
        if scores and backstop.expired():
            stopped = True
            break
        idf = _idf(df, n_all)
        share = idf if COORD_BY_IDF else 1.0
        total_idf += share
        # Common words only score the papers the rarer words found.
        only = scores.keys() if scores and df * COMMON_DIVISOR > n_all and df > COMMON_MIN else None
        weights = {(f, t): w for (lab, f, t), w in typo_weight.items() if lab == label}
        per, n = _word_scores(leaves, alts, dfs, n_all, norms, label.startswith("*"), only, weights,
                              stem_only=STEM_ONLY)
        read += n
        if not label.startswith("*"):
            matched[label] = per
        sget = scores.get
        cget = cover.get
        for d, c in per.items():
            scores[d] = sget(d, 0.0) + c
            cover[d] = cget(d, 0.0) + share
    if len(infos) > 1 and total_idf > 0:
        _coordinate(scores, cover, total_idf)
    if len(stems) > 1:
        _pair_bonus(searcher, leaves, stems, fields, scores, matched, n_all)
    _drop_deleted(leaves, scores)
    if allowed is not None:
        scores = {d: s for d, s in scores.items() if d in allowed}
    notes = []
    if skipped:
        notes.append(f"Query too broad: left out {', '.join(skipped)} (work budget)")
    if stopped:
        notes.append(backstop.note)
    note = "; ".join(notes) or None
    return Ranking(scores, stems, prefix, expansions, note, postings_read=read, stopped=stopped,
                   postings_scored=read)


def _query_words(words: list[str], stems: list[str], fields: list[str],
                 exact: bool) -> list[tuple[str, list[tuple[str, str]]]]:
    """One "query word" per stem: a label and its (field, term) alternatives (each ranked
    field, and with `exact` the typed forms in the unstemmed words)."""
    qwords = [(st, [(f, st) for f in fields]) for st in stems]
    if not exact:
        return qwords
    forms: dict[str, list[str]] = {}
    for w in similarity_words(" ".join(words)):
        for st in analyze(w):
            forms.setdefault(st, []).append(w)
            # Its singular and plural (those with the same stem) are the same word.
            forms[st] += [v for v in number_forms(w) if analyze(v) == [st]]
    return [(st, alts + [(EXACT_FIELD, w) for w in dict.fromkeys(forms.get(st, ()))])
            for st, alts in qwords]


def number_forms(word: str) -> list[str]:
    """`word`'s likely singular and plural ("transformers" -> "transformer", "query" ->
    "queries"); the caller keeps those with the word's stem."""
    out = [word + "s", word + "es"]
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        out.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        out.append(word[:-1])
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        out.append(word[:-1] + "ies")
    return out


def _prefix_word(reader, prefix: str, fields: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """The unfinished word's alternatives (its completions in each field) and the completions."""
    alts: list[tuple[str, str]] = []
    expansions: list[str] = []
    limit = SHORT_PREFIX_EXPANSIONS.get(len(prefix), PREFIX_EXPANSIONS)
    for f in fields:
        for t in expand_prefix(reader, f, prefix, limit):
            alts.append((f, t))
            if t not in expansions:
                expansions.append(t)
    return alts, expansions


def _rarest_first(reader, qwords: list[tuple[str, list[tuple[str, str]]]],
                  df: Callable[[Any, str, str], int]) -> list[tuple]:
    """(df, label, alternatives, df of each) of the words found, rarest first (they decide
    the ranking; the commonest are cut first). A word's df: its most frequent alternative's."""
    infos = []
    for label, alts in qwords:
        dfs = {(f, t): df(reader, f, t) for f, t in alts}
        most = max(dfs.values(), default=0)
        if most:
            infos.append((most, label, alts, dfs))
    infos.sort(key=itemgetter(0))
    return infos


def _word_scores(leaves, alts: list[tuple[str, str]], dfs: dict[tuple[str, str], int], n_all: int,
                 norms: dict[str, list[float]], is_prefix: bool, only,
                 weights: dict[tuple[str, str], float] | None = None,
                 stem_only: float = 1.0) -> tuple[dict[int, float], int]:
    """One query word's BM25 contribution per document (its alternatives summed, or for a
    prefix the best one), and the postings read; `only`: score just these documents;
    `weights`: a share for some alternatives (a typo'd word's near words); `stem_only`: the
    share of the title and abstract part for documents without one of the word's own forms
    (its EXACT_FIELD alternatives) when it has any in the library."""
    per: dict[int, float] = {}
    read = 0
    exact = [a for a in alts if a[0] == EXACT_FIELD and dfs[a]] if stem_only != 1.0 and not is_prefix else []
    if exact:
        # The stemmed title and abstract first, then the rest (exact forms, other fields)
        # added on top once stem-only documents are damped.
        text = [a for a in alts if a[0] in _STEM_ONLY_FIELDS]
        per, read = _word_scores(leaves, text, dfs, n_all, norms, False, only, weights)
        rest, n = _word_scores(leaves, [a for a in alts if a[0] not in _STEM_ONLY_FIELDS], dfs,
                               n_all, norms, False, only, weights)
        own: set[int] = set()
        for f, t in exact:
            for leaf, base in leaves:
                own.update(d + base for d in _postings(leaf, f, t)[0])
        for d, c in per.items():
            if d not in own:
                per[d] = c * stem_only
        get = per.get
        for d, c in rest.items():
            per[d] = get(d, 0.0) + c
        return per, read + n
    for f, t in alts:
        if not dfs[(f, t)]:
            continue
        fw = BY_NAME[f].boost * _idf(dfs[(f, t)], n_all) * (K1 + 1) * (weights.get((f, t), 1.0) if weights else 1.0)
        norm = norms[f]
        for leaf, base in leaves:
            ids, tfs = _postings(leaf, f, t)
            if not ids:
                continue
            read += len(ids)
            lens = _segment_lengths(leaf, f)
            if only is not None:  # the intersection in C, then a short loop
                shifted = dict(zip(map(base.__add__, ids), tfs, strict=True))
                found = sorted(shifted.keys() & only)
                if not found:
                    continue
                tfs = [shifted[d] for d in found]
                ids = [d - base for d in found]
            get = per.get
            for d, tf, lb in zip(ids, tfs, map(lens.__getitem__, ids), strict=True):
                c = fw * tf / (tf + norm[lb])
                d += base
                old = get(d)
                if old is None:
                    per[d] = c
                elif is_prefix:
                    if c > old:
                        per[d] = c
                else:
                    per[d] = old + c
    return per, read


def _coordinate(scores: dict[int, float], cover: dict[int, float], total_idf: float) -> None:
    """Each score times (the share of the query's idf its paper covers) ** COORD."""
    inv = 1.0 / total_idf
    for d, sc in scores.items():
        scores[d] = sc * (cover[d] * inv) ** COORD


def _pair_bonus(searcher, leaves, stems: list[str], fields: list[str], scores: dict[int, float],
                matched: dict[str, dict[int, float]], n_all: int) -> None:
    """Two query words next to each other in a field add a bonus. The pair is read from the
    field's word-pair twin: its own term if frequent, else its hashed bucket, which only
    counts in papers having both words (so rebuilt and updated papers score alike)."""
    reader = searcher.reader()
    for a, b in zip(stems, stems[1:], strict=False):
        both_a, both_b = matched.get(a), matched.get(b)
        if not both_a or not both_b:
            continue
        pair = f"{a} {b}"
        for f in fields:
            bif = f + BIGRAM_SUFFIX
            if bif not in reader.schema:
                continue
            bonus = PAIR_WEIGHT * BY_NAME[f].boost * (_idf(len(both_a), n_all)
                                                      + _idf(len(both_b), n_all)) / 2
            docs: set[int] = set()
            for term in (pair, pair_bucket(pair)):
                for leaf, base in leaves:
                    ids, _ = postings(leaf, bif, term)
                    docs.update(d + base for d in ids)
            for d in docs:
                if d in both_a and d in both_b and d in scores:
                    scores[d] += bonus


def _drop_deleted(leaves, scores: dict[int, float]) -> None:
    for leaf, base in leaves:
        if leaf.has_deletions():
            for d in leaf.segment().deleted_docs():
                scores.pop(d + base, None)


def _np():
    import numpy  # only for big indexes (rank_arrays.py): a CLI search of a small library never loads it

    return numpy
