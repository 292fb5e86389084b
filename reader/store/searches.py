"""Queries over the saved_searches table (no transactions here)."""

from __future__ import annotations

import sqlite3

from ..models import SavedSearch
from .sql import now_iso


def all_searches(conn: sqlite3.Connection) -> list[SavedSearch]:
    """Every saved search as {id, name, query}, by name."""
    return [
        SavedSearch(id=r[0], name=r[1], query=r[2])
        for r in conn.execute("SELECT id, name, query FROM saved_searches ORDER BY name COLLATE NOCASE")
    ]


def save(conn: sqlite3.Connection, name: str, query: str) -> int:
    """Save a search under a name, replacing the query of one with that name; returns its id."""
    return int(conn.execute(
        "INSERT INTO saved_searches (name, query, created_at) VALUES (?, ?, ?) "
        "ON CONFLICT (name) DO UPDATE SET query = excluded.query RETURNING id",
        [name, query, now_iso()],
    ).fetchone()[0])


def add_if_absent(conn: sqlite3.Connection, name: str, query: str) -> None:
    """Save a search unless one with that name exists (imported backups never overwrite)."""
    conn.execute(
        "INSERT OR IGNORE INTO saved_searches (name, query, created_at) VALUES (?, ?, ?)",
        [name, query, now_iso()],
    )


def rename(conn: sqlite3.Connection, search_id: int, name: str) -> None:
    """Rename; raises sqlite3.IntegrityError when the name is taken."""
    conn.execute("UPDATE saved_searches SET name = ? WHERE id = ?", [name, search_id])


def delete(conn: sqlite3.Connection, search_id: int) -> None:
    conn.execute("DELETE FROM saved_searches WHERE id = ?", [search_id])
