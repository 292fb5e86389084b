"""Ranked search on numpy arrays (big indexes, rank.VECTOR_FROM) gives the dict path's answer
exactly: the same documents in the same order with the same scores, for every keystroke of
typed titles (as typed and with a typo), with filters, a small budget and common words; its
memo of each word's scores makes a keystroke that only extends the query score few postings
anew, and a commit (a new searcher) starts it afresh."""

from __future__ import annotations

import csv
import itertools
import random
from collections.abc import Iterator

import pytest

from reader.search import SearchIndex, rank
from reader.search.index import TYPING_TYPO_WORDS
from reader.search.query import plain_query
from reader.search.rank import TYPING_POSTINGS_BUDGET
from reader.search.typos import MAX_TYPO_WORDS

from .helpers import CORPUS, doc

CSV = CORPUS / "ml_conference_corpus" / "papers_neurips_icml_iclr.csv"
N_PAPERS = 800
N_TITLES = 5
DICT_PATH = 10**12  # rank.VECTOR_FROM that keeps every index on the dict path


def _rows() -> list[dict]:
    if not CSV.exists():
        pytest.skip("the shared corpus is not here")
    with CSV.open(encoding="utf-8", newline="") as f:
        return list(itertools.islice(csv.DictReader(f), N_PAPERS))


def _typo(title: str, seed: int) -> str:
    """Two neighbouring letters of the longest word swapped (bench_compare's typo)."""
    words = title.split()
    i = max(range(len(words)), key=lambda j: len(words[j]))
    w = words[i]
    if len(w) >= 4:
        k = 1 + random.Random(seed).randrange(len(w) - 2)
        words[i] = w[:k] + w[k + 1] + w[k] + w[k + 2:]
    return " ".join(words)


def _typed(rows: list[dict]) -> list[str]:
    """Every prefix of N_TITLES titles, each typed as it is and with a typo."""
    titles = [" ".join(r["title"].split()) for r in rows]
    titles = [t for t in titles if t.isascii() and 3 <= len(t.split()) <= 10]
    chosen = random.Random(31).sample(titles, N_TITLES)
    return [t[:i] for n, title in enumerate(chosen) for t in (title, _typo(title, n))
            for i in range(1, len(t) + 1)]


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory, fast_path: str) -> Iterator[SearchIndex]:
    rows = _rows()
    docs = [doc(i + 1, r["title"], r["abstract"], year=int(r["year"]) if r["year"].isdigit() else None,
                authors=r["authors"], venue=r["venue"]) for i, r in enumerate(rows)]
    index = SearchIndex.open(tmp_path_factory.mktemp("arrays") / "ix")
    index.rebuild(docs[:550], stamp=1)
    index.update(docs[550:], stamp=2)  # two segments
    again = [dict(d, title=d["title"] + " revisited") for d in docs[:40]]
    index.update(again, deleted=[d["id"] for d in docs[40:60]], stamp=3)  # deletions in the first
    yield index
    index.close()


@pytest.fixture(scope="module")
def typed(fast_path: str) -> list[str]:
    """Every prefix; with Whoosh's public API (slower, the same numbers) every third."""
    every = _typed(_rows())
    return every if fast_path == "fast" else every[::3]


def _both(monkeypatch: pytest.MonkeyPatch, fn):
    """fn() on the dict path, then twice on the arrays path (memo cold, then warm)."""
    monkeypatch.setattr(rank, "VECTOR_FROM", DICT_PATH)
    want = fn()
    monkeypatch.setattr(rank, "VECTOR_FROM", 0)
    return want, fn(), fn()


def _answer(r: rank.Ranking, limit: int = 20) -> tuple:
    return (r.top(None), r.top(limit), r.order()[:limit], r.total, r.postings_read, r.note, r.stems,
            r.expansions, r.prefix, r.stopped, r.page(limit, limit))


def _rank_all(ix: SearchIndex, queries: list[str], **kw) -> list[tuple]:
    from reader.search import rank_arrays  # here: the work-saved test runs on older code too

    out = []
    with ix._read_lock:
        s = ix._s()
        for q in queries:
            plain = plain_query(q, as_you_type=True)
            if plain is None:
                continue
            out.append((q, _answer(rank_arrays.rank(s, plain.words, prefix=plain.prefix, **kw))))
    return out


def _same(want: list[tuple], *got: list[tuple]) -> None:
    assert want and any(a[1][3] for a in want)  # something was found
    for g in got:
        assert len(g) == len(want)
        for a, b in zip(want, g, strict=True):
            assert a == b, a[0]  # exact floats, order and ties


