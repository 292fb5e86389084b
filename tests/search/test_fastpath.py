"""The guarded Whoosh fast path (reader/search/segments/fastpath.py): the same index built and read
with it and through Whoosh's public API gives the same hits, order and scores; on another
Whoosh, or when its self-check fails, the public API is used with one log line."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from reader.search import SearchIndex
from reader.search.paper_ids import document_numbers
from reader.search.segments import fastpath, rawread

from .helpers import CORPUS, DOCS, doc
from .test_index import synthetic

pytestmark = pytest.mark.fast_path_only  # each test sets the mode it needs itself
PAIR_SAMPLE = 500  # the documents the writers choose frequent word pairs on, in the equivalence test

SYNTHETIC_QUERIES = [
    "sparse attention", "attention", "graph neural", "policy gradient robot", "kernel loss landscape",
    '"neural network"', '"mode connectivity graph"', "atention~", "graph*", "title:kernel",
    "is:starred robot", '"ann lee1"', "-policy loss", "tag:rl transformer", "author:lee2",
    "title:(sparse OR dense) AND abstract:model", "[a TO c]", "quantized model layer",
]


@pytest.fixture
def mode(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """mode(True/False): switch the fast path for what follows."""

    def switch(on: bool) -> None:
        monkeypatch.setenv(fastpath.ENV, "1" if on else "0")
        fastpath.reset()
        assert fastpath.enabled() is on

    yield switch
    fastpath.reset()


def _corpus(n: int) -> list[dict]:
    path = CORPUS / "ml_conference_corpus" / "papers.jsonl"
    if not path.exists():
        return []
    out = []
    with path.open(encoding="utf-8") as f:
        for i, line in zip(range(n), f, strict=False):
            r = json.loads(line)
            out.append(doc(50_000 + i, r.get("title") or "", r.get("abstract") or "",
                           year=r.get("year"), venue=r.get("venue") or "",
                           authors="; ".join(r.get("authors") or []),
                           tags=list(r.get("keywords") or [])[:3], starred=i % 9 == 0))
    return out


def _corpus_queries(docs: list[dict], every: int) -> list[tuple[str, bool]]:
    """(query, as you type) from every `every`-th title: ranked words, a prefix being typed, a
    phrase, a field."""
    out: list[tuple[str, bool]] = []
    for d in docs[::every]:
        words = [w for w in d["title"].replace('"', " ").split() if w.isalpha()]
        if len(words) < 3:
            continue
        out += [(" ".join(words[:3]), False), (f"{words[0]} {words[1][:3]}", True),
                (f'"{words[1]} {words[2]}"', False), (f"title:{words[0]} {words[2]}", False)]
    return out


def _build(path: Path, docs: list[dict], fast: bool, mode) -> SearchIndex:
    mode(fast)
    index = SearchIndex.open(path)
    index.rebuild_procs = 1  # one segment each: the pair choices (and so scores) are comparable
    index.rebuild(docs, stamp=1)
    return index


def _hits(index: SearchIndex, q: str, as_you_type: bool) -> list[tuple[str, float]]:
    r = index.search(q, limit=None, as_you_type=as_you_type)
    assert r.problem is None or "failed" not in r.problem, (q, r.problem)
    return [(h.id, h.score) for h in r.hits]


def _same(a: list[tuple[str, float]], b: list[tuple[str, float]], what: str) -> None:
    assert [i for i, _ in a] == [i for i, _ in b], what
    for (_, x), (_, y) in zip(a, b, strict=True):
        assert math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-9), what


def test_fast_and_public_paths_give_the_same_results(tmp_path: Path, mode, monkeypatch) -> None:
    # Past PAIR_SAMPLE_DOCS documents, so word pairs are chosen on a sample as in real builds;
    # both writers' sample is made smaller (2,000 in Reader) to keep the two builds short.
    from reader.search import rebuild
    from reader.search.segments import writer

    for module in (rebuild, writer):
        monkeypatch.setattr(module, "PAIR_SAMPLE_DOCS", PAIR_SAMPLE)
    sample = _corpus(700)
    docs = DOCS + synthetic(150 if sample else 850) + sample
    assert len(docs) > PAIR_SAMPLE
    queries = [(q, False) for q in SYNTHETIC_QUERIES] + [(q, True) for q in ("spars", "graph n", "a")]
    queries += _corpus_queries(docs, every=37)
    fast = _build(tmp_path / "fast", docs, True, mode)
    want = {q: _hits(fast, *q) for q in queries}
    related = {d["id"]: fast.related(d["id"]) for d in docs[::83]}
    liked = fast.more_like([d["id"] for d in docs[7:400:40]], limit=20)
    fast.close()
    public = _build(tmp_path / "public", docs, False, mode)  # read through the public API too
    for q in queries:
        _same(_hits(public, *q), want[q], str(q))
    for pid, found in related.items():
        _same(public.related(pid), found, f"related to {pid}")
    _same(public.more_like([d["id"] for d in docs[7:400:40]], limit=20), liked, "more like")
    assert sum(bool(h) for h in want.values()) > len(queries) * 0.8  # the queries do find papers
    public.close()


def test_updates_and_imports_read_the_same_either_way(tmp_path: Path, mode) -> None:
    """Segments written by Whoosh's own writer (updates) read raw and through the API alike."""
    docs = synthetic(300)
    index = _build(tmp_path / "ix", docs[:200], True, mode)
    for i in range(0, 100, 25):
        index.update(docs[200 + i:225 + i], deleted=[docs[i]["id"]], stamp=2 + i)
    queries = [(q, False) for q in SYNTHETIC_QUERIES]
    want = {q: _hits(index, *q) for q in queries}
    mode(False)
    for q in queries:
        _same(_hits(index, *q), want[q], str(q))
    index.close()


