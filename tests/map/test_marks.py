"""The map's derived copy of the papers' marks: read whole once, then only what changed since."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reader.library import Library
from reader.map import marks as mk
from reader.store import map_rows


@pytest.fixture
def library(tmp_path: Path):
    lib = Library.open(tmp_path / "lib")  # the 56 seed papers
    yield lib
    lib.close()


def _rows(m: map_rows.MapMarks) -> set[tuple]:
    return set(zip(*m, strict=True))


def test_an_open_reads_only_the_papers_changed_since(library: Library, tmp_path: Path, monkeypatch) -> None:
    conn, root = library.read_connection(), library.paths.root
    first = mk.current(conn, root)
    assert mk.path_for(root).exists() and _rows(first) == _rows(map_rows.map_marks(conn))
    ids = list(first.ids)
    library.set_starred([ids[0]], True)
    library.add_tags([ids[1]], ["zeta", "alpha"])
    library.delete_papers([ids[2]])
    src = tmp_path / "new.jsonl"
    src.write_text(json.dumps({"title": "A new paper", "abstract": "Graph networks for molecules."}) + "\n", "utf-8")
    library.import_files([src], index=False)
    full = map_rows.map_marks(conn)

    def no_scan(_conn):
        raise AssertionError("the whole table was read again")

    monkeypatch.setattr(map_rows, "map_marks", no_scan)
    again = mk.current(conn, root)
    assert _rows(again) == _rows(full)
    row = again.row_of()
    assert again.state[row[ids[0]]] == map_rows.STARRED and again.tag[row[ids[1]]] == "alpha"
    assert ids[2] not in row and "A new paper" in again.title


def test_a_damaged_or_newer_copy_is_read_again(library: Library) -> None:
    conn, root = library.read_connection(), library.paths.root
    truth = _rows(map_rows.map_marks(conn))
    mk.path_for(root).write_bytes(b"not a zip file")
    assert _rows(mk.current(conn, root)) == truth
    stored = mk.load(mk.path_for(root))
    assert stored is not None and _rows(stored[0]) == truth
    # A copy stamped ahead of the store (a library restored from a backup) is not trusted.
    mk.save(mk.path_for(root), map_rows.MapMarks(("x",), (1999,), (0,), ("",), ("ghost",)), stored[1] + 50)
    assert _rows(mk.current(conn, root)) == truth


def test_titles_with_any_characters_survive(tmp_path: Path) -> None:
    root = tmp_path
    odd = map_rows.MapMarks(("a", "b", "c"), (0, 2020, 1), (0, 3, 2), ("", "t\u00e9g", ""),
                            ("", "Caf\u00e9 \u2014 \U0001f600", "x\x1fy"))
    mk.save(mk.path_for(root), odd, 7)
    got = mk.load(mk.path_for(root))
    assert got is not None and got[1] == 7
    assert got[0].title == ("", "Caf\u00e9 \u2014 \U0001f600", "x y") and got[0].tag == ("", "t\u00e9g", "")
