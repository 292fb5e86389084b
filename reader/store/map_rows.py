"""What the map reads from the store: papers' words (for the layout) and marks (for the colours)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from .sql import chunks, marks


class MapMarks(NamedTuple):
    """One paper's state as the map draws it (a named tuple: 50k frozen dataclasses took
    half a second to build at every map open)."""

    year: int | None
    read: bool
    starred: bool
    skipped: bool
    tags: tuple[str, ...]
    title: str = ""


def all_ids(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT id FROM papers ORDER BY id")]


def texts(conn: sqlite3.Connection, ids: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(id, the words the map compares) of each paper: its plain abstract, and its title when
    it was given or typed (a title derived from the abstract would count its words twice)."""
    for part in chunks(list(ids)):
        rows = conn.execute(
            f"SELECT id, title, title_source, abstract_text FROM papers WHERE id IN ({marks(len(part))})", part)
        for pid, title, source, abstract in rows:
            head = "" if source == "derived" else (title or "")
            yield pid, f"{head}\n{abstract or ''}"


def _columns(conn: sqlite3.Connection) -> set[str]:
    return {r[1] for r in conn.execute("PRAGMA table_info(papers)")}


def map_marks(conn: sqlite3.Connection) -> dict[str, MapMarks]:
    """Every paper's year, read/starred/skipped state, tags and title (a skipped column may not exist yet)."""
    skipped = "skipped" if "skipped" in _columns(conn) else "0"
    tags: dict[str, list[str]] = {}
    for pid, name in conn.execute(
            "SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id ORDER BY t.name"):
        tags.setdefault(pid, []).append(name)
    rows = conn.cursor()
    rows.row_factory = None  # plain tuples: sqlite3.Row objects cost more than the query
    rows.execute(f"SELECT id, year, read, starred, {skipped}, title FROM papers")
    none: tuple[str, ...] = ()
    return {pid: MapMarks(year, bool(read), bool(starred), bool(skip), tuple(tags.get(pid, none)), title)
            for pid, year, read, starred, skip, title in rows}
