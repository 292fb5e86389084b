"""Queries over the feeds table: the arXiv categories a library follows (no transactions here)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from .sql import now_iso


@dataclass(frozen=True)
class FeedRow:
    id: int
    source: str  # "arxiv"
    category: str  # "cs.LG"
    query: str  # an optional query ANDed with the category ('' none)
    collection: str  # where its papers land
    added_at: str
    updated_at: str  # the last update that finished, '' never
    newest: str  # the newest submission it has seen (UTC ISO), '' none

    @property
    def name(self) -> str:
        """How the CLI and the window name it: `arxiv:cs.LG` (and its query)."""
        return f"{self.source}:{self.category}" + (f" ({self.query})" if self.query else "")


_COLS = "id, source, category, query, collection, added_at, updated_at, newest"


def _row(r: sqlite3.Row | tuple) -> FeedRow:
    return FeedRow(int(r[0]), r[1], r[2], r[3], r[4], r[5], r[6], r[7])


def add(conn: sqlite3.Connection, source: str, category: str, query: str, collection: str) -> tuple[FeedRow, bool]:
    """Follow a feed; (the feed, True) when new, (the one already followed, False) otherwise."""
    cur = conn.execute("INSERT OR IGNORE INTO feeds (source, category, query, collection, added_at) "
                       "VALUES (?, ?, ?, ?, ?)", [source, category, query, collection, now_iso()])
    created = cur.rowcount == 1
    row = conn.execute(f"SELECT {_COLS} FROM feeds WHERE source = ? AND category = ? AND query = ?",
                       [source, category, query]).fetchone()
    return _row(row), created


def all_feeds(conn: sqlite3.Connection) -> list[FeedRow]:
    return [_row(r) for r in conn.execute(f"SELECT {_COLS} FROM feeds ORDER BY id")]


def get(conn: sqlite3.Connection, feed_id: int) -> FeedRow | None:
    r = conn.execute(f"SELECT {_COLS} FROM feeds WHERE id = ?", [feed_id]).fetchone()
    return None if r is None else _row(r)


def set_updated(conn: sqlite3.Connection, feed_id: int, newest: str) -> None:
    """Record a finished update (now) and the newest submission seen so far."""
    conn.execute("UPDATE feeds SET updated_at = ?, newest = MAX(newest, ?) WHERE id = ?",
                 [now_iso(), newest, feed_id])


def remove(conn: sqlite3.Connection, feed_id: int) -> bool:
    return conn.execute("DELETE FROM feeds WHERE id = ?", [feed_id]).rowcount == 1


def collections(conn: sqlite3.Connection) -> list[str]:
    """The collections the followed feeds' papers land in."""
    return [r[0] for r in conn.execute("SELECT DISTINCT collection FROM feeds ORDER BY id")]
