"""Typo tolerance (reader/search/typos.py): a typo'd word finds its near library words, ranked
below exact matches; "did you mean" corrects every word at once; the lookups keep to a budget."""

from __future__ import annotations

import random
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reader.library import Library
from reader.search import SearchIndex, typos
from reader.search.segments import internals

from .helpers import doc, num


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    with Library.open(tmp_path_factory.mktemp("typos") / "lib") as lib:
        if lib.index_needs_sync():
            lib.sync_index()
        yield lib


@pytest.fixture
def ix(tmp_path: Path):
    index = SearchIndex.open(tmp_path / "ix")
    docs = [
        doc(1, "", "Sparse attention for long documents with sparse transformers."),
        doc(2, "", "Atention is all you need, a study of atention heads."),  # the paper's own typo
        doc(3, "", "Attention heads in transformers; attention maps explained."),
        doc(4, "", "Exploring the state space of spare parts inventories."),
        doc(5, "", "A convolutional network for images."),
    ]
    # "attention" is common, so paper 2's "atention" reads as a typo (typos.RARE_RATIO).
    docs += [doc(100 + i, "", f"Attention in model number{i}.") for i in range(typos.RARE_RATIO)]
    index.rebuild(docs, stamp=1, total=len(docs))
    yield index
    index.close()


def _typo(word: str, rng: random.Random) -> str:
    while True:
        i = rng.randrange(1, len(word) - 1)
        out = rng.choice((word[:i] + word[i + 1:],  # dropped
                          word[:i] + word[i] + word[i:],  # doubled
                          word[:i] + word[i + 1] + word[i] + word[i + 2:]))  # swapped
        if out != word:
            return out


def test_a_typod_title_finds_its_paper_among_the_top_hits(seeds: Library) -> None:
    rng = random.Random(5)
    papers = [p for p in seeds.papers(seeds.paper_ids())
              if any(len(w) >= 5 and w.isalpha() for w in p.title.lower().split())]
    assert len(papers) >= 40
    for p in papers:
        title = p.title.lower()
        word = max((w for w in title.split() if w.isalpha()), key=len)
        query = title.replace(word, _typo(word, rng), 1)
        assert query != title
        top = seeds.search(query, limit=3).ids
        assert p.id in top, (query, top)


def test_exact_matches_rank_above_typo_matches(ix: SearchIndex) -> None:
    # "atention" is in paper 2 as typed: it comes first; papers with "attention" follow.
    res = ix.search("atention", limit=None)
    got = [h.id for h in res.hits]
    assert got[0] == num(2) and {num(1), num(3)} <= set(got[1:]) and res.total == 203
    assert res.hits[0].score > 1.5 * res.hits[1].score
    # A word typed right is never widened to its near words.
    assert num(2) not in [h.id for h in ix.search("attention").hits]
    assert num(4) not in [h.id for h in ix.search("sparse").hits]
    # An unknown word finds its near words; one close to none finds nothing.
    assert [h.id for h in ix.search("convolutonal").hits] == [num(5)]
    assert ix.search("qwertyuiop").hits == []


def test_a_typo_in_one_word_keeps_the_others_first(ix: SearchIndex) -> None:
    got = [h.id for h in ix.search("sparse atention").hits]
    assert got[0] == num(1)  # both words (one through its typo) beat "atention" alone


def test_suggestion_corrects_every_word_with_its_hit_count(seeds: Library) -> None:
    sug = seeds.suggest("sparce atention")
    assert sug is not None and sug.text == "sparse attention"
    assert sug.hits == seeds.search("sparse attention").total > 0
    sug = seeds.suggest("transfomer atention")
    assert sug is not None and sug.text == "transformer attention"
    assert seeds.search("sparce atention").suggestion == "sparse attention"


def test_no_suggestion_for_a_correct_query(seeds: Library) -> None:
    assert seeds.suggest("sparse attention") is None
    assert seeds.suggest("mode connectivity") is None
    assert seeds.search("sparse attention").suggestion is None
    assert seeds.suggest("qwertyuiop") is None  # nothing near


