"""Ranked search on numpy arrays for big indexes: `rank` is rank.rank with the same numbers
computed per document on arrays from rank.VECTOR_FROM documents (below it, rank.rank itself:
numpy is never imported for a small library's search).

Each (field, term)'s BM25 parts, each word's summed scores, word pairs' papers and document
frequencies are memoised per searcher (typing asks for the same words at every keystroke; a
commit makes a new searcher, so an index change starts afresh). The operations are the dict
path's in the same order per document, in float64, and the documents are kept in the order
it first scores them (the order of equal scores), so the answer is the same
(tests/search/test_rank_arrays.py, benchmarks/bench_typing.py on the 100k corpus). Settings
are read from rank.py at each query (one place to tune them, monkeypatches included).
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections import OrderedDict
from typing import Any

from reader.search import rank as rk
from reader.search.fields import BY_NAME
from reader.search.schema import BIGRAM_SUFFIX, pair_bucket
from reader.search.segments import doc_frequency, postings
from reader.search.terms import Backstop

_np = rk._np


def rank(searcher, words: list[str], **kw: Any) -> rk.Ranking:
    """rank.rank (same arguments, same answer), on arrays for an index of
    rank.VECTOR_FROM documents or more."""
    n_all = max(1, searcher.reader().doc_count_all())
    if n_all < rk.VECTOR_FROM:
        return rk.rank(searcher, words, **kw)
    memo = _memo(searcher, n_all)
    return rk.rank(searcher, words, frequency=memo.df, scorer=functools.partial(_rank_arrays, memo), **kw)


class _Memo:
    """One searcher's memo for the array path: each (field, term, typo share)'s BM25 parts
    (document numbers, scores, postings read), each word's summed scores and the papers
    with each word pair (`_pair_bonus_arrays`). Valid while
    the searcher lives: a commit makes a new searcher, so any index change starts afresh.
    Each table is bounded by the postings it holds, the least recently used out first."""

    def __init__(self, n_all: int) -> None:
        self.n_all = n_all
        self.lock = threading.Lock()
        self.tables: dict[str, OrderedDict[tuple, tuple]] = {t: OrderedDict() for t in ("alt", "word", "pair")}
        self.held = dict.fromkeys(self.tables, 0)
        self.norms: dict[str, Any] = {}
        self.dfs: dict[tuple[str, str], int] = {}

    def get(self, table: str, key: tuple) -> tuple | None:
        with self.lock:
            hit = self.tables[table].get(key)
            if hit is not None:
                self.tables[table].move_to_end(key)
            return hit

    def put(self, table: str, key: tuple, value: tuple) -> None:
        for a in value:
            if hasattr(a, "flags"):
                a.flags.writeable = False  # shared by later queries: never changed in place
        with self.lock:
            held = self.tables[table]
            if key in held:
                return
            held[key] = value
            self.held[table] += len(value[0])
            while self.held[table] > rk.MEMO_POSTINGS and len(held) > 1:
                _, old = held.popitem(last=False)
                self.held[table] -= len(old[0])

    def df(self, reader, fieldname: str, term: str) -> int:
        """`doc_frequency`, memoised (a query asks for ~30 at each keystroke)."""
        key = (fieldname, term)
        n = self.dfs.get(key)
        if n is None:
            n = doc_frequency(reader, fieldname, term)
            if len(self.dfs) > 100_000:
                self.dfs.clear()
            self.dfs[key] = n
        return n

    def norm(self, reader, fieldname: str):
        """`rank._norms` of a field as an array (the same numbers)."""
        arr = self.norms.get(fieldname)
        if arr is None:
            arr = self.norms[fieldname] = _np().array(rk._norms(reader, fieldname, self.n_all), dtype=float)
        return arr


_memos: weakref.WeakKeyDictionary[Any, _Memo] = weakref.WeakKeyDictionary()


def _memo(searcher, n_all: int) -> _Memo:
    with rk._lengths_lock:
        memo = _memos.get(searcher)
        if memo is None or memo.n_all != n_all:
            memo = _memos[searcher] = _Memo(n_all)
    return memo


def _id_array(ids):
    """Document numbers (an array('I') of the postings memo, or a list) as int64."""
    return _np().asarray(ids, dtype="int64")


def _alt_parts(memo: _Memo, reader, leaves, f: str, t: str, df: int,
               share: float) -> tuple[Any, Any, int, int]:
    """One (field, term)'s BM25 part in every document it is in (global document numbers in
    posting order, segment by segment), the postings read and those scored now (0: memoised).
    Computed as `_word_scores` does, in float64: fw * tf / (tf + norm[length byte])."""
    key = (f, t, share)
    hit = memo.get("alt", key)
    if hit is not None:
        return hit[0], hit[1], hit[2], 0
    np = _np()
    fw = BY_NAME[f].boost * rk._idf(df, memo.n_all) * (rk.K1 + 1) * share
    norm = memo.norm(reader, f)
    docs, parts = [], []
    read = 0
    for leaf, base in leaves:
        ids, tfs = rk._postings(leaf, f, t)
        if not len(ids):
            continue
        read += len(ids)
        ida = _id_array(ids)
        tf = np.asarray(tfs, dtype=np.float64)
        lens = np.frombuffer(rk._segment_lengths(leaf, f), dtype=np.uint8)
        parts.append(fw * tf / (tf + norm[lens[ida]]))
        docs.append(ida + base)
    value = ((np.concatenate(docs), np.concatenate(parts)) if docs
             else (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)))
    memo.put("alt", key, (*value, read))
    return value[0], value[1], read, read


def _word_arrays(memo: _Memo, reader, leaves, alts: list[tuple[str, str]],
                 dfs: dict[tuple[str, str], int], is_prefix: bool, only,
                 weights: dict[tuple[str, str], float] | None = None,
                 stem_only: float = 1.0) -> tuple[Any, Any, int, int]:
    """`_word_scores` on arrays: (documents in the order the dict would hold them, their
    scores, postings read, postings scored now); `only`: a mask of the documents to score.
    A word's scores over the whole library are memoised (typing repeats its finished words)."""
    key = None
    if only is None:
        shares = tuple(weights.get(a, 1.0) for a in alts) if weights else None
        key = (tuple(alts), shares, is_prefix, stem_only)
        hit = memo.get("word", key)
        if hit is not None:
            return hit[0], hit[1], hit[2], 0
    np = _np()
    n_all = memo.n_all
    exact = [a for a in alts if a[0] == rk.EXACT_FIELD and dfs[a]] if stem_only != 1.0 and not is_prefix else []
    if exact:
        text = [a for a in alts if a[0] in rk._STEM_ONLY_FIELDS]
        rest = [a for a in alts if a[0] not in rk._STEM_ONLY_FIELDS]
        docs, vals, read, scored = _word_arrays(memo, reader, leaves, text, dfs, False, only, weights)
        rdocs, rvals, n, m = _word_arrays(memo, reader, leaves, rest, dfs, False, only, weights)
        own = np.zeros(n_all, dtype=bool)
        for f, t in exact:
            odocs, _, _, k = _alt_parts(memo, reader, leaves, f, t, dfs[(f, t)],
                                        weights.get((f, t), 1.0) if weights else 1.0)
            scored += k
            own[odocs] = True
        acc = np.zeros(n_all, dtype=np.float64)
        acc[docs] = np.where(own[docs], vals, vals * stem_only)
        seen = np.zeros(n_all, dtype=bool)
        seen[docs] = True
        acc[rdocs] += rvals
        docs = np.concatenate((docs, rdocs[~seen[rdocs]]))
        out = (docs, acc[docs], read + n, scored + m)
    else:
        acc = np.full(n_all, -np.inf) if is_prefix else np.zeros(n_all, dtype=np.float64)
        seen = np.zeros(n_all, dtype=bool)
        order = []
        read = scored = 0
        for f, t in alts:
            if not dfs[(f, t)]:
                continue
            d, c, n, m = _alt_parts(memo, reader, leaves, f, t, dfs[(f, t)],
                                    weights.get((f, t), 1.0) if weights else 1.0)
            read += n
            scored += m
            if only is not None:
                keep = only[d]
                d, c = d[keep], c[keep]
            if not len(d):
                continue
            if is_prefix:  # the best completion (the dict keeps the first of equal ones: same value)
                acc[d] = np.maximum(acc[d], c)
            else:  # 0.0 + c is c: the dict's first value
                acc[d] += c
            new = d[~seen[d]]
            seen[new] = True
            order.append(new)
        docs = np.concatenate(order) if order else np.empty(0, dtype=np.int64)
        out = (docs, acc[docs], read, scored)
    if key is not None:
        memo.put("word", key, out)
    return out


