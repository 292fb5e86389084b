"""An index opened by a library keeps no copy of the titles and abstracts (the database has
them: reader/search/texts.py): snippets, phrase checks and related() read them from the store
and answer exactly as an index that stores them; an index built the other way is rebuilt."""

from __future__ import annotations

import shutil
from itertools import count
from pathlib import Path

import pytest

from reader.library import Library
from reader.search import SearchIndex
from reader.search.documents import doc_fields
from reader.search.schema import analyze, pair_bucket
from reader.search.texts import TEXT_FIELDS, stores_texts
from reader.store.index_docs import iter_docs, paper_texts
from tests.search.helpers import DOCS, doc


def _source(docs: list[dict]):
    """A text source over documents, as a library's reads them (doc_fields' title and abstract)."""
    texts = {}
    for d in docs:
        f = doc_fields(d)
        texts[d["id"]] = (f.get("title", ""), f.get("abstract", ""))
    calls: list[list[str]] = []

    def source(ids):
        calls.append(list(ids))
        return {pid: texts[pid] for pid in ids if pid in texts}

    return source, calls


def _stored_fields(ix: SearchIndex) -> list[dict]:
    with ix._read_lock:
        s = ix._s()
        return [s.stored_fields(dn) for dn in range(s.doc_count_all())]


def _answers(ix: SearchIndex, queries: list[str], ids: list[str]) -> list:
    out: list = []
    for q in queries:
        r = ix.search(q, limit=20)
        out.append((q, r.total, [(h.id, round(h.score, 9), h.snippet) for h in r.hits]))
    for pid in ids:
        out.append(("related", pid, [(p, round(s, 9)) for p, s in ix.related(pid, limit=10)]))
    out.append(("more_like", [(p, round(s, 9)) for p, s in ix.more_like(ids[:3], limit=10)]))
    return out


def _queries(docs: list[dict]) -> list[str]:
    """Words, prefixes and phrases of the documents' titles and abstracts (2 and 3 words)."""
    qs: list[str] = []
    for d in docs:
        title = d["title"].split()
        abstract = (d.get("abstract") or "").split()
        qs += [" ".join(title[:2]), title[0][:4] + "*"]
        for n in (2, 3):
            if len(abstract) > 10:
                qs.append('"' + " ".join(abstract[5:5 + n]) + '"')
                qs.append('abstract:"' + " ".join(abstract[-n - 1:-1]) + '"')
            if len(title) > n:
                qs.append('title:"' + " ".join(title[1:1 + n]) + '"')
    return qs


def test_texts_source_fields_are_the_stored_ones() -> None:
    assert TEXT_FIELDS == ("title", "abstract")


def test_an_index_with_a_text_source_stores_no_texts_and_answers_the_same(tmp_path: Path) -> None:
    extra = doc(9, "Sparse attention again", "Attention maps are sparse in practice.")
    source, calls = _source([*DOCS, extra])
    stored = SearchIndex.open(tmp_path / "stored")
    lean = SearchIndex.open(tmp_path / "lean", texts=source)
    try:
        stored.rebuild(DOCS, stamp=1)
        lean.rebuild(DOCS, stamp=1)
        assert stores_texts(stored._ix) and not stores_texts(lean._ix)
        assert all(set(f) == {"id"} for f in _stored_fields(lean))
        assert any("abstract" in f for f in _stored_fields(stored))
        queries = _queries(DOCS) + ["attention", "sparse attention", '"mode connectivity"']
        ids = [d["id"] for d in DOCS]
        assert _answers(lean, queries, ids) == _answers(stored, queries, ids)
        assert calls, "the texts were read from the source"
        # An update (Whoosh's own writer) stores none either.
        lean.update([extra], stamp=2)
        stored.update([extra], stamp=2)
        assert all(set(f) == {"id"} for f in _stored_fields(lean))
        assert _answers(lean, queries, ids) == _answers(stored, queries, ids)
    finally:
        stored.close()
        lean.close()


def test_a_phrase_candidate_is_checked_against_the_library_text(tmp_path: Path) -> None:
    """A rare pair shares its hashed term with others: the candidate having both words, not
    side by side, is dropped by reading its text from the source."""
    target = pair_bucket(" ".join(analyze("kappa lambda")))
    n = next(i for i in count() if pair_bucket(" ".join(analyze(f"zq{i} xw{i}"))) == target)
    docs = [doc(1, "First", "Here kappa lambda appear together."),
            doc(2, "Second", f"Lambda comes first, then kappa; zq{n} xw{n}."),
            doc(3, "Third", "Nothing related at all.")]
    source, calls = _source(docs)
    lean = SearchIndex.open(tmp_path / "lean", texts=source)
    try:
        lean.rebuild(docs, stamp=1)
        calls.clear()
        assert [h.id for h in lean.search('"kappa lambda"').hits] == [docs[0]["id"]]
        assert calls, "the candidates' texts were read"
    finally:
        lean.close()


