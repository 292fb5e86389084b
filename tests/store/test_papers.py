"""reader.store.papers: rows, full papers, flags, titles, write-back and deletion."""

from __future__ import annotations

import dataclasses
import sqlite3

import pytest

from reader.models import Highlight, HighlightColour, Paper, TitleSource
from reader.store import highlights, map_rows, notes, tags
from reader.store import papers as q
from reader.store.index_docs import docs_for_ids

from .conftest import IDS, row


def test_papers_full_in_the_order_asked_and_unknown_skipped(conn):
    found = q.papers_full(conn, [IDS[2], "ffffffffffffffff", IDS[0]])
    assert [p.id for p in found] == [IDS[2], IDS[0]]
    p = found[1]
    assert isinstance(p, Paper)
    assert (p.title, p.title_source, p.authors, p.year, p.read) == ("Alpha", TitleSource.IMPORTED, ["Ann Lee"], 2025, False)
    assert (p.note, p.note_updated_at, p.highlights, p.tags) == ("", None, [], [])


def test_rows_carry_tags_and_note_flag(conn):
    tags.add(conn, [IDS[0]], "ml")
    notes.set_note(conn, IDS[0], "a note")
    rows = q.rows(conn, IDS)
    assert rows[IDS[0]].tags == ("ml",) and rows[IDS[0]].has_note
    assert rows[IDS[1]].tags == () and not rows[IDS[1]].has_note


def test_counts_and_collections(conn):
    q.set_flag(conn, "starred", [IDS[0], IDS[1]], True, seq=2)
    q.set_flag(conn, "read", [IDS[1]], True, seq=2)
    notes.set_note(conn, IDS[2], "x")
    c = q.counts(conn)
    assert (c.total, c.unread, c.read, c.starred, c.with_notes) == (3, 2, 1, 2, 1)
    assert q.collections(conn) == [("Coll", 2)]
    assert q.count(conn) == 3


def test_set_flag_refuses_other_columns(conn):
    with pytest.raises(ValueError):
        q.set_flag(conn, "title", [IDS[0]], True, seq=2)


def test_ids_with_prefix_and_existing(conn):
    assert q.ids_with_prefix(conn, "a0") == [IDS[0]]
    assert q.ids_with_prefix(conn, "") == list(IDS)
    assert q.existing_ids(conn, [IDS[1], "nope"]) == {IDS[1]}


def test_title_fields_and_set_title(conn):
    q.set_title(conn, IDS[0], "x" * 600, TitleSource.EDITED)
    p = q.papers_full(conn, [IDS[0]])[0]
    assert (len(p.title), p.title_source) == (500, TitleSource.EDITED)
    assert q.title_fields(conn, IDS[0]).derived_title == "Alpha"


def test_touch_marks_papers_changed(conn):
    before = q.papers_full(conn, [IDS[0]])[0].updated_at
    q.touch(conn, [IDS[0]], seq=7)
    q.touch(conn, [IDS[1]], seq=8, updated=False)
    assert [tuple(r) for r in conn.execute("SELECT id, seq FROM papers ORDER BY id")][:2] == [(IDS[0], 7), (IDS[1], 8)]
    assert q.papers_full(conn, [IDS[1]])[0].updated_at == before


def test_write_paper_state_round_trips_everything(conn):
    p = q.papers_full(conn, [IDS[0]])[0]
    edited = dataclasses.replace(
        p, title="Mine", title_source=TitleSource.EDITED, starred=True, tags=["b", "a"], note="n",
        highlights=[Highlight(start=0, end=3, quote="The", color=HighlightColour.GREEN, comment="c")],
    )
    q.write_paper_state(conn, edited, seq=5, abstract_text="plain")
    back = q.papers_full(conn, [IDS[0]])[0]
    assert (back.title, back.starred, back.tags, back.note) == ("Mine", True, ["a", "b"], "n")
    [h] = back.highlights
    assert (h.quote, h.color, h.comment) == ("The", HighlightColour.GREEN, "c") and h.id is not None
    assert conn.execute("SELECT abstract_text FROM papers WHERE id = ?", [IDS[0]]).fetchone()[0] == "plain"


def test_delete_leaves_a_tombstone_and_restore_clears_it(conn):
    p = q.papers_full(conn, [IDS[1]])[0]
    highlights.add(conn, IDS[1], Highlight(start=0, end=3, quote="The"))
    q.delete_papers(conn, [IDS[1]], seq=9)
    assert q.existing_ids(conn, [IDS[1]]) == set()
    assert highlights.highlights_for(conn, [IDS[1]]) == {}  # cascaded
    assert conn.execute("SELECT seq FROM tombstones WHERE paper_id = ?", [IDS[1]]).fetchone()[0] == 9
    q.write_paper_state(conn, p, seq=10, abstract_text="")
    assert conn.execute("SELECT count(*) FROM tombstones").fetchone()[0] == 0