def test_suggestion_prefers_words_that_occur_together(ix: SearchIndex) -> None:
    # "sparce" is one edit from "sparse" and "spare" (and "space"); beside "attention"
    # only "sparse" is in a paper with it.
    assert ix.suggest("sparce attention") == "sparse attention"
    assert ix.suggest("sparce parts") == "spare parts"


def test_typo_lookups_keep_to_the_budget_for_long_garbage(ix: SearchIndex, monkeypatch) -> None:
    calls: list[str] = []
    real = typos.near_words

    def counting(reader, word, **kw):
        calls.append(word)
        return real(reader, word, **kw)

    monkeypatch.setattr(typos, "near_words", counting)
    rng = random.Random(1)
    garbage = " ".join("".join(rng.choice("qwxzjkvb") for _ in range(rng.randint(4, 12)))
                       for _ in range(300))
    res = ix.search(garbage)  # the ranking's words, then its did-you-mean's
    assert res.hits == [] and len(calls) <= 2 * typos.MAX_TYPO_WORDS
    calls.clear()
    ix.suggest(garbage)
    assert len(calls) <= typos.MAX_TYPO_WORDS
    calls.clear()
    ix.search("x" * 30 + " " + "attentionattentionattention")  # too long to be a typo
    assert calls == []


def test_distance_counts_a_swap_as_one_edit() -> None:
    assert typos.distance("atention", "attention", 2) == 1
    assert typos.distance("atnetion", "attention", 2) == 2
    assert typos.distance("form", "from", 1) == 1
    assert typos.distance("abcdef", "fedcba", 2) == 3


def _osa(a: str, b: str) -> int:
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


@settings(max_examples=25, deadline=None)
@given(vocab=st.lists(st.text("abcde", min_size=3, max_size=10), min_size=1, max_size=30, unique=True),
       word=st.text("abcde", min_size=4, max_size=10))
def test_near_words_are_every_word_within_the_distance(tmp_path_factory, vocab, word) -> None:
    """The symmetric-delete table finds exactly what a full scan finds (every word here is in
    two papers, so two-edit neighbours are indexed too)."""
    # Hypothesis seeds `random`, so Whoosh's random segment names repeat between examples:
    # forget what was memoised per segment name.
    typos._tables.clear()
    internals._lexicons.clear()
    index = SearchIndex.open(tmp_path_factory.mktemp("near") / "ix")
    try:
        docs = [doc(i + 1, "", " ".join(vocab)) for i in range(2)]
        index.rebuild(docs, stamp=1, total=2)
        maxd = typos.max_distance(word)
        want = {w for w in vocab if w != word and _osa(word, w) <= maxd
                and typos.MIN_TYPO_LEN - 1 <= len(w)}
        got = typos.near_words(index._s().reader(), word, limit=len(vocab) + 1)
        assert {n.word for n in got} == want
        assert all(n.distance == _osa(word, n.word) for n in got)
    finally:
        index.close()


def test_a_segment_without_its_table_still_finds_one_edit_words(ix: SearchIndex, monkeypatch) -> None:
    """A big segment's table is built by warm() only; until then (a one-off CLI search) the
    words one edit away after the first letter are still found, and no table is built."""
    typos._tables.clear()
    monkeypatch.setattr(typos, "COLD_BUILD_DOCS", 0)
    reader = ix._s().reader()
    assert [n.word for n in typos.near_words(reader, "atention")][:1] == ["attention"]
    assert typos.near_words(reader, "atnetion") == []  # two edits: the table's job
    assert not typos._tables
    typos.warm(ix._s())
    assert [n.word for n in typos.near_words(reader, "atnetion")] == ["atention", "attention"]