def test_a_library_index_keeps_no_texts_and_answers_as_a_stored_one(lib: Library,
                                                                    tmp_path: Path) -> None:
    docs = list(iter_docs(lib._reader()))
    assert len(docs) > 20
    ix = lib.index
    assert not stores_texts(ix._ix)
    assert all(set(f) == {"id"} for f in _stored_fields(ix))
    stored = SearchIndex.open(tmp_path / "stored")
    lean = SearchIndex.open(tmp_path / "lean", texts=lib._texts)
    try:
        stored.rebuild(docs, stamp=1)
        lean.rebuild(docs, stamp=1)
        queries = _queries(docs)
        ids = [d["id"] for d in docs]
        assert _answers(lean, queries, ids) == _answers(stored, queries, ids)
        # The library's own index (built by its sync) gives the same snippets and phrases.
        for q in queries:
            mine, theirs = ix.search(q, limit=20), stored.search(q, limit=20)
            assert [(h.id, h.snippet) for h in mine.hits] == [(h.id, h.snippet) for h in theirs.hits], q
    finally:
        stored.close()
        lean.close()


def test_paper_texts_are_what_the_index_was_given(lib: Library) -> None:
    docs = {d["id"]: d for d in iter_docs(lib._reader())}
    read = paper_texts(lib._reader(), [*docs, "no-such-paper"])
    assert set(read) == set(docs)
    for pid, d in docs.items():
        f = doc_fields(d)
        assert read[pid] == (f.get("title", ""), f.get("abstract", ""))


def test_derived_title_reads_as_no_title(lib: Library) -> None:
    conn = lib._reader()
    row = conn.execute("SELECT id FROM papers LIMIT 1").fetchone()
    with lib._wdb.atomic():
        lib._wconn.execute("UPDATE papers SET title_source = 'derived' WHERE id = ?", [row[0]])
    assert paper_texts(conn, [row[0]])[row[0]][0] == ""


@pytest.mark.parametrize("direction", ["stored-to-library", "library-to-standalone"])
def test_an_index_built_the_other_way_is_reset(tmp_path: Path, direction: str) -> None:
    root = tmp_path / "lib"
    lib = Library.open(root)
    lib.sync_index()
    docs = list(iter_docs(lib._reader()))
    stamp = lib.index.stamp
    phrase = '"' + " ".join(docs[0]["abstract"].split()[2:4]) + '"'
    some = [(h.id, h.snippet) for h in lib.index.search(phrase).hits]
    assert some and all(snippet for _, snippet in some)
    index_dir = lib.paths.index_dir
    lib.close()
    if direction == "library-to-standalone":
        ix = SearchIndex.open(index_dir)  # would read no texts: reset, never a wrong answer
        assert ix.was_reset and "library" in (ix.reset_reason or "") and ix.doc_count == 0
        ix.close()
        return
    # An index from before: the same documents, each with its title and abstract stored.
    shutil.rmtree(index_dir)
    old = SearchIndex.open(index_dir)
    old.rebuild(docs, stamp=stamp)
    old.close()
    lib = Library.open(root)
    try:
        ix = lib.index
        assert ix.was_reset and "own copy" in (ix.reset_reason or "")
        lib.sync_index()
        ix = lib.index
        assert ix.doc_count == len(docs)
        assert all(set(f) == {"id"} for f in _stored_fields(ix))
        assert [(h.id, h.snippet) for h in ix.search(phrase).hits] == some
    finally:
        lib.close()


def test_a_page_of_snippets_reads_the_library_once(tmp_path: Path) -> None:
    source, calls = _source(DOCS)
    lean = SearchIndex.open(tmp_path / "lean", texts=source)
    try:
        lean.rebuild(DOCS, stamp=1)
        r = lean.search("sparse")
        calls.clear()
        snippets = [h.snippet for h in r.hits]
        assert len(snippets) >= 3 and all("<b>" in s for s in snippets)
        assert len(calls) == 1 and sorted(calls[0]) == sorted(h.id for h in r.hits)
    finally:
        lean.close()
