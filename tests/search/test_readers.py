"""reader/search/readers.py: after a commit, only the segments it made or changed are opened;
the others' readers are kept, and searches answer as on a freshly opened index."""

from __future__ import annotations

from pathlib import Path

import pytest
from whoosh import reading

from reader.search import SearchIndex

from .helpers import DOCS, doc, ids, num

QUERIES = ("sparse attention", "attention", '"mode connectivity"', "is:starred", "note:n7", "kernels OR graph")


def _leaves(index: SearchIndex) -> dict[str, object]:
    return {leaf.segment().segment_id(): leaf for leaf, _ in index._s().reader().leaf_readers()}


def _answers(index: SearchIndex) -> list[list[str]]:
    return [ids(index.search(q, limit=None)) for q in QUERIES]


@pytest.fixture
def opened(monkeypatch) -> list[str]:
    """The segment ids of every SegmentReader opened from now on (Whoosh's or ours)."""
    seen: list[str] = []
    real = reading.SegmentReader.__init__

    def counting(self, storage, schema, segment, *args, **kwargs):
        seen.append(segment.segment_id())
        real(self, storage, schema, segment, *args, **kwargs)

    monkeypatch.setattr(reading.SegmentReader, "__init__", counting)
    return seen


def _index_of_segments(tmp_path: Path, n: int) -> SearchIndex:
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(DOCS, stamp=1)
    for i in range(n):  # one small segment each
        index.update([doc(100 + i, f"Paper {i}", f"kernels and graph number {i}")], stamp=2 + i)
    return index


def test_a_change_opens_only_the_segments_it_made_or_changed(tmp_path: Path, opened: list[str]) -> None:
    index = _index_of_segments(tmp_path, 8)
    before = _leaves(index)
    assert len(before) == 9
    big = next(s for s, leaf in before.items() if leaf.doc_count_all() == len(DOCS))  # type: ignore[attr-defined]
    opened.clear()
    index.update([dict(DOCS[1], note="n7")], stamp=20)  # its old document is in the big segment
    after = _leaves(index)
    changed = {s for s in after if s not in before}
    assert len(changed) == 1  # the new one-document segment
    # Opened: the big segment, whose deletions changed, and the new segment (the writer's view
    # of the old documents reused every reader). Whoosh's opened all 9 segments, then 10.
    assert sorted(opened) == sorted([big, *changed]), opened
    kept = [s for s in before if s != big]
    assert all(after[s] is before[s] for s in kept)
    assert after[big] is not before[big] and before[big].is_closed  # (its deletions changed)
    fresh = SearchIndex.open(tmp_path / "ix")
    assert _answers(index) == _answers(fresh) and ids(index.search("note:n7")) == [num(2)]
    assert index.doc_count == fresh.doc_count == len(DOCS) + 8
    fresh.close()
    index.close()


def test_after_a_merge_and_a_rebuild_no_reader_of_a_removed_segment_is_kept(tmp_path: Path) -> None:
    index = _index_of_segments(tmp_path, 12)
    before = _leaves(index)
    assert index.maintain()  # the small segments merged into one
    after = _leaves(index)
    gone = [before[s] for s in before if s not in after]
    assert gone and all(leaf.is_closed for leaf in gone)
    assert all(not leaf.is_closed for leaf in after.values())
    fresh = SearchIndex.open(tmp_path / "ix")
    assert _answers(index) == _answers(fresh)
    assert ids(index.search("kernels", limit=None)).count(num(105)) == 1  # no duplicate hits
    fresh.close()
    index.rebuild(DOCS[:3], stamp=40)  # CLEAR: every segment new
    assert all(leaf.is_closed for leaf in after.values()) and index.doc_count == 3
    assert set(_leaves(index)).isdisjoint(after)
    index.close()


def test_a_change_made_by_another_process_is_seen(tmp_path: Path) -> None:
    """The index changed under this one (a CLI command): the writer's view and the new searcher
    come from the index's latest commit, not from this searcher's segments."""
    index = _index_of_segments(tmp_path, 3)
    other = SearchIndex.open(tmp_path / "ix")
    other.update([dict(DOCS[0], note="from elsewhere")], stamp=30)
    other.close()
    index.update([dict(DOCS[0], note="n7")], stamp=31)  # the other's document replaced, not kept
    fresh = SearchIndex.open(tmp_path / "ix")
    assert _answers(index) == _answers(fresh)
    assert ids(index.search("note:n7")) == [num(1)] and ids(index.search("elsewhere")) == []
    assert index.doc_count == fresh.doc_count == len(DOCS) + 3
    fresh.close()
    index.close()


def test_a_segment_that_cannot_be_opened_leaves_nothing_open_and_a_vanished_one_is_retried(
        tmp_path: Path, monkeypatch) -> None:
    from reader.search import readers

    index = _index_of_segments(tmp_path, 3)
    made: list[reading.SegmentReader] = []
    real = readers.SegmentReader

    def failing_third(storage, schema, segment, **kwargs):
        if len(made) == 2:
            raise FileNotFoundError(f"{segment.segment_id()}.seg")
        made.append(real(storage, schema, segment, **kwargs))
        return made[-1]

    monkeypatch.setattr(readers, "SegmentReader", failing_third)
    with pytest.raises(FileNotFoundError):
        readers.open_latest(index._ix, None, attempts=1)
    assert len(made) == 2 and all(r.is_closed for r in made)

    calls = []
    real_open = readers.open_segments

    def vanished_once(*args):
        calls.append(1)
        if len(calls) == 1:
            raise FileNotFoundError("merged away by another process")
        return real_open(*args)

    monkeypatch.setattr(readers, "SegmentReader", real)
    monkeypatch.setattr(readers, "open_segments", vanished_once)
    opened = readers.open_latest(index._ix, index._s())
    assert len(calls) == 2 and opened.reader.doc_count() == index.doc_count
    index.close()
