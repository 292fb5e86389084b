"""reader.store.changes: the change sequence and text version in meta."""

from __future__ import annotations

from reader.store import changes, open_connection

from .conftest import IDS


def test_bump_and_changed_since(conn):
    start = changes.current_seq(conn)
    assert changes.bump_seq(conn) == start + 1 == changes.current_seq(conn)
    conn.execute("UPDATE papers SET seq = 5 WHERE id = ?", [IDS[2]])
    assert changes.changed_ids(conn, 1) == [IDS[2]]


def test_text_version(conn):
    from reader.text import TEXT_VERSION

    # the migrations write it: the version the cleaning migration made the texts with
    assert changes.text_version(conn) == TEXT_VERSION
    changes.set_text_version(conn, 3)
    assert changes.text_version(conn) == 3
    conn.execute("DELETE FROM meta WHERE key = 'text_version'")
    assert changes.text_version(conn) is None


def test_touched_since_and_at_include_deletions(conn):
    conn.execute("UPDATE papers SET seq = 7 WHERE id = ?", [IDS[0]])
    conn.execute("INSERT INTO tombstones (paper_id, seq) VALUES ('dead000000000004', 8)")
    conn.execute("INSERT INTO tombstones (paper_id, seq) VALUES ('old0000000000005', 2)")
    assert changes.touched_since(conn, 6, limit=10) == {IDS[0]: 7, "dead000000000004": 8}
    assert changes.touched_since(conn, 7, limit=10) == {"dead000000000004": 8}
    assert changes.touched_since(conn, 0, limit=2) is None  # too many: "possibly everything"
    assert changes.touched_at(conn, 7) == [IDS[0]]
    assert changes.touched_at(conn, 8) == ["dead000000000004"]


def test_data_version_moves_only_for_other_connections(conn, tmp_path):
    other = open_connection(tmp_path / "library.sqlite3")
    try:
        before = changes.data_version(conn)
        conn.execute("UPDATE papers SET read = 1")  # its own commit: no change
        assert changes.data_version(conn) == before
        other.execute("UPDATE papers SET read = 0")
        assert changes.data_version(conn) != before
    finally:
        other.close()