def _rank_arrays(memo: _Memo, reader, leaves, infos: list[tuple],
                 typo_weight: dict[tuple[str, str, str], float], stems: list[str], fields: list[str],
                 prefix: str | None, expansions: list[str], allowed: set[int] | None,
                 max_postings: int, backstop: Backstop) -> rk.Ranking:
    """`rank`'s loop, coordination, pair bonus and filters on arrays indexed by document:
    the same operations on the same float64 values in the same order per document, and the
    documents kept in the order the dict path first scores them (its ties' order)."""
    np = _np()
    n_all = memo.n_all
    scores = np.zeros(n_all, dtype=np.float64)
    cover = np.zeros(n_all, dtype=np.float64)
    scored_mask = np.zeros(n_all, dtype=bool)
    order: list[Any] = []
    matched: dict[str, Any] = {}
    any_scored = False
    total_idf = 0.0
    read = work = 0
    skipped: list[str] = []
    stopped = False
    for df, label, alts, dfs in infos:
        if any_scored and read + df > max_postings:
            skipped.append(label.lstrip("*"))
            continue
        if any_scored and backstop.expired():
            stopped = True
            break
        idf = rk._idf(df, n_all)
        share = idf if rk.COORD_BY_IDF else 1.0
        total_idf += share
        only = scored_mask if any_scored and df * rk.COMMON_DIVISOR > n_all and df > rk.COMMON_MIN else None
        weights = {(f, t): w for (lab, f, t), w in typo_weight.items() if lab == label}
        docs, vals, n, m = _word_arrays(memo, reader, leaves, alts, dfs, label.startswith("*"),
                                        only, weights, stem_only=rk.STEM_ONLY)
        read += n
        work += m
        if not label.startswith("*"):
            matched[label] = docs
        scores[docs] += vals
        cover[docs] += share
        new = docs[~scored_mask[docs]]
        scored_mask[new] = True
        order.append(new)
        any_scored = any_scored or len(docs) > 0
    every = np.concatenate(order) if order else np.empty(0, dtype=np.int64)
    if len(infos) > 1 and total_idf > 0:
        inv = 1.0 / total_idf
        if rk.COORD == 1.0:  # x ** 1.0 is x
            scores[every] = scores[every] * (cover[every] * inv)
        else:
            scores[every] = [sc * (cv * inv) ** rk.COORD
                             for sc, cv in zip(scores[every].tolist(), cover[every].tolist(), strict=True)]
    if len(stems) > 1:
        _pair_bonus_arrays(memo, reader.schema, leaves, stems, fields, scores, scored_mask, matched)
    for leaf, base in leaves:
        if leaf.has_deletions():
            gone = np.fromiter(leaf.segment().deleted_docs(), dtype=np.int64) + base
            scored_mask[gone[gone < n_all]] = False
    if allowed is not None:
        keep = np.zeros(n_all, dtype=bool)
        if len(allowed) <= len(every):
            got = np.fromiter(allowed, dtype=np.int64, count=len(allowed))
            keep[got[(got >= 0) & (got < n_all)]] = True
        else:
            keep[every] = np.fromiter((d in allowed for d in every.tolist()), dtype=bool, count=len(every))
        scored_mask &= keep
    docs = every[scored_mask[every]]
    notes = []
    if skipped:
        notes.append(f"Query too broad: left out {', '.join(skipped)} (work budget)")
    if stopped:
        notes.append(backstop.note)
    note = "; ".join(notes) or None
    return rk.Ranking(None, stems, prefix, expansions, note, postings_read=read, stopped=stopped,
                      arrays=(docs, scores[docs]), postings_scored=work)


