"""Queries over paper_collections: which collections (imported files, their groups) hold which papers."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from .sql import chunks, marks


def add_memberships(conn: sqlite3.Connection, pairs: Iterable[tuple[str, str]]) -> None:
    """Put papers in collections, given as (paper id, collection name) pairs."""
    conn.executemany("INSERT OR IGNORE INTO paper_collections (paper_id, name) VALUES (?, ?)",
                     [(pid, name) for pid, name in pairs if name])


def collections_of(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in chunks(list(ids)):
        for pid, name in conn.execute(
                f"SELECT paper_id, name FROM paper_collections WHERE paper_id IN ({marks(len(part))}) "
                "ORDER BY rowid", part):
            out.setdefault(pid, []).append(name)
    return out


def set_collections(conn: sqlite3.Connection, pid: str, names: Sequence[str]) -> None:
    """A paper's collections exactly (a paper written back from a backup or an undo)."""
    conn.execute("DELETE FROM paper_collections WHERE paper_id = ?", [pid])
    add_memberships(conn, [(pid, n) for n in dict.fromkeys(names)])


def counts(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """Each collection with its paper count; a file's groups ("file › group") after the file."""
    rows = conn.execute("SELECT name, count(*) FROM paper_collections GROUP BY name").fetchall()
    return sorted(((r[0], r[1]) for r in rows), key=lambda r: r[0].casefold().split(" › "))
