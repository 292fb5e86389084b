"""Small helpers shared by the store modules: timestamps, chunked IN (...) lists, read snapshots."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TypeVar

# Long id lists go in chunks rather than one huge IN (...) (SQLite caps bound parameters).
CHUNK = 900
_T = TypeVar("_T")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def chunks(items: Sequence[_T], size: int = CHUNK) -> Iterator[Sequence[_T]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def marks(n: int) -> str:
    return ",".join("?" * n)


@contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One read transaction (on an autocommit connection): every query inside sees the same
    committed state of the library, however long the reads take (a big export)."""
    began = not conn.in_transaction
    if began:
        conn.execute("BEGIN")
    try:
        yield conn
    finally:
        if began:
            conn.execute("COMMIT")