def test_another_whoosh_version_falls_back_with_one_log_line(tmp_path: Path, mode, monkeypatch,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    from reader.search.segments import writer

    mode(True)
    monkeypatch.setattr(fastpath, "WHOOSH_VERSION", "2.7.4")
    monkeypatch.setattr(writer.BulkWriter, "__init__", _never)  # the public writer only
    fastpath.reset()
    with caplog.at_level(logging.INFO, logger="reader.search.segments.fastpath"):
        index = SearchIndex.open(tmp_path / "ix")
        index.rebuild(DOCS * 1, stamp=1)
        assert index.search("sparse attention").hits[0].id == DOCS[0]["id"]
        index.search("graph")
        index.related(DOCS[0]["id"])
        index.close()
    lines = [r for r in caplog.records if r.name == "reader.search.segments.fastpath"]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    assert "2.7.5" in lines[0].getMessage() and "public API" in lines[0].getMessage()


def test_the_switch_turns_it_off_with_one_line(mode, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="reader.search.segments.fastpath"):
        mode(False)
        assert not fastpath.enabled() and not fastpath.enabled()
    assert [r.levelno for r in caplog.records if r.name == "reader.search.segments.fastpath"] == [logging.INFO]


def test_the_self_check_catches_a_changed_format(monkeypatch: pytest.MonkeyPatch) -> None:
    assert fastpath.probe() is None
    real = rawread.lexicon

    def drifted(leaf, fieldname):  # as if another layout read one term short
        out = real(leaf, fieldname)
        out.pop(next(iter(out)), None)
        return out

    monkeypatch.setattr(rawread, "lexicon", drifted)
    assert "differ" in (fastpath.probe() or "")
    monkeypatch.setattr(rawread, "lexicon", real)
    monkeypatch.setattr(rawread, "TERMINFO_FORMAT", "!BfIBBfIIx")
    assert "self-check failed" in (fastpath.probe() or "")


def test_a_raw_read_that_fails_is_read_through_the_api(tmp_path: Path, mode, monkeypatch) -> None:
    index = _build(tmp_path / "ix", synthetic(300), True, mode)
    want = [(q, _hits(index, q, False)) for q in SYNTHETIC_QUERIES]
    index.close()
    index = _build(tmp_path / "again", synthetic(300), True, mode)  # cold caches

    def broken(*_a, **_k):
        raise rawread.RawReadError("not this layout")

    for name in ("lexicon", "postings_at", "length_bytes", "matcher_blocks"):
        monkeypatch.setattr(rawread, name, broken)
    for q, hits in want:
        _same(_hits(index, q, False), hits, q)
    index.close()


def _never(*_a, **_k) -> None:
    raise AssertionError("the bulk writer ran with the fast path off")


@pytest.mark.fast_path_only
def test_self_check_keeps_to_a_temp_folder_of_its_own(tmp_path, monkeypatch) -> None:
    """Whoosh's RAM writers spill to <tmp>/MAIN.tmp: another process's self-check deleting that
    folder mid-check turned this process's fast path off. Here another process's file holds
    the name: the check must neither fail on it nor touch it."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    (tmp_path / "MAIN.tmp").write_text("another process's", encoding="utf-8")
    assert fastpath.round_trip() is None
    assert (tmp_path / "MAIN.tmp").read_text(encoding="utf-8") == "another process's"
    # and it leaves nothing behind (each start used to leave an empty spill folder in /tmp)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["MAIN.tmp"]


def test_terms_of_one_document_are_inlined_read_raw_and_merged_by_whoosh(tmp_path: Path, mode) -> None:
    """The bulk writer inlines a one-document term's posting in the terms table (no block in
    the postings file); raw reads, Whoosh's public API and a Whoosh merge all read it."""
    from whoosh.codec.whoosh3 import W3TermInfo

    docs = synthetic(119) + [doc(99_001, "Quokka", "The xylophonic quokka hops.")]
    index = _build(tmp_path / "ix", docs, True, mode)
    with index._read_lock:
        [(leaf, _)] = index._s().reader().leaf_readers()
        assert rawread.lexicon(leaf, "id") == {}  # ids are found by the id column (writer.UNINDEXED)
        info = leaf.term_info("abstract", "xylophon")
        assert isinstance(info, W3TermInfo) and info.is_inlined()
        words = rawread.lexicon(leaf, "abstract")
        assert any(o < -1 for _, o, _ in words.values()) and any(o >= 0 for _, o, _ in words.values())
        for term, (df, offset, length) in words.items():
            m = leaf.postings("abstract", term)
            public = []
            while m.is_active():
                public.append((m.id(), m.weight()))
                m.next()
            read = rawread.inlined_at(leaf, offset, length) if offset < -1 else rawread.postings_at(leaf, offset, length)
            assert list(zip(*read, strict=True)) == public and len(public) == df
    more = synthetic(130)[119:129]
    index.update(more, stamp=2)  # a segment of Whoosh's own writer
    with index._ix.writer() as w:  # Whoosh's merge copies every posting, inlined ones too
        w.optimize = True
    assert len(index._ix._segments()) == 1
    index.close()
    again = SearchIndex.open(tmp_path / "ix")
    assert again.doc_count == 130
    with again._read_lock:
        s = again._s()
        found = document_numbers(s.reader(), [d["id"] for d in docs + more])
        assert len(found) == 130 and all(s.stored_fields(n)["id"] == pid for pid, n in found.items())
    again.close()


