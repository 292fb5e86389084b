"""Tests for reader.search: index lifecycle, query language, snippets, related, suggestions."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from reader.search import SearchIndex
from reader.search.paper_ids import document_numbers

from .helpers import CORPUS, DOCS, doc, ids, num


@pytest.fixture
def ix(tmp_path: Path):
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(DOCS, stamp=3, total=len(DOCS))
    yield index
    index.close()


# -- index lifecycle ----------------------------------------------------------------------


def test_new_index_is_empty_with_unknown_stamp(tmp_path: Path) -> None:
    index = SearchIndex.open(tmp_path / "new")
    assert index.stamp == -1 and index.doc_count == 0 and not index.was_reset
    assert ids(index.search("attention")) == []
    index.close()


def test_rebuild_counts_and_progress(tmp_path: Path) -> None:
    index = SearchIndex.open(tmp_path / "ix")
    calls: list[tuple[int, int]] = []
    index.rebuild(iter(DOCS), stamp=11, total=len(DOCS), progress=lambda a, b: calls.append((a, b)))
    assert index.doc_count == len(DOCS) and index.stamp == 11
    assert calls[-1] == (len(DOCS), len(DOCS))
    # A second rebuild replaces, not appends.
    index.rebuild(DOCS[:2], stamp=12)
    assert index.doc_count == 2
    index.close()


def test_cancelled_rebuild_leaves_index_unchanged(ix: SearchIndex) -> None:
    ix.rebuild([doc(99, "other", "other words entirely")], stamp=50, cancelled=lambda: True)
    assert ix.doc_count == len(DOCS) and ix.stamp == 3
    assert ids(ix.search("sparse attention"))[0] == num(1)


def test_stamp_persists_across_reopen(tmp_path: Path) -> None:
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(DOCS, stamp=7)
    index.update([doc(6, "New paper", "fresh abstract about kernels")], stamp=9)
    index.close()
    again = SearchIndex.open(tmp_path / "ix")
    assert again.stamp == 9 and again.doc_count == len(DOCS) + 1 and not again.was_reset
    assert ids(again.search("kernels")) == [num(6)]
    again.close()


@pytest.mark.parametrize("damage", ["garbage_files", "truncate", "bad_stamp", "old_version"])
def test_corrupt_index_is_reset(tmp_path: Path, damage: str) -> None:
    d = tmp_path / "ix"
    index = SearchIndex.open(d)
    index.rebuild(DOCS, stamp=5)
    index.close()
    if damage == "garbage_files":
        for f in d.iterdir():
            if f.suffix in (".toc", ".seg"):
                f.write_bytes(b"\x00garbage" * 10)
    elif damage == "truncate":
        for f in d.iterdir():
            if f.suffix == ".seg":
                f.write_bytes(f.read_bytes()[:100])
    elif damage == "bad_stamp":
        (d / "reader-stamp.json").write_text("{not json")
    else:
        (d / "reader-stamp.json").write_text(json.dumps({"stamp": 5, "schema": -1}))
    again = SearchIndex.open(d)
    assert again.was_reset and again.reset_reason
    assert again.stamp == -1 and again.doc_count == 0
    again.rebuild(DOCS, stamp=6)  # and it is usable again
    assert ids(again.search("sparse attention"))[0] == num(1)
    again.close()


def test_unrelated_files_in_index_dir_cause_reset(tmp_path: Path) -> None:
    d = tmp_path / "ix"
    d.mkdir()
    (d / "junk.txt").write_text("hello")
    index = SearchIndex.open(d)
    assert index.was_reset and index.doc_count == 0
    index.close()


# -- queries ------------------------------------------------------------------------------


def test_sparse_attention_ranks_sparse_attention_paper_first(ix: SearchIndex) -> None:
    r = ix.search("sparse attention")
    assert ids(r)[0] == num(1)
    # Ranked: the papers with both words first, then partial matches (never zero hits).
    assert set(ids(r)[:2]) == {num(1), num(2)}
    assert r.ranked and r.total == len(ids(r)) >= 2
    assert r.terms == ["sparse", "attention"] and r.problem is None and not r.filters_only


def test_stemming(ix: SearchIndex) -> None:
    assert num(5) in ids(ix.search("gradient controlling"))


def test_stems_keep_apart_words_porter2_keeps_apart(tmp_path: Path) -> None:
    """Snowball's own stemmer (PyStemmer), not Whoosh's port, which made lateral and later one
    word (also adding/ad, organic/organ, university/universal): a strict query found both."""
    index = SearchIndex.open(tmp_path / "ix")
    docs = [doc(1, "Lateral inhibition in cortex", "Lateral connections."),
            doc(2, "Later is better", "We defer the decision later."),
            doc(3, "Organic chemistry", "Organic molecules."),
            doc(4, "Organ transplants", "An organ is grown."),
            doc(5, "Adding noise", "Adding noise regularises.")]
    index.rebuild(docs, stamp=1, total=len(docs))
    assert ids(index.search("title:lateral")) == [num(1)]
    assert ids(index.search("title:organic")) == [num(3)]
    assert ids(index.search("title:add")) == [num(5)]  # "adding" stems to add, not ad
    index.close()


def test_fuzzy(ix: SearchIndex) -> None:
    assert ids(ix.search("atention~"))[0] == num(1)
    assert num(5) in ids(ix.search("reinforcment~2"))
    # A plain word with a typo finds its near words too (typos.py), ranked below exact ones.
    assert ids(ix.search("atention"))[0] == num(1)
    # A typo in the suffix changes the stem; the cut word still matches "control".
    assert ids(ix.search("controlng~")) == [num(5)]


def test_phrase(ix: SearchIndex) -> None:
    r = ix.search('"mode connectivity"')
    assert ids(r) == [num(3)]  # doc 4 has both words, not as a phrase
    assert set(ids(ix.search("mode connectivity"))) == {num(3), num(4)}


def test_prefix(ix: SearchIndex) -> None:
    assert set(ids(ix.search("spars*"))) == {num(1), num(2), num(4)}
    assert num(5) in ids(ix.search("reinforc*"))


def test_boolean_operators(ix: SearchIndex) -> None:
    assert set(ids(ix.search("robot OR retrievers"))) == {num(2), num(5)}
    assert set(ids(ix.search("sparse -attention"))) == {num(4)}
    assert set(ids(ix.search("sparse NOT attention"))) == {num(4)}
    assert set(ids(ix.search("(robot OR graph) AND connectivity"))) == {num(4)}
    assert set(ids(ix.search("sparse AND (quantized OR lexical)"))) == {num(1), num(2)}


def test_fields(ix: SearchIndex) -> None:
    assert set(ids(ix.search("title:sparse"))) == {num(1)}
    assert set(ids(ix.search("abstract:sparse"))) == {num(1), num(2), num(4)}
    assert ids(ix.search("author:muller")) == [num(2)]  # accents folded
    assert ids(ix.search("author:Müller")) == [num(2)]
    assert ids(ix.search("venue:iclr")) == [num(3)]
    assert ids(ix.search("method:spargeattn")) == [num(1)]
    assert set(ids(ix.search("title:(landscapes OR robot)"))) == {num(3), num(5)}


def test_year(ix: SearchIndex) -> None:
    assert ids(ix.search("year:2018")) == [num(3)]
    assert set(ids(ix.search("year:2018-2020"))) == {num(2), num(3), num(5)}
    assert set(ids(ix.search("year:>2019"))) == {num(1), num(2)}
    r = ix.search("year:abc sparse")
    assert r.problem and "year" in r.problem and set(ids(r)) == {num(1), num(2), num(4)}


def test_tags_case_insensitive_with_spaces_and_hyphens(ix: SearchIndex) -> None:
    assert ids(ix.search('tag:"deep learning"')) == [num(1)]
    assert ids(ix.search('tag:"Deep Learning"')) == [num(1)]
    assert set(ids(ix.search("tag:rl"))) == {num(2), num(5)}
    assert set(ids(ix.search("tag:RL"))) == {num(2), num(5)}
    assert ids(ix.search("tag:efficient-inference")) == [num(1)]
    assert ids(ix.search("tag:deep")) == []  # a tag is matched whole
    assert num(5) in ids(ix.search("robotics"))  # free words also search tags


def test_update_note_and_starred(ix: SearchIndex) -> None:
    assert ids(ix.search("is:starred")) == []
    assert ids(ix.search("note:brilliant")) == []
    d = dict(DOCS[2], starred=True, read=True, note="A *brilliant* idea", comments="check proof")
    ix.update([d], stamp=4)
    assert ix.stamp == 4 and ix.doc_count == len(DOCS)
    r = ix.search("is:starred")
    assert ids(r) == [num(3)] and r.filters_only
    assert ids(ix.search("has:note")) == [num(3)]
    assert ids(ix.search("note:brilliant")) == [num(3)]
    assert ids(ix.search("brilliant")) == [num(3)]  # free words search notes
    assert ids(ix.search("proof")) == [num(3)]  # ... and highlight comments
    assert num(3) not in ids(ix.search("is:unread"))
    assert ids(ix.search("is:read")) == [num(3)]
    assert set(ids(ix.search("is:unstarred"))) == {num(i) for i in (1, 2, 4, 5)}
    r = ix.search("is:starred connectivity")
    assert ids(r) == [num(3)] and not r.filters_only
    # Unstar again: the filter follows.
    ix.update([dict(d, starred=False, note="")], stamp=5)
    assert ids(ix.search("is:starred")) == [] and ids(ix.search("has:note")) == []


def test_update_delete(ix: SearchIndex) -> None:
    ix.update([], deleted=[num(1)], stamp=8)
    assert ix.doc_count == len(DOCS) - 1 and ix.stamp == 8
    assert num(1) not in ids(ix.search("attention"))


MALFORMED = ["title:(", '"unbalanced quote', "AND", "OR", "NOT", "*", "~", "", "   ", "(((",
             "sparse)", "a OR", "title:", "year:", "-", ":", "title:)", "*:*", "?", "^2",
             "tag:", 'tag:"', "is:", "has:", "is:bogus", "sparse ~ attention", "x* y~ z~9",
             "AND OR NOT", "title:(sparse", "[2018 TO", "year:[2018 TO 2020", "{", "\\", "'",
             "x~", "a~", "x~5", "foo:bar", "foo:"]


@pytest.mark.parametrize("q", MALFORMED)
def test_malformed_queries_never_raise(ix: SearchIndex, q: str) -> None:
    r = ix.search(q)
    assert isinstance(r.hits, list)
    assert r.total >= len(r.hits)
    assert "Search failed" not in (r.problem or ""), r.problem


def test_short_fuzzy_and_unknown_fields_are_explained(ix: SearchIndex) -> None:
    r = ix.search("x~5")
    assert r.problem and "3 or more letters" in r.problem
    r = ix.search("foo:sparse attention")
    assert r.problem and 'Unknown field "foo:"' in r.problem and ids(r)[0] == num(1)


def test_malformed_query_problems(ix: SearchIndex) -> None:
    r = ix.search("title:(")
    assert r.problem and 'Unbalanced "("' in r.problem and "title:(" in r.problem
    assert r.hits == []
    r = ix.search("title:(sparse attention")
    assert r.problem and "plain words" in r.problem
    assert ids(r)[0] == num(1)
    r = ix.search('"sparse attention')
    assert r.problem and "quote" in r.problem and ids(r)[0] == num(1)
    for q in ("AND", "*", "~"):
        r = ix.search(q)
        assert r.problem and r.hits == [], q
    assert ix.search("").problem is None and ix.search("").hits == []
    r = ix.search("is:bogus sparse")
    assert r.problem and "is:bogus" in r.problem and num(1) in ids(r)


def test_snippets_escape_and_highlight(ix: SearchIndex) -> None:
    r = ix.search("stochastic")
    snip = r.hits[0].snippet
    assert "<b>stochastic</b>" in snip
    assert "&lt;and&gt;" in snip and "<and>" not in snip
    # Stemmed matches are highlighted as written.
    snip = ix.search("controlling")
    assert "<b>controls</b>" in snip.hits[0].snippet
    snip = ix.search("spars*").hits
    assert any("<b>sparsity</b>" in h.snippet for h in snip)
    # Negated words are not highlighted (doc 2 has "attention" in its abstract only).
    r = ix.search("lexical -title:attention")
    assert ids(r) == [num(2)]
    assert "<b>lexical</b>" in r.hits[0].snippet and "<b>attention" not in r.hits[0].snippet


def test_suggestion_when_nothing_matches(ix: SearchIndex) -> None:
    r = ix.search("atension")
    assert r.suggestion == "attention"
    assert ix.search("title:atension").hits == [] and ix.search("title:atension").suggestion == "title:attention"
    assert ix.suggest("sparse atension") == "sparse attention"
    assert ix.suggest("sparse attention") is None
    assert ix.search("sparse attention").suggestion is None


def test_related_excludes_itself(ix: SearchIndex) -> None:
    rel = ix.related(num(3))
    assert rel and rel[0][0] == num(4)  # shares "mode", "connectivity"
    assert num(3) not in [pid for pid, _ in rel]
    assert ix.related("ffffffffffffffff") == []


def test_restrict(ix: SearchIndex) -> None:
    assert ids(ix.search("sparse", restrict={num(2), num(5)})) == [num(2)]
    assert ids(ix.search("sparse", restrict=set())) == []


def test_limit_and_total(ix: SearchIndex) -> None:
    r = ix.search("sparse", limit=1)
    assert len(r.hits) == 1 and r.total == 3


def test_concurrent_searches_during_updates(ix: SearchIndex) -> None:
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        try:
            while not stop.is_set():
                ix.search("sparse attention")
                ix.search("is:starred")
        except BaseException as e:  # pragma: no cover - the failure we look for
            errors.append(e)

    t = threading.Thread(target=reader)
    t.start()
    for i in range(15):
        ix.update([dict(DOCS[i % 5], starred=bool(i % 2), note=f"n{i}")], stamp=10 + i)
    stop.set()
    t.join()
    assert errors == []
    assert ids(ix.search("note:n14")) == [num(5)]


@pytest.mark.corpus
def test_real_corpus_titles_are_found(tmp_path: Path) -> None:
    path = CORPUS / "ml_conference_corpus" / "papers.jsonl"
    if not path.exists():
        pytest.skip("shared corpus not available")
    docs = []
    with path.open(encoding="utf-8") as f:
        for i, line in zip(range(300), f, strict=False):
            r = json.loads(line)
            docs.append(doc(i + 1, r["title"], r["abstract"], year=r.get("year"),
                            authors="; ".join(r.get("authors") or [])))
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(docs, stamp=1)
    for d in docs[::37]:
        q = '"' + d["title"].replace('"', " ") + '"'
        found = ids(index.search(f"title:{q}"))
        assert d["id"] in found, d["title"]
    index.close()


# -- speed-ups: bulk writer, parallel rebuild, word pairs, fuzzy, restrict, merging ---------

WORDS = ("sparse attention mode connectivity graph policy gradient robot dense retrieval "
         "neural network kernel loss landscape transformer layer quantized model").split()


def synthetic(n: int) -> list[dict]:
    """Deterministic documents reusing a small vocabulary (so pairs repeat)."""
    out = []
    for i in range(n):
        ws = [WORDS[(i * 7 + j * (i % 5 + 1)) % len(WORDS)] for j in range(25)]
        out.append(doc(1000 + i, " ".join(ws[:4]), " ".join(ws), authors=f"Ann Lee{i % 3}",
                       tags=["rl"] if i % 4 == 0 else [], starred=i % 6 == 0))
    return out


QUERIES = ['"neural network"', '"mode connectivity graph"', "sparse attention", "atention~",
           "graph*", "title:kernel", "is:starred robot", '"ann lee1"', "-policy loss",
           '"attention mode"', '"robot robot"']


def _all(index: SearchIndex, q: str) -> list[tuple[str, float]]:
    return sorted((h.id, round(h.score, 4)) for h in index.search(q, limit=None).hits)


def test_bulk_writer_matches_whoosh_writer(tmp_path: Path) -> None:
    docs = synthetic(60)
    bulk = SearchIndex.open(tmp_path / "bulk")
    bulk.rebuild(docs, stamp=1)
    plain = SearchIndex.open(tmp_path / "plain")
    plain.update(docs, stamp=1)  # Whoosh's own SegmentWriter
    for q in QUERIES:
        a, b = _all(bulk, q), _all(plain, q)
        if q.startswith('"') and " " in q:  # pair terms differ (exact vs bucket): not scores
            assert [i for i, _ in a] == [i for i, _ in b], q
        else:
            assert a == b, q
    assert _all(bulk, '"neural network"')  # the queries do match something
    bulk.close()
    plain.close()


def test_frequent_pairs_get_their_own_term(tmp_path: Path) -> None:
    from reader.search.schema import pair_bucket

    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(DOCS + [doc(9, "Mode connectivity again", "mode connectivity")], stamp=1)
    with index._read_lock:
        reader = index._s().reader()
        assert ("abstract_bi", "mode connect") in reader  # in 2 docs: exact
        assert ("abstract_bi", "robot arm") not in reader  # in 1 doc: bucketed
        assert ("abstract_bi", pair_bucket("robot arm")) in reader
    assert ids(index.search('"robot arm"')) == [num(5)]
    assert set(ids(index.search('"mode connectivity"'))) == {num(3), num(9)}
    index.close()


def test_long_phrase_is_checked_against_the_text(ix: SearchIndex) -> None:
    # Doc 1 has "sparse attention" ... "attention map" but never "sparse attention map".
    assert ids(ix.search('"attention map"')) == [num(1)]
    assert ids(ix.search('"sparse attention map"')) == []
    assert ids(ix.search('"values in the attention map"')) == [num(1)]
    assert ids(ix.search('"simulated robot arm"')) == [num(5)]
    # Stop words inside a phrase are skipped, as with positions before.
    assert ids(ix.search('"attention for any model"')) == [num(1)]


def test_phrase_after_updates_and_merges(ix: SearchIndex) -> None:
    for i in range(12):  # enough small segments to trigger a merge
        ix.update([doc(100 + i, f"Paper {i}", f"a study of mode connectivity number {i}")],
                  stamp=10 + i)
    found = set(ids(ix.search('"mode connectivity"', limit=None)))
    assert found == {num(3)} | {num(100 + i) for i in range(12)}
    assert num(4) not in found


def test_update_merges_only_small_segments(tmp_path: Path, monkeypatch) -> None:
    import reader.search.index as sidx

    monkeypatch.setattr(sidx, "SMALL_SEGMENT", 50)
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(synthetic(80), stamp=1)
    monkeypatch.setattr(sidx, "MAX_SMALL_SEGMENTS", 12)
    big = [s.segment_id() for s in index._ix._segments()]
    assert not index.maintain()  # nothing to merge yet
    for i in range(25):
        index.update([doc(5000 + i, "x", f"marker{i}word")], stamp=2 + i)
        segs = index._ix._segments()
        assert len(segs) <= sidx.MAX_SMALL_SEGMENTS + len(big)  # bounded even without idle
        assert set(big) <= {s.segment_id() for s in segs}  # the big one is never rewritten
    for i in range(10):
        index.update([doc(6000 + i, "y", f"more {i}")], stamp=30 + i)
    assert len(index._ix._segments()) > sidx.MERGE_AFTER_SEGMENTS
    assert index.maintain()
    assert len(index._ix._segments()) < len(big) + sidx.MERGE_AFTER_SEGMENTS
    assert not index.maintain()  # the rest by Whoosh's rule: nothing more
    assert set(big) <= {s.segment_id() for s in index._ix._segments()}
    assert index.doc_count == 115 and ids(index.search("marker7word")) == [num(5007)]
    assert index.stamp == 39
    index.close()


def test_maintain_leaves_a_bigger_small_segment_until_the_smaller_add_up(tmp_path: Path, monkeypatch) -> None:
    """Single-paper segments are merged together, not into a 30-paper one each time (which
    rewrote it every MERGE_AFTER_SEGMENTS decisions: ~1.8 s of the writer at 100k in triage)."""
    import reader.search.index as sidx

    monkeypatch.setattr(sidx, "SMALL_SEGMENT", 50)
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(synthetic(80), stamp=1)
    index.update([doc(7000 + i, "batch", f"batch{i}word") for i in range(30)], stamp=2)
    [thirty] = [s.segment_id() for s in index._ix._segments() if s.doc_count_all() == 30]
    merges = 0
    for i in range(40):
        index.update([doc(8000 + i, "one", f"single{i}word")], stamp=3 + i)
        merges += index.maintain()
        assert len(index._ix._segments()) <= 1 + 1 + sidx.MERGE_AFTER_SEGMENTS + 2
    assert merges >= 3
    assert thirty in {s.segment_id() for s in index._ix._segments()}  # never rewritten
    assert index.doc_count == 150 and ids(index.search("single33word")) == [num(8033)]
    assert ids(index.search("batch7word")) == [num(7007)]
    index.close()


def test_near_terms_is_edit_distance_one() -> None:
    from whoosh.filedb.filestore import RamStorage

    from reader.search.query import near_terms
    from reader.search.schema import build_schema

    vocab = ["attention", "atention", "attentions", "attenton", "attendance", "atterntion",
             "attentoin", "at", "atte", "bttention", "tension"]
    ix = RamStorage().create_index(build_schema())
    w = ix.writer()
    w.add_document(id="1", flags=" ".join(vocab))
    w.commit()

    def dist1(a: str, b: str) -> bool:
        if a == b:
            return True
        if abs(len(a) - len(b)) > 1:
            return False
        i = 0
        while i < min(len(a), len(b)) and a[i] == b[i]:
            i += 1
        return a[i + 1:] == b[i + 1:] or a[i + 1:] == b[i:] or a[i:] == b[i + 1:]

    with ix.reader() as r:
        got = set(near_terms(r, "flags", "attention", 2))
    assert got == {v for v in vocab if v.startswith("at") and dist1(v, "attention")}
    assert "attendance" not in got and "bttention" not in got


def test_fuzzy_across_segments(ix: SearchIndex) -> None:
    ix.update([doc(7, "Attention again", "more attention")], stamp=4)
    assert set(ids(ix.search("atention~"))) == {num(1), num(2), num(7)}


def test_big_restrict_set_filters_hits(ix: SearchIndex) -> None:
    many = {f"{i:016x}" for i in range(100, 1000)} | {num(2), num(4)}
    r = ix.search("sparse", restrict=many)
    assert set(ids(r)) == {num(2), num(4)} and r.total == 2
    assert ids(ix.search("sparse", restrict=many, limit=1)) in ([num(2)], [num(4)])


def test_fast_keyword_terms_match_whoosh_analysis() -> None:
    from reader.search.schema import build_schema

    schema = build_schema()
    for name, value in [("tags", " Deep Learning,rl ,, Efficient-Inference"),
                        ("flags", "starred unread  hasnote"), ("id", "00ab")]:
        field = schema[name]
        whoosh_terms = sorted(t.decode() for t, *_ in type(field).__mro__[1].index(field, value))
        assert sorted(field.terms(value)) == whoosh_terms, name


@pytest.fixture
def small_parallel(monkeypatch):
    import reader.search.rebuild as build

    monkeypatch.setattr(build, "PARALLEL_MIN_DOCS", 10)
    monkeypatch.setattr(SearchIndex, "rebuild_procs", 2)


def test_parallel_rebuild_matches_in_process(tmp_path: Path, small_parallel) -> None:
    docs = synthetic(700)
    par = SearchIndex.open(tmp_path / "par")
    calls: list[tuple[int, int]] = []
    par.rebuild(iter(docs), stamp=5, total=len(docs), progress=lambda a, b: calls.append((a, b)))
    assert 1 <= len(par._ix._segments()) <= 2  # one per process that got work, no merge
    assert par.doc_count == 700 and par.stamp == 5 and calls[-1] == (700, 700)
    one = SearchIndex.open(tmp_path / "one")
    one.rebuild_procs = 1
    one.rebuild(docs, stamp=5)
    for q in QUERIES:
        assert {h.id for h in par.search(q, limit=None).hits} == \
            {h.id for h in one.search(q, limit=None).hits}, q
    par.close()
    again = SearchIndex.open(tmp_path / "par")  # committed properly
    assert again.doc_count == 700 and not again.was_reset
    again.close()
    one.close()


def test_parallel_rebuild_cancel_leaves_index_unchanged(tmp_path: Path, small_parallel) -> None:
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(DOCS, stamp=3)
    files = {f.name for f in (tmp_path / "ix").iterdir()}
    seen = []

    def cancelled() -> bool:
        return len(seen) > 1

    index.rebuild(synthetic(2000), stamp=9, total=2000, progress=lambda a, b: seen.append(a),
                  cancelled=cancelled)
    assert index.stamp == 3 and index.doc_count == len(DOCS)
    assert ids(index.search("sparse attention"))[0] == num(1)
    assert {f.name for f in (tmp_path / "ix").iterdir()} == files  # no half-built segments
    index.close()


def test_updating_a_doc_never_duplicates_it(ix: SearchIndex) -> None:
    """Each update replaces the paper's document; hits never repeat an id."""
    r = ix.search("sparse")
    target = ids(r)[0]
    for i in range(5):
        d = dict(doc(1, "Sparse attention", "Sparse attention for transformers speeds up inference."),
                 starred=bool(i % 2))
        ix.update([d], stamp=ix.stamp + 1)
    got = ids(ix.search("sparse"))
    assert len(got) == len(set(got)) and target in got


