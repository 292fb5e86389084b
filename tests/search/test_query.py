"""The query language (reader/search/query.py): field groups, the work budget of every query shape."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from whoosh import query as wq

from reader.search import SearchIndex, terms
from reader.search.query import parse_query


def doc(n: int, title: str, abstract: str, **kw) -> dict:
    d = {
        "id": f"{n:016x}", "title": title, "abstract": abstract, "method": "", "venue": "",
        "year": 2000 + n % 25, "authors": "", "tags": [], "note": "", "comments": "",
        "starred": False, "read": False, "added": float(n),
    }
    d.update(kw)
    return d


def num(i: int) -> str:
    return f"{i:016x}"


def ids(results) -> set[str]:
    return {h.id for h in results.hits}


# Papers 1-3 have derived titles (the seeds' own, the title-less 50k corpus); 4 a real one.
DERIVED = [
    doc(1, "Graph neural networks for molecules", "Graph neural networks for molecules are "
        "studied here with message passing.", title_source="derived"),
    doc(2, "Sparse attention in transformers", "Sparse attention in transformers saves memory "
        "for long documents.", title_source="derived"),
    doc(3, "Kernel methods revisited", "Kernel methods revisited: random features for graph "
        "data and attention.", title_source="derived"),
    doc(4, "Graph attention layers", "We stack layers that attend over a neighbourhood.",
        title_source="imported"),
]


@pytest.fixture
def ix(tmp_path: Path):
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(DERIVED, stamp=1, total=len(DERIVED))
    yield index
    index.close()


@pytest.mark.parametrize(("group", "single"), [
    ("title:(sparse)", "title:sparse"),
    ("title:(graph)", "title:graph"),
    ('title:("graph neural")', 'title:"graph neural"'),
    ("title:(graph attention)", "title:graph title:attention"),
    ("title:(kernel OR sparse)", "title:kernel OR title:sparse"),
    ("title:(graph -neural)", "title:graph -title:neural"),
    ("title:(graph (neural OR attention))", "title:graph (title:neural OR title:attention)"),
    ("abstract:(memory documents)", "abstract:memory abstract:documents"),
    ("year:(2001 OR 2003)", "year:2001 OR year:2003"),
])
def test_field_groups_search_as_their_single_word_forms(ix: SearchIndex, group: str,
                                                         single: str) -> None:
    assert ids(ix.search(group)) == ids(ix.search(single)) != set(), group


def test_title_group_finds_derived_titles(ix: SearchIndex) -> None:
    assert ids(ix.search("title:(sparse)")) == {num(2)}
    assert ids(ix.search("title:(graph OR kernel)")) == {num(1), num(3), num(4)}


def test_mid_word_tilde_is_no_fuzzy_word(ix: SearchIndex) -> None:
    # Whoosh read "graphtagtext:a~5" out of this token: a distance-5 automaton, seconds.
    q = "1234~x$is:2021-2018or\u200bgraphtagtext:a~5graph"
    pq = ix.parse(q)
    assert pq.problem and '"~" only ends a word' in pq.problem
    assert not [leaf for leaf in pq.query.leaves() if isinstance(leaf, wq.FuzzyTerm)]
    r = ix.search(q)
    assert "failed" not in (r.problem or "")


def test_fuzzy_distance_is_capped_whatever_the_parser_read(ix: SearchIndex) -> None:
    # Whoosh syntax reaching the parser directly (the rewrite's last line of defence).
    pq = parse_query("graph~2", ix._parser)
    assert pq.query is not None
    raw = ix._parser.parse("graphtagtext~5 neural~9")
    from reader.search.query import _tune

    tuned = _tune(raw.normalize(), {})
    fuzzy = [leaf for leaf in tuned.leaves() if isinstance(leaf, wq.FuzzyTerm)]
    assert fuzzy and all(leaf.maxdist <= terms.MAX_FUZZY_DISTANCE for leaf in fuzzy)
    assert all(isinstance(leaf, terms.FastFuzzy) for leaf in fuzzy)


def test_a_spent_budget_cuts_expansions_with_a_note(ix: SearchIndex, monkeypatch) -> None:
    monkeypatch.setattr(terms, "WORK_LIMIT", 3)
    r = ix.search("gr* OR at*")
    assert r.problem and "searched the first ones only" in r.problem
    budget = terms.last_budget()
    assert budget is not None and budget.cut and budget.used <= 3


def test_wildcards_are_charged(ix: SearchIndex) -> None:
    r = ix.search("gr*ph")
    assert ids(r) == {num(1), num(3), num(4)}
    budget = terms.last_budget()
    assert budget is not None and 0 < budget.used <= budget.limit
    pq = ix.parse("gr*ph")
    assert [type(leaf) for leaf in pq.query.leaves()] == [terms.FastWildcard] * len(
        list(pq.query.leaves()))


# -- every query shape within the work budget --------------------------------------------

_BUDGETED = (wq.Term, wq.NumericRange, terms.FastFuzzy, terms.FastPrefix, terms.FastRange,
             terms.FastWildcard, terms.PairPhrase, wq.Phrase, type(wq.NullQuery))
_WORDS = ["graph", "neural", "attention", "sparse", "kernel", "gr", "ne", "a", "x", "1234",
          "2021", "molecules", "transformers", "attent", "grph", "kernal", "ab" * 30]
_SYNTAX = ["AND", "OR", "NOT", "ANDNOT", "ANDMAYBE", "(", ")", '"', "-", "+", "*", "~", "~1",
           "~2", "~5", "~99", ":", "[", "]", "TO", "{", "}", "^", "^3", "\\", "/", "<", ">",
           ">=", "'", "title:", "abstract:", "author:", "venue:", "year:", "tag:", "note:",
           "method:", "comment:", "foo:", "is:starred", "is:unread", "has:note", "is:bogus",
           "year:>2019", "year:2018-2021", "year:2021-2018", "[a TO z]", "{x TO}", "[1 TO 99999]",
           "abstract:>a", "*:*", "?", "$"]
_ODD = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u0301", "\u0327", "e\u0301",
        "\u202e", "\u200f", "\u05d0\u05d1", "\u0627\u0644", "\x00", "\U0001d53c", "\ufb01",
        "\u00e9", "\u3000", "\u00a0", "\n", "\t"]
_PART = st.one_of(st.sampled_from(_WORDS), st.sampled_from(_SYNTAX), st.sampled_from(_ODD),
                  st.text(max_size=4))
_QUERY = st.lists(_PART, min_size=1, max_size=14).flatmap(
    lambda parts: st.lists(st.sampled_from(["", " ", "  "]), min_size=len(parts),
                           max_size=len(parts)).map(
        lambda glue: "".join(p + g for p, g in zip(parts, glue, strict=True))))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=_QUERY, as_you_type=st.booleans())
def test_every_query_stays_within_its_work_budget(ix: SearchIndex, query: str,
                                                  as_you_type: bool) -> None:
    r = ix.search(query, as_you_type=as_you_type)
    assert "failed" not in (r.problem or ""), (query, r.problem)
    assert r.total >= len(r.hits)
    budget = terms.last_budget()
    if budget is not None:
        assert budget.used <= budget.limit, query
    pq = ix.parse(query)
    if pq.query is not None:
        for leaf in pq.query.leaves():
            assert isinstance(leaf, _BUDGETED), (query, leaf)
            if isinstance(leaf, wq.FuzzyTerm):
                assert leaf.maxdist <= terms.MAX_FUZZY_DISTANCE, (query, leaf)
