"""reader.store.views: which ids a sidebar view selects."""

from __future__ import annotations

import pytest

from reader.models import ViewKind
from reader.store import notes, tags
from reader.store import papers as q
from reader.store.views import View, paper_ids

from .conftest import IDS


def test_view_kind_is_checked_when_made():
    assert View("tag", "x").kind is ViewKind.TAG
    with pytest.raises(ValueError):
        View("nonsense")


def test_views_select(conn):
    q.set_flag(conn, "starred", [IDS[1]], True, seq=2)
    tags.add(conn, [IDS[2]], "rl")
    notes.set_note(conn, IDS[0], "n")
    assert paper_ids(conn, View(ViewKind.STARRED)) == [IDS[1]]
    assert paper_ids(conn, View(ViewKind.TAG, "RL")) == [IDS[2]]
    assert paper_ids(conn, View(ViewKind.NOTES)) == [IDS[0]]
    assert paper_ids(conn, View(ViewKind.COLLECTION, "Coll"), sort="title", descending=False) == [IDS[0], IDS[1]]
    assert len(paper_ids(conn, View())) == 3


def _row_by_row(conn, view: View, sort: str, descending: bool) -> list[str]:
    """The same list read a row at a time (what paper_ids did before ids_in_order)."""
    from reader.store.views import _SORTS, where_for

    where, params = where_for(view)
    direction = "DESC" if descending else "ASC"
    order = ", ".join(f"{part} {direction}" for part in _SORTS[sort].split(", "))
    sql = f"SELECT p.id FROM papers p {where} ORDER BY {order}, p.rowid {direction}"
    return [r[0] for r in conn.execute(sql, params)]


def test_a_list_read_in_one_step_keeps_every_sorts_order(tmp_path):
    """paper_ids reads the list as one string (ids_in_order): for every sort, both directions and
    several views, the same ids in the same order as row by row, on a library whose rows were
    added in an order no sort follows (ties broken by rowid)."""
    from reader.library import Library
    from reader.store.views import SORT_KEYS

    entries = []
    for i in range(60):
        title = f"{'Zeta' if i % 3 else 'alpha'} paper {(i * 37) % 60:02d}"
        venue = ["NeurIPS", "icml", "ICLR", ""][i % 4]
        entries.append(f"@inproceedings{{k{i},\n  title = {{{title}}},\n  author = {{Smith, Ann}},\n"
                       f"  booktitle = {{{venue}}}, year = {{{2010 + (i * 7) % 9}}},\n"
                       f"  abstract = {{An abstract long enough to be kept, number {i}, about sorting.}},\n}}\n")
    src = tmp_path / "refs.bib"
    src.write_text("".join(entries), encoding="utf-8")
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        [summary] = lib.import_files([src], index=False)
        ids = summary.new_ids
        lib.set_starred(ids[5:20:3], True)
        lib.set_read(ids[::4], True)
        lib.add_tags(ids[10:30:2], ["b-tag"])
        lib.add_tags(ids[11:30:5], ["a-tag"])
        conn = lib.read_connection()
        for view in (View(), View(ViewKind.STARRED), View(ViewKind.TAG, "b-tag"), View(ViewKind.UNREAD)):
            for sort in SORT_KEYS:
                for descending in (False, True):
                    expected = _row_by_row(conn, view, sort, descending)
                    assert paper_ids(conn, view, sort, descending) == expected, (view, sort, descending)
                    assert paper_ids(conn, view, sort, descending, limit=7) == expected[:7]
        assert paper_ids(conn, View(ViewKind.TAG, "no such tag")) == []


def test_an_id_holding_the_separator_is_read_row_by_row(conn):
    from reader.store.views import ids_in_order

    sql = "SELECT 'a' || char(31) || 'b' AS id UNION ALL SELECT 'c' AS id"
    assert ids_in_order(conn, sql) == ["a\x1fb", "c"]