def test_bulk_index_is_compressed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Posting blocks and stored fields are deflated (the index must stay smaller than the
    database): the same documents take under 3/4 of the uncompressed index's bytes."""
    from whoosh.codec.whoosh3 import W3Codec

    from reader.search.segments import writer

    words = [f"w{i}x" for i in range(300)]
    docs = [doc(i, f"Paper {i}", " ".join(words[(i * 7 + k) % 300] for k in range(120)))
            for i in range(400)]

    def size(folder: Path) -> int:
        index = SearchIndex.open(folder)
        index.rebuild(docs, stamp=1, total=len(docs))
        assert ids(index.search("w5x"))  # still searchable
        index.close()
        return sum(f.stat().st_size for f in folder.iterdir())

    compressed = size(tmp_path / "default")
    monkeypatch.setattr(writer, "STORED_LEVEL", 0)
    monkeypatch.setitem(SearchIndex.rebuild_options, "codec", W3Codec(compression=0))
    plain = size(tmp_path / "plain")
    assert compressed < 0.75 * plain, (compressed, plain)



def test_bulk_index_deflates_with_a_small_window_readable_as_before(tmp_path: Path) -> None:
    """Issue 31 (import CPU): posting blocks and stored fields are deflated with an 8 kB window
    (zlib.compress set up 256 kB of state per call: ~60 µs a block, most of the cost); the
    streams are zlib's as before (zlib.decompress reads them), as small under 8 kB, and an
    index written so reads back every stored field and posting."""
    import pickle
    import zlib

    from reader.search.segments.writer import small_compress

    block = pickle.dumps((tuple(range(1, 129)), None, bytes(512)), 3)
    text = pickle.dumps({"id": "0" * 16, "abstract": " ".join(f"w{i % 97}x" for i in range(900))}, 2)
    for data, level in ((block, 3), (text, 6)):
        packed = small_compress(data, level)
        assert packed[0] >> 4 == 13 - 8  # the window the stream header names: 2**13 bytes
        assert zlib.decompress(packed) == data and len(packed) <= len(zlib.compress(data, level))
    docs = [doc(i, f"Paper {i}", " ".join(f"w{(i * 7 + k) % 300}x" for k in range(120))) for i in range(400)]
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(docs, stamp=1, total=len(docs))
    with index._read_lock:
        s = index._s()
        for d in docs[::37]:
            dn = document_numbers(s.reader(), [d["id"]])[d["id"]]
            assert s.stored_fields(dn)["abstract"] == d["abstract"]
    assert set(ids(index.search("w5x", limit=None))) == {d["id"] for d in docs if "w5x" in d["abstract"].split()}
    index.close()

