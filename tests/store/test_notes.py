"""reader.store.notes: one note per paper; blank notes are deleted."""

from __future__ import annotations

from reader.store import notes

from .conftest import IDS


def test_set_read_and_blank_deletes(conn):
    assert notes.body(conn, IDS[0]) == ""
    notes.set_note(conn, IDS[0], "first", "2025-02-02T00:00:00+00:00")
    notes.set_note(conn, IDS[0], "second")
    assert notes.body(conn, IDS[0]) == "second"
    body, updated = notes.notes_for(conn, IDS)[IDS[0]]
    assert body == "second" and updated != "2025-02-02T00:00:00+00:00"
    created = conn.execute("SELECT created_at FROM notes").fetchone()[0]
    assert created == "2025-02-02T00:00:00+00:00"  # an update keeps the creation time
    notes.set_note(conn, IDS[0], "  \n ")
    assert notes.notes_for(conn, IDS) == {}