def test_typed_titles_rank_the_same_on_arrays(ix: SearchIndex, typed: list[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(typed) >= 150
    _same(*_both(monkeypatch, lambda: _rank_all(ix, typed, max_postings=TYPING_POSTINGS_BUDGET,
                                                typo_words=3)))


def test_finished_queries_filters_budgets_and_common_words_rank_the_same(
        ix: SearchIndex, typed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    words = [q + " " for q in typed[::9]]  # finished: no prefix, typos looked up
    with ix._read_lock:
        allowed = set(random.Random(5).sample(range(ix._s().doc_count_all()), 400))
    _same(*_both(monkeypatch, lambda: _rank_all(ix, words, typo_words=MAX_TYPO_WORDS)))
    _same(*_both(monkeypatch, lambda: _rank_all(ix, typed[::5], allowed=allowed)))
    small = {1, 5, 400, 700}  # a handful allowed: looked up the other way round
    _same(*_both(monkeypatch, lambda: _rank_all(ix, typed[::13], allowed=small)))
    _same(*_both(monkeypatch, lambda: _rank_all(ix, typed[::7], max_postings=400)))  # words left out
    monkeypatch.setattr(rank, "COMMON_MIN", 20)  # common words score only what rarer ones found
    _same(*_both(monkeypatch, lambda: _rank_all(ix, typed[::6])))


def test_searches_and_later_pages_are_the_same_on_arrays(ix: SearchIndex, typed: list[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def search() -> list[tuple]:
        out = []
        for q in typed[::8]:
            r = ix.search(q, limit=30, as_you_type=True)
            later = r.page(30, 40) if r.fetch is not None else []
            out.append((q, [(h.id, h.score) for h in r.hits], r.total, r.problem,
                        [(h.id, h.score) for h in later]))
        return out

    want, cold, warm = _both(monkeypatch, search)
    assert any(w[2] > 70 for w in want)  # later pages were read
    assert want == cold == warm


def _postings_fetched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    fetched = [0]
    real = rank._postings

    def counting(leaf, fieldname: str, term: str):
        ids, tfs = real(leaf, fieldname, term)
        fetched[0] += len(ids)
        return ids, tfs

    monkeypatch.setattr(rank, "_postings", counting)
    return fetched


def test_a_keystroke_that_extends_the_query_scores_few_postings_anew(
        ix: SearchIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    title = "deep reinforcement learning with policy gradients for neural networks"
    keys = [title[:i] for i in range(len("deep reinforcement l"), len(title) + 1)]
    read = 0
    with ix._read_lock:
        for q in keys:  # the postings each keystroke reads (the budget's count)
            plain = plain_query(q, as_you_type=True)
            assert plain is not None
            read += rank.rank(ix._s(), plain.words, prefix=plain.prefix, max_postings=TYPING_POSTINGS_BUDGET,
                              typo_words=TYPING_TYPO_WORDS).postings_read
    monkeypatch.setattr(rank, "VECTOR_FROM", 0, raising=False)  # arrays for this small index
    fetched = _postings_fetched(monkeypatch)
    for q in keys:
        ix.search(q, limit=200, as_you_type=True)  # the window's keystrokes
    # Scoring every posting at every keystroke fetches them all (fetched >= read); with the
    # memo only the new completions' and words' postings are.
    assert read > 20_000
    assert fetched[0] * 5 < read


def test_a_commit_starts_the_memo_afresh(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _rows()[:300]
    docs = [doc(i + 1, r["title"], r["abstract"]) for i, r in enumerate(rows)]
    index = SearchIndex.open(tmp_path / "ix")
    try:
        index.rebuild(docs, stamp=1)
        monkeypatch.setattr(rank, "VECTOR_FROM", 0)
        queries = ["quokka mar", "quokka marsupials ", "learning to rank"]
        before = {q: index.search(q, as_you_type=True) for q in queries}  # memoised
        assert docs[7]["id"] not in [h.id for h in before["quokka mar"].hits]
        index.update([dict(docs[7], title="Quokka marsupials learn to rank")], stamp=2)
        after = {q: [(h.id, h.score) for h in index.search(q, as_you_type=True).hits] for q in queries}
        assert after["quokka mar"][0][0] == docs[7]["id"]
        monkeypatch.setattr(rank, "VECTOR_FROM", DICT_PATH)
        assert {q: [(h.id, h.score) for h in index.search(q, as_you_type=True).hits] for q in queries} == after
    finally:
        index.close()
