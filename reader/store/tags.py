"""Queries over the tags and paper_tags tables (no transactions here)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from ..models import without_controls
from .sql import chunks, marks


def clean_tag(tag: str) -> str:
    """One line of printable text: control characters (a bell, an escape, a NUL) are dropped,
    whitespace runs become one space, and leading/trailing spaces, commas and #s go."""
    return " ".join(without_controls(str(tag)).split()).strip(" ,#")


def clean_tags(tags: Iterable[str]) -> list[str]:
    """Trimmed, de-duplicated (case-insensitively) tag names in their first spelling."""
    out: list[str] = []
    seen: set[str] = set()
    for t in tags:
        c = clean_tag(t)
        if c and c.casefold() not in seen:
            seen.add(c.casefold())
            out.append(c)
    return out


def tag_id(conn: sqlite3.Connection, name: str, *, create: bool) -> int | None:
    """The id of a tag (names match case-insensitively), created when asked."""
    row = conn.execute("SELECT id FROM tags WHERE name = ?", [name]).fetchone()
    if row:
        return int(row[0])
    if not create:
        return None
    return conn.execute("INSERT INTO tags (name) VALUES (?)", [name]).lastrowid


def _created(conn: sqlite3.Connection, name: str) -> int:
    tid = tag_id(conn, name, create=True)
    assert tid is not None  # create=True always yields an id
    return tid


def tags_for(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[str]]:
    """Each paper's tag names, sorted."""
    out: dict[str, list[str]] = {}
    for part in chunks(list(ids)):
        for pid, name in conn.execute(
            f"SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id "
            f"WHERE pt.paper_id IN ({marks(len(part))}) ORDER BY t.name COLLATE NOCASE",
            part,
        ):
            out.setdefault(pid, []).append(name)
    return out


def name_counts(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """Each tag in use with its paper count, by name."""
    return [
        (r[0], r[1])
        for r in conn.execute(
            "SELECT t.name, count(pt.paper_id) FROM tags t JOIN paper_tags pt ON pt.tag_id = t.id "
            "GROUP BY t.id ORDER BY t.name COLLATE NOCASE"
        )
    ]


def papers_with(conn: sqlite3.Connection, tid: int) -> list[str]:
    return [r[0] for r in conn.execute("SELECT paper_id FROM paper_tags WHERE tag_id = ?", [tid])]


def add(conn: sqlite3.Connection, ids: Sequence[str], name: str) -> None:
    """Tag papers with one tag (created if new)."""
    tid = _created(conn, name)
    conn.executemany(
        "INSERT OR IGNORE INTO paper_tags (paper_id, tag_id) VALUES (?, ?)", [(i, tid) for i in ids]
    )


def remove(conn: sqlite3.Connection, ids: Sequence[str], name: str) -> None:
    """Take one tag off papers (the tag itself stays until drop_unused)."""
    tid = tag_id(conn, name, create=False)
    if tid is not None:
        conn.executemany("DELETE FROM paper_tags WHERE paper_id = ? AND tag_id = ?", [(i, tid) for i in ids])


def rename(conn: sqlite3.Connection, tid: int, name: str) -> None:
    conn.execute("UPDATE tags SET name = ? WHERE id = ?", [name, tid])


def merge(conn: sqlite3.Connection, tid: int, into: int) -> None:
    """Move every paper of tag `tid` onto tag `into` and drop `tid`."""
    conn.execute(
        "INSERT OR IGNORE INTO paper_tags (paper_id, tag_id) SELECT paper_id, ? FROM paper_tags "
        "WHERE tag_id = ?", [into, tid]
    )
    delete(conn, tid)


def delete(conn: sqlite3.Connection, tid: int) -> None:
    conn.execute("DELETE FROM tags WHERE id = ?", [tid])


def set_tags(conn: sqlite3.Connection, paper_id: str, names: Iterable[str]) -> None:
    """Replace a paper's tags."""
    conn.execute("DELETE FROM paper_tags WHERE paper_id = ?", [paper_id])
    for name in names:
        conn.execute(
            "INSERT OR IGNORE INTO paper_tags (paper_id, tag_id) VALUES (?, ?)",
            [paper_id, _created(conn, name)],
        )


def drop_unused(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM tags WHERE id NOT IN (SELECT DISTINCT tag_id FROM paper_tags)")
