"""Open SQLite connections the way Reader needs them (WAL, foreign keys, busy timeout)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import sqlite_utils

BUSY_TIMEOUT_MS = 5000


def open_connection(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode: transactions are opened explicitly with db.atomic()."""
    if readonly:
        conn = sqlite3.connect(
            f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
        )
    else:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL is durable across application crashes in WAL mode; only a power cut can lose
        # the last transaction, which is the usual desktop trade-off.
        conn.execute("PRAGMA synchronous = NORMAL")
    conn.row_factory = sqlite3.Row
    return conn


def open_database(conn: sqlite3.Connection) -> sqlite_utils.Database:
    """Wrap our own connection; plugins off so nothing outside Reader runs inside it."""
    return sqlite_utils.Database(conn, execute_plugins=False)


def close_writer(conn: sqlite3.Connection) -> None:
    """Close the writer connection, letting SQLite refresh its query-planner statistics first."""
    try:
        conn.execute("PRAGMA optimize")
    finally:
        conn.close()
