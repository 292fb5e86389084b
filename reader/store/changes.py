"""Sync state in the meta table: the change sequence, the text version, and what changed since."""

from __future__ import annotations

import secrets
import sqlite3


def bump_seq(conn: sqlite3.Connection) -> int:
    """Advance the change sequence; the index records the last sequence it reflects."""
    conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'change_seq'")
    return current_seq(conn)


def current_seq(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT value FROM meta WHERE key = 'change_seq'").fetchone()[0])


def origin(conn: sqlite3.Connection) -> str:
    """This library file's origin: a random token made with it and made anew by a restore, so a
    derived file (the map, its marks, triage's counts) made from another library, or from this
    one before a restore took its change sequence back, is never taken for current ("": an
    older read-only library that has none yet)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'origin'").fetchone()
    return "" if row is None else str(row[0])


def ensure_origin(conn: sqlite3.Connection) -> None:
    """Give the library an origin if it has none (a write only the first time)."""
    if not origin(conn):
        new_origin(conn)


def new_origin(conn: sqlite3.Connection) -> str:
    token = secrets.token_hex(12)
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('origin', ?)", [token])
    return token


def mark_restored(conn: sqlite3.Connection) -> None:
    """Note in the library that a backup was put in its place (its origin changed on purpose: a
    map file from before the origin existed is then never adopted, see map.mapfile.adopt_legacy)."""
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('restored', '1')")


def restored(conn: sqlite3.Connection) -> bool:
    """Whether this library was ever put back from a backup (since mark_restored existed)."""
    return conn.execute("SELECT 1 FROM meta WHERE key = 'restored'").fetchone() is not None


def changed_ids(conn: sqlite3.Connection, since_seq: int) -> list[str]:
    """Papers written after since_seq."""
    return [r[0] for r in conn.execute("SELECT id FROM papers WHERE seq > ?", [since_seq])]


def text_version(conn: sqlite3.Connection) -> int | None:
    """The text-rendering version the stored plain texts were made with (None: unknown)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'text_version'").fetchone()
    return None if row is None else int(row[0])


def set_text_version(conn: sqlite3.Connection, version: int) -> None:
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('text_version', ?)", [str(version)])


def touched_since(conn: sqlite3.Connection, since_seq: int, limit: int) -> dict[str, int] | None:
    """Papers written or deleted after since_seq, with the sequence that last touched each (the
    change log another process leaves); None when more than `limit` ("possibly everything")."""
    found: dict[str, int] = {}
    for sql in ("SELECT id, seq FROM papers WHERE seq > ? LIMIT ?",
                "SELECT paper_id, seq FROM tombstones WHERE seq > ? LIMIT ?"):
        found.update((r[0], r[1]) for r in conn.execute(sql, [since_seq, limit + 1]))
        if len(found) > limit:
            return None
    return found


def touched_at(conn: sqlite3.Connection, seq: int) -> list[str]:
    """Papers written or deleted by the transaction that bumped the sequence to seq."""
    rows = conn.execute("SELECT id FROM papers WHERE seq = ? UNION SELECT paper_id FROM tombstones WHERE seq = ?",
                        [seq, seq])
    return [r[0] for r in rows]


def data_version(conn: sqlite3.Connection) -> int:
    """SQLite's counter of commits by *other* connections to this database file (cheap: no I/O)."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])
