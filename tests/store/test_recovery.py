"""The rescue routine on damaged pages of different kinds (leaf, interior, index, overflow)."""

from __future__ import annotations

import sqlite3

import pytest

from reader.store.recovery import rescue, scan_table

from .damaging import overwrite_page, table_leaves


def _rootpage(db, name):
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", [name]).fetchone()[0]
    finally:
        conn.close()


def test_a_damaged_index_page_loses_no_row(library, tmp_path):
    """Rows are read from the tables' own B-trees; index pages are not needed."""
    root, info = library
    db = root / "library.sqlite3"
    overwrite_page(db, _rootpage(db, "papers_added"))
    result = rescue(db, tmp_path / "out")
    papers = result.table("papers")
    assert papers is not None and papers.recovered == len(info["papers"]) and not papers.lost_ranges


@pytest.mark.parametrize("with_index", [True, False])
def test_scan_skips_each_damaged_leaf_exactly(library, with_index):
    root, info = library
    db = root / "library.sqlite3"
    leaves = table_leaves(db, "papers")
    # first, middle and last leaf; without an index to list the rowids, the last one would cost
    # the whole probe budget (see PROBE_BUDGET), so that case damages the first and middle ones
    hit = [leaves[0], leaves[len(leaves) // 2]] + ([leaves[-1]] if with_index else [])
    for n, (pageno, _) in enumerate(hit):
        overwrite_page(db, pageno, seed=n)
    known = sorted(info["rowids"].values())
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows, lost = scan_table(conn, "papers", ["id", "title"], (lambda: known) if with_index else (lambda: None))
    finally:
        conn.close()
    lost_rowids = {r for _, rowids in hit for r in rowids}
    assert {r[0] for r in rows} == set(info["rowids"].values()) - lost_rowids
    assert len(lost) == len(hit)
    by_id = {p["id"]: p for p in info["papers"].values()}
    assert all(r[2] == by_id[r[1]]["title"] for r in rows)


def test_a_damaged_root_page_loses_the_table_but_says_what_and_keeps_notes_aside(library, tmp_path):
    """The papers root is an interior page (the table has hundreds of leaves): nothing below it can be
    reached, so every paper is lost — counted and named from the id index — and their notes, tags and
    highlights go to the orphans file instead of being dropped."""
    import json

    root, info = library
    db = root / "library.sqlite3"
    assert len(table_leaves(db, "papers")) > 1
    overwrite_page(db, _rootpage(db, "papers"))
    result = rescue(db, tmp_path / "out")
    papers = result.table("papers")
    assert papers is not None and papers.recovered == 0 and papers.lost == len(info["papers"])
    assert sorted(papers.lost_keys) == sorted(info["papers"])
    assert result.orphans_file is not None
    orphans = json.loads(result.orphans_file.read_text(encoding="utf-8"))
    notes = {r["paper_id"]: r["body"] for r in orphans["notes"]}
    assert notes == {pid: p["note"] for pid, p in info["papers"].items() if p["note"]}
    assert {r["tag"] for r in orphans["paper_tags"]} == {"baseline", "method", "survey", "to-read"}


def test_tags_lost_from_their_table_are_rebuilt_from_the_index(library, tmp_path):
    """tags(id, name) is wholly held by its UNIQUE(name) index: a damaged table page loses no tag."""
    root, info = library
    db = root / "library.sqlite3"
    overwrite_page(db, _rootpage(db, "tags"))
    result = rescue(db, tmp_path / "out")
    tags = result.table("tags")
    assert tags is not None and tags.from_index == 4 and tags.lost == 0
    conn = sqlite3.connect(result.dest)
    try:
        assert sorted(r[0] for r in conn.execute("SELECT name FROM tags")) == ["baseline", "method", "survey", "to-read"]
        assert conn.execute("SELECT count(*) FROM paper_tags").fetchone()[0] == sum(
            len(p["tags"]) for p in info["papers"].values())
    finally:
        conn.close()


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_the_orphans_file_is_never_written_over_a_fifo_or_a_folder(library, tmp_path, kind):
    """The orphans file goes through reader/output_files.py: something that is not a regular file
    at its name is refused in one line before any work, and nothing is left in the folder."""
    import os

    from reader.errors import ReaderError
    from reader.store.recovery import ORPHANS_FILE

    root, _ = library
    db = root / "library.sqlite3"
    overwrite_page(db, _rootpage(db, "papers"))  # every paper lost: their notes are orphans
    out = tmp_path / "out"
    out.mkdir()
    target = out / ORPHANS_FILE
    os.mkfifo(target) if kind == "fifo" else target.mkdir()
    with pytest.raises(ReaderError) as info:
        rescue(db, out)
    assert str(target) in str(info.value) and "\n" not in str(info.value)
    assert sorted(p.name for p in out.iterdir()) == [ORPHANS_FILE]  # no library, no partial file


def test_the_orphans_file_is_written_through_a_symlink_and_atomically(library, tmp_path):
    import json

    from reader.store.recovery import ORPHANS_FILE

    root, _ = library
    db = root / "library.sqlite3"
    overwrite_page(db, _rootpage(db, "papers"))
    out = tmp_path / "out"
    out.mkdir()
    kept = tmp_path / "kept-orphans.json"
    kept.write_text("old", encoding="utf-8")
    (out / ORPHANS_FILE).symlink_to(kept)
    result = rescue(db, out)
    assert (out / ORPHANS_FILE).is_symlink() and json.loads(kept.read_text(encoding="utf-8"))["notes"]
    assert result.orphans_file == out / ORPHANS_FILE
    assert not [p for p in out.iterdir() if p.name.endswith((".tmp", ".partial"))]


def test_two_rescues_into_one_folder_never_share_a_partial_file(library, tmp_path):
    """The partial library file has a unique name: a rescue that starts while another runs (or
    after one was killed) never opens the other's half-written file."""
    import reader.store.recovery as recovery

    root, _ = library
    db = root / "library.sqlite3"
    out = tmp_path / "out"
    out.mkdir()
    stale = out / ".library.sqlite3.partial"  # the old fixed name, as another rescue holds it
    stale.write_bytes(b"another rescue's pages")
    result = recovery.rescue(db, out)
    assert stale.read_bytes() == b"another rescue's pages"
    assert result.dest == out / "library.sqlite3" and result.table("papers").recovered > 0