def test_whoosh_merge_rule() -> None:
    from reader.search.segments.merging import whoosh_merges

    assert not whoosh_merges([1, 1, 1, 1])  # MERGE_SMALL needs five segments
    assert whoosh_merges([1, 1, 1, 1, 1]) and whoosh_merges([1, 1, 1, 1, 50, 400])
    assert not whoosh_merges([1, 1, 1, 1, 51, 60])  # the five smallest hold too many together
    assert whoosh_merges([1, 1, 1, 1, 1, 51, 60])


def test_settle_merges_the_smallest_segments_and_never_a_big_one(tmp_path: Path, monkeypatch) -> None:
    import reader.search.index as sidx

    monkeypatch.setattr(sidx, "SMALL_SEGMENT", 50)
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(synthetic(80), stamp=1)
    big = {s.segment_id() for s in index._ix._segments()}
    assert not index.settle()  # one big segment: nothing to do, no writer opened
    counts = []
    for i in range(30):  # one paper, changed again and again, then new ones (as CLI writes leave them)
        index.update([doc(5000 + (i if i >= 20 else 0), "x", f"marker{i}word")], stamp=2 + i)
        index.settle()
        segs = index._ix._segments()
        counts.append(len(segs))
        assert big <= {s.segment_id() for s in segs}
    assert max(counts[:20]) <= 1 + 4 and max(counts) < 1 + sidx.MERGE_AFTER_SEGMENTS, counts
    assert index.doc_count == 80 + 11 and index.stamp == 31
    assert ids(index.search("marker19word")) == [num(5000)] and ids(index.search("marker3word")) == []
    assert ids(index.search("marker25word")) == [num(5025)]
    index.close()


