"""Queries over the highlights table: spans of a paper's plain-text abstract (no transactions here)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from ..models import Highlight, HighlightColour, without_controls
from .sql import chunks, marks, now_iso


def highlights_for(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[Highlight]]:
    """Each paper's highlights in text order."""
    out: dict[str, list[Highlight]] = {}
    for part in chunks(list(ids)):
        for r in conn.execute(
            f'SELECT id, paper_id, start, "end", quote, color, comment FROM highlights '
            f"WHERE paper_id IN ({marks(len(part))}) ORDER BY start, id",
            part,
        ):
            out.setdefault(r["paper_id"], []).append(Highlight(
                id=r["id"], start=r["start"], end=r["end"], quote=r["quote"],
                color=HighlightColour.coerce(r["color"]), comment=r["comment"],
            ))
    return out


def add(conn: sqlite3.Connection, paper_id: str, h: Highlight) -> int:
    """Insert a highlight; returns its new id."""
    hid = conn.execute(
        'INSERT INTO highlights (paper_id, start, "end", quote, color, comment, created_at) '
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [paper_id, h.start, h.end, h.quote, str(h.color), without_controls(h.comment), now_iso()],
    ).lastrowid
    assert hid is not None  # an INSERT always sets lastrowid
    return hid


def paper_of(conn: sqlite3.Connection, highlight_id: int) -> str | None:
    row = conn.execute("SELECT paper_id FROM highlights WHERE id = ?", [highlight_id]).fetchone()
    return None if row is None else str(row[0])


def set_colour(conn: sqlite3.Connection, highlight_id: int, colour: HighlightColour) -> None:
    conn.execute("UPDATE highlights SET color = ? WHERE id = ?", [str(colour), highlight_id])


def set_comment(conn: sqlite3.Connection, highlight_id: int, comment: str) -> None:
    conn.execute("UPDATE highlights SET comment = ? WHERE id = ?", [without_controls(comment), highlight_id])


def remove(conn: sqlite3.Connection, highlight_id: int) -> None:
    conn.execute("DELETE FROM highlights WHERE id = ?", [highlight_id])


def replace_all(conn: sqlite3.Connection, paper_id: str, highlights: Iterable[Highlight]) -> None:
    """Make a paper's highlights exactly these (ids kept where given)."""
    conn.execute("DELETE FROM highlights WHERE paper_id = ?", [paper_id])
    conn.executemany(
        'INSERT INTO highlights (id, paper_id, start, "end", quote, color, comment, created_at) '
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(h.id, paper_id, int(h.start), int(h.end), h.quote, str(h.color), without_controls(h.comment), now_iso())
         for h in highlights],
    )


def move(conn: sqlite3.Connection, spans: Iterable[tuple[int, int, int, str]]) -> None:
    """Set (id, start, end, quote) of highlights whose paper's abstract changed (re-anchored)."""
    conn.executemany('UPDATE highlights SET start = ?, "end" = ?, quote = ? WHERE id = ?',
                     [(start, end, quote, hid) for hid, start, end, quote in spans])