def _pair_bonus_arrays(memo: _Memo, schema, leaves, stems: list[str], fields: list[str], scores,
                       scored_mask, matched: dict[str, Any]) -> None:
    """`_pair_bonus` on arrays: the same bonus added once per field to each paper that has
    the pair and both words."""
    np = _np()
    n_all = memo.n_all
    for a, b in zip(stems, stems[1:], strict=False):
        both_a, both_b = matched.get(a), matched.get(b)
        if both_a is None or both_b is None or not len(both_a) or not len(both_b):
            continue
        has_both = np.zeros(n_all, dtype=bool)
        has_both[both_a] = True
        in_b = np.zeros(n_all, dtype=bool)
        in_b[both_b] = True
        has_both &= in_b & scored_mask
        pair = f"{a} {b}"
        for f in fields:
            bif = f + BIGRAM_SUFFIX
            if bif not in schema:
                continue
            bonus = rk.PAIR_WEIGHT * BY_NAME[f].boost * (rk._idf(len(both_a), n_all)
                                                      + rk._idf(len(both_b), n_all)) / 2
            docs = _pair_docs(memo, leaves, bif, pair)
            docs = docs[has_both[docs]]
            scores[docs] += bonus


def _pair_docs(memo: _Memo, leaves, bif: str, pair: str):
    """The papers with the pair's own term or its hashed bucket in a pair field, memoised."""
    hit = memo.get("pair", (bif, pair))
    if hit is not None:
        return hit[0]
    np = _np()
    parts = []
    for term in (pair, pair_bucket(pair)):
        for leaf, base in leaves:
            ids, _ = postings(leaf, bif, term)
            if len(ids):
                parts.append(_id_array(ids) + base)
    docs = np.unique(np.concatenate(parts)) if parts else np.empty(0, dtype=np.int64)
    memo.put("pair", (bif, pair), (docs,))
    return docs
