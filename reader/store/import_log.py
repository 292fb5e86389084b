"""Queries over the imports table: one row per imported file (no transactions here)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ..models import ImportLogEntry
from .sql import now_iso


def log_import(
    conn: sqlite3.Connection, path: str, fmt: str, new: int, duplicates: int, problems: Sequence[object]
) -> None:
    conn.execute(
        "INSERT INTO imports (path, format, imported_at, new, duplicates, skipped, problems) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [path, fmt, now_iso(), new, duplicates, len(problems),
         json.dumps([str(p) for p in problems], ensure_ascii=False)],
    )


def entries(conn: sqlite3.Connection) -> list[ImportLogEntry]:
    """Every import, oldest first."""
    return [ImportLogEntry(id=r[0], path=r[1], format=r[2], imported_at=r[3], new=r[4], duplicates=r[5],
                           skipped=r[6], problems=r[7])
            for r in conn.execute("SELECT id, path, format, imported_at, new, duplicates, skipped, problems "
                                  "FROM imports ORDER BY id")]


def any_import(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM imports LIMIT 1").fetchone() is not None