def test_add_source_once(conn):
    q.add_source(conn, [IDS[0], IDS[0]], "b.txt")
    q.add_source(conn, [IDS[0]], "b.txt")
    assert q.papers_full(conn, [IDS[0]])[0].sources == ["a.txt", "b.txt"]


def test_plain_texts(conn):
    q.set_plain_texts(conn, [(IDS[0], "new text")], seq=4)
    assert tuple(conn.execute("SELECT abstract_text, seq FROM papers WHERE id = ?", [IDS[0]]).fetchone()) == ("new text", 4)
    assert dict(q.abstracts(conn))[IDS[0]] == "The abstract of Alpha, long enough."


def test_a_plain_text_is_stored_only_where_it_differs_from_its_abstract(conn):
    """Issue 31 (disk): abstract_text holds '' for "the abstract itself" and ' ' for an empty
    plain text; every writer stores that way and PLAIN_SQL reads the plain text back."""
    def raw_and_plain(pid: str) -> tuple[str, str]:
        r = conn.execute(f"SELECT abstract_text, {q.PLAIN_SQL} FROM papers WHERE id = ?", [pid]).fetchone()
        return r[0], r[1]

    same = "No markup here."
    q.insert_rows(conn, [{**row("d000000000000004", "Delta"), "abstract": same, "abstract_text": same},
                         {**row("e000000000000005", "Eps"), "abstract": "$$", "abstract_text": ""}])
    assert raw_and_plain("d000000000000004") == ("", same)
    assert raw_and_plain("e000000000000005") == (" ", "")
    assert raw_and_plain(IDS[0]) == ("The abstract of Alpha.", "The abstract of Alpha.")
    q.set_plain_texts(conn, [(IDS[0], "The abstract of Alpha, long enough."), (IDS[1], "")], seq=4)
    assert raw_and_plain(IDS[0]) == ("", "The abstract of Alpha, long enough.")
    assert raw_and_plain(IDS[1]) == (" ", "")
    q.update_fields(conn, IDS[1], {"abstract": "Fresh.", "abstract_text": "Fresh."}, seq=5)
    assert raw_and_plain(IDS[1]) == ("", "Fresh.")
    q.update_fields(conn, IDS[2], {"abstract_text": "The abstract of Gamma, long enough."}, seq=6)
    assert raw_and_plain(IDS[2]) == ("", "The abstract of Gamma, long enough.")
    q.update_fields(conn, IDS[2], {"abstract": "Replaced, its plain text not given."}, seq=6)
    assert raw_and_plain(IDS[2]) == ("The abstract of Gamma, long enough.", "The abstract of Gamma, long enough.")
    p = q.papers_full(conn, [IDS[0]])[0]
    q.write_paper_state(conn, p, seq=7, abstract_text=p.abstract)
    assert raw_and_plain(IDS[0]) == ("", p.abstract)
    q.write_paper_state(conn, p, seq=8, abstract_text="Other.")
    assert raw_and_plain(IDS[0]) == ("Other.", "Other.")
    assert q.metadata_row(conn, "d000000000000004")["abstract_text"] == same
    assert dict((pid, text) for pid, _t, text, _own in q.texts(conn))["e000000000000005"] == ""
    docs = {d["id"]: d for d in docs_for_ids(conn, ["d000000000000004", "e000000000000005"])}
    assert (docs["d000000000000004"]["abstract"], docs["e000000000000005"]["abstract"]) == (same, "")
    assert dict(map_rows.texts(conn, ["d000000000000004"]))["d000000000000004"] == f"Delta\n{same}"


def _index_defs(conn) -> list[tuple[str, str]]:
    return [tuple(r) for r in conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('papers', 'paper_collections') "
        "ORDER BY name")]