def test_close_settles_only_after_this_process_wrote(tmp_path: Path) -> None:
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(DOCS[:1], stamp=1)
    for i in range(5):
        index.update([doc(200 + i, "t", f"words {i}")], stamp=2 + i)
    index.close()  # it wrote: five of the six small segments are merged (MERGE_SMALL's five smallest)
    again = SearchIndex.open(tmp_path / "ix")
    assert len(again._ix._segments()) == 2 and again.doc_count == 6
    again.close()
    for i in range(5):
        w = SearchIndex.open(tmp_path / "ix")
        w.update([doc(300 + i, "t", f"more {i}")], stamp=10 + i)
        w._wrote = False  # as if another process had written these
        w.close()
    reader = SearchIndex.open(tmp_path / "ix")
    assert ids(reader.search("more")) and reader.doc_count == 11 and len(reader._ix._segments()) == 7
    reader.close()  # wrote nothing: leaves them (the window's idle merge is maintain())
    last = SearchIndex.open(tmp_path / "ix")
    assert len(last._ix._segments()) == 7
    last.close()


@pytest.mark.fast_path_only
def test_a_parallel_rebuild_deals_its_batches_in_turn(tmp_path: Path, small_parallel, monkeypatch) -> None:
    """Which papers share a segment, and their order in it, never depends on which worker was
    quicker: with one shared queue two builds of one library differed in their segments, and
    so in budget-bounded totals and tie order. Batch k goes to worker k % 2, and the index
    lists the workers' segments in their order."""
    from reader.search.paper_ids import segment_ids
    from reader.search.segments import parallel

    monkeypatch.setattr(parallel, "BATCH", 5)
    docs = synthetic(200)
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(iter(docs), stamp=1, total=len(docs))
    batches = [[d["id"] for d in docs[k:k + 5]] for k in range(0, len(docs), 5)]
    want = [[pid for b in batches[w::2] for pid in b] for w in range(2)]
    with index._read_lock:
        got = [segment_ids(leaf) for leaf, _ in index._s().reader().leaf_readers()]
    index.close()
    assert got == want
