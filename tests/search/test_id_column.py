"""A bulk-built segment writes no `id` terms (~4% of its size): papers are found by the id
column (paper_ids.document_numbers) to replace, delete, restrict, relate and snippet them, in
bulk-built segments and in those Whoosh's own writer adds (issue 31, item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reader.search import SearchIndex
from reader.search.paper_ids import document_numbers
from reader.search.segments import fastpath, rawread

from .helpers import doc, ids
from .test_index import synthetic


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch):
    import reader.search.rebuild as build

    monkeypatch.setattr(build, "PARALLEL_MIN_DOCS", 10)  # two processes: two segments
    monkeypatch.setenv(fastpath.ENV, "1")
    fastpath.reset()
    if not fastpath.enabled():
        pytest.skip("checks the fast path itself")
    yield
    fastpath.reset()


def _bulk(path: Path, docs: list[dict], procs: int = 1) -> SearchIndex:
    index = SearchIndex.open(path)
    index.rebuild_procs = procs
    index.rebuild(docs, stamp=1)
    return index


def test_a_bulk_build_writes_no_id_terms(tmp_path: Path, fast) -> None:
    docs = synthetic(150)
    index = _bulk(tmp_path / "ix", docs)
    with index._read_lock:
        [(leaf, _)] = index._s().reader().leaf_readers()
        assert rawread.lexicon(leaf, "id") == {}  # 2a1ad0b: 150 terms
        assert list(leaf.column_reader("id")) == [d["id"] for d in docs]
    index.close()


def test_papers_are_replaced_and_deleted_by_the_id_column(tmp_path: Path, fast) -> None:
    """Bulk-built segments (two, from two processes) and Whoosh's own (updates): a replaced
    paper is found once with its new text, a deleted one not at all, repeatedly."""
    docs = synthetic(400)
    index = _bulk(tmp_path / "ix", docs, procs=2)
    index.rebuild_procs = 1
    target, other = docs[3], docs[250]
    for round_ in range(3):
        changed = [dict(target, abstract=f"zebrafish{round_} " + target["abstract"]),
                   dict(other, title=f"okapi{round_} title")]
        index.update(changed, deleted=[docs[10 + round_]["id"]], stamp=2 + round_)
        assert ids(index.search(f"zebrafish{round_}")) == [target["id"]]
        assert ids(index.search(f"okapi{round_}")) == [other["id"]]
        if round_:
            assert ids(index.search(f"zebrafish{round_ - 1}")) == []
        assert index.doc_count == 400 - (round_ + 1)
        with index._read_lock:
            s = index._s()
            found = document_numbers(s.reader(), [d["id"] for d in docs])
            assert set(found) == {d["id"] for d in docs} - {docs[10 + k]["id"] for k in range(round_ + 1)}
            assert s.stored_fields(found[target["id"]])["abstract"].startswith(f"zebrafish{round_} ")
    # a paper deleted and added again is found (its old, deleted document is not)
    index.update([], deleted=[target["id"]], stamp=10)
    assert ids(index.search("zebrafish2")) == []
    index.update([dict(target, abstract="narwhal " + target["abstract"])], stamp=11)
    assert ids(index.search("narwhal")) == [target["id"]]
    index.close()


def test_restrict_related_and_snippets_find_bulk_built_papers(tmp_path: Path, fast) -> None:
    docs = [doc(i, f"Paper {i}", f"sparse attention kernels w{i % 7}x and graphs") for i in range(300)]
    index = _bulk(tmp_path / "ix", docs, procs=2)
    some = {docs[5]["id"], docs[200]["id"], "not-a-paper"}
    assert set(ids(index.search("sparse", restrict=some))) == some - {"not-a-paper"}
    assert index.related(docs[5]["id"])  # its stored text found through the column
    r = index.search("sparse")
    index.update([dict(docs[1], title="Changed")], stamp=2)  # a new searcher: snippets by id
    assert all("sparse" in h.snippet for h in r.hits[:5])
    index.close()


def test_a_few_ids_are_found_by_terms_where_a_segment_has_them(tmp_path: Path) -> None:
    """Related papers for the one in the pane (J/K) ask for one id: a segment with id terms
    (Whoosh's own, an older bulk build) answers by them, not by reading its whole id list
    (~0.15 s per 50k, inside the index's read lock, in the middle of J/K); the answers agree."""
    from reader.search import paper_ids

    index = SearchIndex.open(tmp_path / "ix")
    docs = synthetic(120)
    index.update(docs, stamp=1)  # Whoosh's own writer: id terms
    index.update([dict(docs[5], title="replaced title")], deleted=[docs[7]["id"]], stamp=2)
    with index._read_lock:
        reader = index._s().reader()
        segments = {leaf.segment().segment_id() for leaf, _ in reader.leaf_readers()}
        for sid in segments:
            paper_ids._seg_ids.pop(sid, None)
            paper_ids._seg_numbers.pop(sid, None)
        few = [docs[5]["id"], docs[7]["id"], docs[40]["id"], "no-such-paper"]
        found = document_numbers(reader, few)
        assert not segments & set(paper_ids._seg_ids)  # 2a1ad0b's code read every id list
        whole = document_numbers(reader, [d["id"] for d in docs])  # many: by the id lists
        assert segments <= set(paper_ids._seg_ids)
        assert found == {pid: whole[pid] for pid in few if pid in whole}
        assert set(found) == {docs[5]["id"], docs[40]["id"]}
        assert index._s().stored_fields(found[docs[5]["id"]])["title"] == "replaced title"
    index.close()
