"""Queries over the notes table: one Markdown note per paper (no transactions here)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ..models import without_controls
from .sql import chunks, marks, now_iso


def body(conn: sqlite3.Connection, paper_id: str) -> str:
    """A paper's note, "" when it has none."""
    row = conn.execute("SELECT body FROM notes WHERE paper_id = ?", [paper_id]).fetchone()
    return str(row[0]) if row else ""


def notes_for(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    """(body, updated_at) of each paper that has a note."""
    out: dict[str, tuple[str, str]] = {}
    for part in chunks(list(ids)):
        for r in conn.execute(
            f"SELECT paper_id, body, updated_at FROM notes WHERE paper_id IN ({marks(len(part))})", part
        ):
            out[r[0]] = (r[1], r[2])
    return out


def set_note(conn: sqlite3.Connection, paper_id: str, text: str, updated_at: str | None = None) -> None:
    """Store a note (without control characters: models.without_controls); a blank one deletes it."""
    text = without_controls(text)
    if not text.strip():
        conn.execute("DELETE FROM notes WHERE paper_id = ?", [paper_id])
        return
    ts = updated_at or now_iso()
    conn.execute(
        "INSERT INTO notes (paper_id, body, created_at, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (paper_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
        [paper_id, text, ts, ts],
    )