def test_a_bulk_load_makes_the_indexes_after_the_rows_and_the_same_ones(conn):
    """Issue 31 (import CPU): inside bulk_load the papers' and collections' secondary indexes
    are gone (rows go in without a B-tree insert per index), and after it the very same
    definitions are back, filled; the page cache is as it was."""
    before, cache = _index_defs(conn), conn.execute("PRAGMA cache_size").fetchone()[0]
    assert any(name == "papers_ident_key" for name, _ in before)
    conn.execute("BEGIN")
    with q.bulk_load(conn):
        assert [name for name, sql in _index_defs(conn) if sql] == []  # autoindexes (keys) stay
        assert conn.execute("PRAGMA cache_size").fetchone()[0] == -q.BULK_CACHE_KIB
        q.insert_rows(conn, [{**row(f"f00000000000000{i}", f"Paper {i}"), "ident_key": f"paper {i}|lee|2025",
                              "citation_key": f"lee2025paper{i}"} for i in range(5)])
    conn.execute("COMMIT")
    assert _index_defs(conn) == before and conn.execute("PRAGMA cache_size").fetchone()[0] == cache
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    plan = " ".join(r[3] for r in conn.execute(
        "EXPLAIN QUERY PLAN SELECT id FROM papers WHERE ident_key = 'paper 3|lee|2025'"))
    assert "papers_ident_key" in plan
    assert [r[0] for r in conn.execute("SELECT id FROM papers WHERE ident_key = 'paper 3|lee|2025'")] == [
        "f000000000000003"]
    assert conn.execute("SELECT count(*) FROM paper_collections WHERE name = 'Coll'").fetchone()[0] == 7


def test_a_failed_bulk_load_rolls_back_with_its_indexes(conn):
    """An exception inside bulk_load leaves the indexes to the caller's rollback: nothing of
    the load stays, and every index is there again."""
    before = _index_defs(conn)
    conn.execute("BEGIN")
    with pytest.raises(RuntimeError), q.bulk_load(conn):
        q.insert_rows(conn, [row("f000000000000009", "Paper 9")])
        raise RuntimeError("the disk is full")
    conn.execute("ROLLBACK")
    assert _index_defs(conn) == before
    assert conn.execute("SELECT count(*) FROM papers").fetchone()[0] == 3
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_bulk_load_still_refuses_a_duplicate_citation_key(conn):
    """The unique index on citation keys, made after the rows, still refuses a clash (the
    import's transaction then rolls back as before)."""
    conn.execute("BEGIN")
    with pytest.raises(sqlite3.IntegrityError), q.bulk_load(conn):
        q.insert_rows(conn, [{**row(f"f00000000000000{i}", "Same"), "citation_key": "Lee2025same"}
                             for i in range(2)])
    conn.execute("ROLLBACK")
    assert conn.execute("SELECT count(*) FROM papers").fetchone()[0] == 3


def test_a_title_key_and_a_derived_title_are_stored_once_and_every_reader_sees_them(conn):
    """Issue 31 (disk): title_key holds '' where ident_key begins with it and derived_title ''
    where it is the title itself; every reader gets the full values back, and a write of one
    side (a new title, a new ident_key) keeps the other's value."""
    from reader.models import TitleSource
    from reader.store import group

    pid, key, ident = "d000000000000004", "delta rising", "delta rising|lee|2025"
    q.insert_rows(conn, [{**row(pid, "Delta Rising"), "title_key": key, "ident_key": ident}])

    def raw() -> tuple[str, str]:
        r = conn.execute("SELECT title_key, derived_title FROM papers WHERE id = ?", [pid]).fetchone()
        return r[0], r[1]

    def seen() -> tuple[str, str, str, str, str]:
        [cand] = [r for r in q.candidate_rows(conn, {"ident_key": {conn.execute(
            "SELECT ident_key FROM papers WHERE id = ?", [pid]).fetchone()[0]}}, []) if r["id"] == pid]
        [keyrow] = group.key_rows_of(conn, [pid])
        return (q.title_fields(conn, pid).derived_title, q.papers_full(conn, [pid])[0].derived_title,
                q.metadata_row(conn, pid)["derived_title"], cand["title_key"], keyrow["title_key"])

    assert raw() == ("", "")
    assert seen() == ("Delta Rising",) * 3 + (key,) * 2
    assert [r["title_key"] for r in group.key_rows(conn, 0) if r["id"] == pid] == [key]
    q.set_title(conn, pid, "My own title", TitleSource.EDITED)  # the imported title is kept aside
    assert seen()[:3] == ("Delta Rising",) * 3 and q.papers_full(conn, [pid])[0].title == "My own title"
    q.update_fields(conn, pid, {"ident_key": "delta rising|lee|2026"}, seq=3)  # the key's other half kept
    assert seen()[3:] == (key, key) and raw()[0] == ""
    q.update_fields(conn, pid, {"title_key": "other", "ident_key": ""}, seq=4)
    assert raw()[0] == "other" and q.candidate_rows(conn, {}, [pid])[0]["title_key"] == "other"
    p = q.papers_full(conn, [IDS[0]])[0]
    q.write_paper_state(conn, p, seq=5, abstract_text=p.abstract)
    assert q.papers_full(conn, [IDS[0]])[0].derived_title == "Alpha"
    assert conn.execute("SELECT derived_title FROM papers WHERE id = ?", [IDS[0]]).fetchone()[0] == ""