def test_a_big_table_is_built_in_steps_and_sorted_off_the_gil(monkeypatch) -> None:
    """A 100k library's segment has ~55k words (1.3M keys): the build on the warm-up worker lets
    the GIL go between steps of BUILD_STEP words, and its keys are sorted by numpy (which
    releases it), not by a list's sort (one C call holding the GIL for a second: a J/K step on
    the GUI thread waited for it). The table is the one a list's sort gives."""
    rng = random.Random(5)
    words = sorted({"".join(rng.choice("abcdefghij") for _ in range(rng.randint(4, 11))) for _ in range(3000)})
    lex = {w: (1 + i % 3, 0, 0) for i, w in enumerate(words)}
    pauses, sorts = [], []
    monkeypatch.setattr(typos, "NUMPY_SORT_FROM", 1)  # numpy's sort (a real table's size is 1.3M keys)
    real_sort = typos.sorted_keys
    monkeypatch.setattr(typos, "sorted_keys", lambda keys: sorts.append(len(keys)) or real_sort(keys))
    table = typos._Table(lex, {}, pause=lambda: pauses.append(1))
    assert len(pauses) >= len(table.words) // typos.BUILD_STEP >= 5
    assert sorts == [len(table.keys)]
    expected = sorted((typos.form_hash(f) << typos._INDEX_BITS) | i for i, w in enumerate(table.words)
                      for f in typos._deletes(w, 2 if len(w) >= typos.TWO_TYPOS_LEN - 1 and table.dfs[i] >= 2 else 1))
    assert list(table.keys) == expected
    assert table.candidates({words[0]}) >= {0}


def test_a_small_table_sorts_its_keys_without_numpy() -> None:
    """A small library's tables (a CLI search builds them) sort by a list's sort: the same order
    as numpy's, and no numpy imported for a search (tests/test_cli_start.py checks the CLI)."""
    keys = array("Q", [2**63 + 5, 3, 2**40, 7, 2**64 - 1, 0])
    assert len(keys) < typos.NUMPY_SORT_FROM
    assert list(typos.sorted_keys(keys)) == sorted(keys)


def _vocabulary(seed: int, n: int, letters: str) -> dict[str, tuple[int, int, int]]:
    rng = random.Random(seed)
    words = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(3, 26))) for _ in range(n)})
    return {w: (1 + i % 3, 0, 0) for i, w in enumerate(words)}


def test_numpys_build_of_a_big_table_gives_the_keys_of_the_form_by_form_build(monkeypatch) -> None:
    """A 100k library's tables took ~2.5 s of CPU at every window start, hashing each form's
    string; numpy's build computes the same keys from each word's prefix sums (ASCII words;
    the others form by form), in steps that let the GIL go."""
    lex = _vocabulary(3, 6000, "abcdefghijklmnopqrstuvwxyz" * 3 + "éßαβγ中")
    assert len(lex) >= typos.NUMPY_BUILD_FROM
    assert any(w.isascii() for w in lex) and not all(w.isascii() for w in lex)
    imported = []
    real_numpy_keys = typos._numpy_keys
    monkeypatch.setattr(typos, "_numpy_keys", lambda *a: imported.append(1) or real_numpy_keys(*a))
    pauses: list[int] = []
    big = typos._Table(lex, {"between": 3}, pause=lambda: pauses.append(1))
    assert imported == [1] and len(pauses) >= 20  # a step per group of equally long words
    monkeypatch.setattr(typos, "NUMPY_BUILD_FROM", len(lex) + 10)
    small = typos._Table(lex, {"between": 3})
    assert imported == [1]
    assert big.words == small.words and list(big.keys) == list(small.keys)
    for word in ["between", *list(lex)[:50]]:
        forms = typos._deletes(word, 2)
        assert big.candidates(forms) == small.candidates(forms) and big.words.index(word) in big.candidates(forms)


def test_forms_that_differ_get_different_hashes() -> None:
    """A prime for which 256**4 is small (2**32 - 5) gave words differing by 5 in their first
    letter and by 1 in their fifth one hash ("hznjcohjgmaajo", "mznjbohjgmaajo"): every such
    pair was a candidate of the other's lookups: 756 shared hashes among 6,000 words' 766k
    forms, against the ~98 of a random hash into as many values (the birthday bound)."""
    assert typos.form_hash("hznjcohjgmaajo") != typos.form_hash("mznjbohjgmaajo")
    lex = _vocabulary(4, 6000, "abcdefghijklmnopqrstuvwxyz")
    forms = {f for w in lex for f in typos._deletes(w, 2)}
    shared = len(forms) - len({typos.form_hash(f) for f in forms})
    assert shared <= 2 * len(forms) ** 2 / (2 * typos._PRIME)
