"""reader.store.changes: the change sequence and text version in meta."""

from __future__ import annotations

from reader.store import changes

from .conftest import IDS


def test_bump_and_changed_since(conn):
    start = changes.current_seq(conn)
    assert changes.bump_seq(conn) == start + 1 == changes.current_seq(conn)
    conn.execute("UPDATE papers SET seq = 5 WHERE id = ?", [IDS[2]])
    assert changes.changed_ids(conn, 1) == [IDS[2]]


def test_text_version(conn):
    assert changes.text_version(conn) == 0  # written by the migration
    changes.set_text_version(conn, 3)
    assert changes.text_version(conn) == 3
    conn.execute("DELETE FROM meta WHERE key = 'text_version'")
    assert changes.text_version(conn) is None