def test_terms_of_a_few_documents_are_inlined_and_read_alike(tmp_path: Path, mode) -> None:
    """Issue 31 (disk): terms in two to INLINE_MAX documents keep their postings in the terms
    table too (a block cost ~50 bytes more); raw reads and Whoosh's public API read the same
    documents and weights, and searches for them find what Whoosh's own writer's index finds."""
    from whoosh.codec.whoosh3 import W3TermInfo

    from reader.search.segments.writer import INLINE_MAX

    assert INLINE_MAX >= 4
    extra = [doc(99_000 + i, f"Wombat study {i}", f"The burrowing wombat{'s' * (i % 2)} digs {i} tunnels."
                 + (" A wombat rests." if i == 0 else "")) for i in range(4)]
    docs = synthetic(119) + extra
    index = _build(tmp_path / "ix", docs, True, mode)
    with index._read_lock:
        [(leaf, _)] = index._s().reader().leaf_readers()
        words = rawread.lexicon(leaf, "abstract")
        df, offset, length = words["wombat"]
        assert df == 4 and offset < -1  # inlined, not a block
        assert leaf.term_info("abstract", "wombat").is_inlined()
        few = [(t, e) for t, e in words.items() if 2 <= e[0] <= INLINE_MAX]
        assert few and all(o < -1 for _, (_, o, _) in few)
        assert any(o >= 0 for _, o, _ in words.values())  # common words still in blocks
        for term, (df, offset, length) in few:
            m = leaf.postings("abstract", term)
            public = []
            while m.is_active():
                public.append((m.id(), m.weight()))
                m.next()
            assert list(zip(*rawread.inlined_at(leaf, offset, length), strict=True)) == public and len(public) == df
            info = leaf.term_info("abstract", term)
            assert isinstance(info, W3TermInfo) and info.doc_frequency() == df
            assert info.weight() == sum(w for _, w in public) and info.max_weight() == max(w for _, w in public)
    queries = ("wombat", '"burrowing wombat"', "wombat digs", "title:wombat")
    fast = [_hits(index, q, False) for q in queries]
    assert len(fast[0]) == 4
    public_ix = _build(tmp_path / "pub", docs, False, mode)
    for q, hits in zip(queries, fast, strict=True):
        _same(hits, _hits(public_ix, q, False), q)
    index.close()
    public_ix.close()
