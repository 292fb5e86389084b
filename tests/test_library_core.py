"""The Library's search index is opened on first use and kept in step; a process that wrote
leaves few index segments behind (what a script of CLI writes relies on)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from whoosh.filedb.filestore import FileStorage
from whoosh.index import TOC

from reader import cli
from reader.library import Library, View
from reader.search import index as sidx


def _segments(root: Path) -> list[int]:
    """The documents (deleted ones too) of each segment of the library's index."""
    return [s.doc_count_all() for s in TOC.read(FileStorage(str(root / "index")), "MAIN").segments]


def _cli(root: Path, *args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.run(["--data-dir", str(root), *args]) == 0
    return out.getvalue()


@pytest.fixture()
def root(tmp_path) -> Path:
    root = tmp_path / "lib"
    with Library.open(root) as lib:  # the bundled sample, indexed
        lib.sync_index()
    return root


def test_reads_of_the_store_leave_the_index_closed(root) -> None:
    with Library.open(root) as lib:
        pid = lib.paper_ids()[0]
        lib.counts(), lib.tags(), lib.rows([pid]), lib.paper(pid), lib.paper_ids(View("starred"))
        assert lib.listing("", View()).ids and lib.resolve_id(pid[:8]) == pid
        assert not lib.index_opened
        assert lib.search("is:starred").ids == []
        assert lib.index_opened


def test_a_write_opens_the_index_and_keeps_it_in_step(root) -> None:
    with Library.open(root) as lib:
        pid = lib.paper_ids()[0]
        lib.set_starred([pid], True)
        assert lib.index_opened and not lib.index_needs_sync()  # the write caught the index up
        lib.add_tags([pid], ["graphs"])
        assert lib.search("is:starred tag:graphs").ids == [pid]
    with Library.open(root) as lib:  # another process's view: opened by its first search
        assert lib.search("is:starred").ids == [pid] and not lib.index_needs_sync()


def test_a_damaged_index_is_reset_at_first_use_and_rebuilt_by_the_sync(root) -> None:
    with Library.open(root) as lib:
        pid = lib.paper_ids()[0]
        lib.set_starred([pid], True)
    for f in (root / "index").iterdir():
        if f.is_file():
            f.write_bytes(b"garbage")
    with Library.open(root) as lib:
        assert lib.counts().starred == 1 and not lib.index_opened
        assert lib.index_needs_sync() and lib.index.was_reset  # found damaged when opened
        lib.sync_index()
        assert lib.search("is:starred").ids == [pid]


def test_a_write_to_a_damaged_index_rebuilds_it(root) -> None:
    with Library.open(root) as lib:
        pid = lib.paper_ids()[0]
    for f in (root / "index").glob("*.seg"):
        f.write_bytes(b"garbage")
    _cli(root, "star", pid)  # the write's catch-up opens the index, finds it damaged, rebuilds it
    with Library.open(root) as lib:
        assert not lib.index_needs_sync() and lib.search("is:starred").ids == [pid]
        assert lib.search("attention").total > 0


def test_alternating_cli_writes_leave_at_most_five_segments(root) -> None:
    with Library.open(root) as lib:
        pid = lib.paper_ids()[0]
    counts = []
    for i in range(24):
        _cli(root, "star" if i % 2 == 0 else "unstar", pid)
        counts.append(len(_segments(root)))
    assert max(counts) <= 5, counts  # the old close merged at 10: up to 9 left for the next command
    _cli(root, "star", pid)
    assert _cli(root, "search", "is:starred").startswith(pid[:10])
    with Library.open(root) as lib:
        assert lib.search("is:starred").ids == [pid] and lib.counts().total == 56


def test_cli_writes_to_new_papers_keep_the_segments_bounded_and_searchable(root) -> None:
    with Library.open(root) as lib:
        ids = lib.paper_ids()[:40]
    counts = []
    for pid in ids:
        _cli(root, "star", pid)
        counts.append(len(_segments(root)))
    assert max(counts) < sidx.MERGE_AFTER_SEGMENTS, counts
    with Library.open(root) as lib:
        assert set(lib.search("is:starred").ids) == set(ids) and lib.index.doc_count == 56


def test_reads_and_searches_do_not_merge(root) -> None:
    with Library.open(root) as lib:
        pid = lib.paper_ids()[0]
    for i in range(4):
        _cli(root, "star" if i % 2 == 0 else "unstar", pid)
    before = _segments(root)
    _cli(root, "search", "attention")
    _cli(root, "list")
    assert _segments(root) == before


def test_a_write_opens_the_index_before_its_store_commit(root) -> None:
    # Its index commit then follows the store's within ms: a window watching the library finds
    # both in one look (and re-lists its search), as when the index was opened with the library.
    with Library.open(root) as lib:
        assert not lib.index_opened
        with lib.write_transaction():
            assert lib.index_opened
        lib.index_changed()
        assert not lib.index_needs_sync()
