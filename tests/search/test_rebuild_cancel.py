"""A rebuild cancelled once its documents are written leaves the index folder as it was: not a
file of the half-built segment behind (the fast writer's cancel left three per Cancel)."""

from __future__ import annotations

from pathlib import Path

from reader.search import SearchIndex

from .helpers import DOCS, doc, ids, num


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_a_rebuild_cancelled_after_its_documents_leaves_no_file_behind(tmp_path: Path) -> None:
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(DOCS, stamp=3, total=len(DOCS))
    before = _files(tmp_path / "ix")
    asked: list[int] = []

    def cancelled() -> bool:  # asked before the first document and again before the commit
        asked.append(1)
        return len(asked) > 1

    other = [doc(90 + i, f"other {i}", "other words entirely") for i in range(5)]
    index.rebuild(other, stamp=50, total=len(other), cancelled=cancelled)
    assert len(asked) >= 2  # the documents were written, then the cancel came
    assert index.doc_count == len(DOCS) and index.stamp == 3
    assert ids(index.search("sparse attention"))[0] == num(1)
    assert _files(tmp_path / "ix") == before
    index.close()
