"""Queries over the papers, tags, notes and highlights tables (no transactions here)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from ..text import abstract_plain

# Long id lists go through a temp table in chunks rather than one huge IN (...).
_CHUNK = 900


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def chunks(items: Sequence, size: int = _CHUNK):
    for i in range(0, len(items), size):
        yield items[i : i + size]


def marks(n: int) -> str:
    return ",".join("?" * n)


def clean_tag(tag: str) -> str:
    return " ".join(str(tag).split()).strip(" ,#")


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


@dataclass(frozen=True)
class PaperRow:
    """What the paper table shows for one paper."""

    id: str
    title: str
    method: str
    venue: str
    year: int | None
    starred: bool
    read: bool
    has_note: bool
    tags: tuple[str, ...]
    added_at: str


@dataclass(frozen=True)
class Counts:
    total: int
    unread: int
    read: int
    starred: int
    with_notes: int


def bump_seq(conn: sqlite3.Connection) -> int:
    """Advance the change sequence; the index records the last sequence it reflects."""
    conn.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'change_seq'")
    return current_seq(conn)


def current_seq(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT value FROM meta WHERE key = 'change_seq'").fetchone()[0])


def touch(conn: sqlite3.Connection, ids: Iterable[str], seq: int, *, updated: bool = True) -> None:
    ids = list(ids)
    ts = now_iso()
    for part in chunks(ids):
        if updated:
            conn.execute(
                f"UPDATE papers SET seq = ?, updated_at = ? WHERE id IN ({marks(len(part))})",
                [seq, ts, *part],
            )
        else:
            conn.execute(f"UPDATE papers SET seq = ? WHERE id IN ({marks(len(part))})", [seq, *part])


def existing_ids(conn: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for part in chunks(list(ids)):
        found.update(
            r[0] for r in conn.execute(f"SELECT id FROM papers WHERE id IN ({marks(len(part))})", part)
        )
    return found


def tags_for(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in chunks(list(ids)):
        for pid, name in conn.execute(
            f"SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id "
            f"WHERE pt.paper_id IN ({marks(len(part))}) ORDER BY t.name COLLATE NOCASE",
            part,
        ):
            out.setdefault(pid, []).append(name)
    return out


def rows(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, PaperRow]:
    out: dict[str, PaperRow] = {}
    tag_map = tags_for(conn, ids)
    for part in chunks(list(ids)):
        for r in conn.execute(
            "SELECT p.id, p.title, p.method, p.venue, p.year, p.starred, p.read, p.added_at, "
            "n.paper_id IS NOT NULL AS has_note FROM papers p "
            f"LEFT JOIN notes n ON n.paper_id = p.id WHERE p.id IN ({marks(len(part))})",
            part,
        ):
            out[r["id"]] = PaperRow(
                id=r["id"], title=r["title"], method=r["method"], venue=r["venue"], year=r["year"],
                starred=bool(r["starred"]), read=bool(r["read"]), has_note=bool(r["has_note"]),
                tags=tuple(tag_map.get(r["id"], ())), added_at=r["added_at"],
            )
    return out


def papers_full(conn: sqlite3.Connection, ids: Sequence[str]) -> list[dict]:
    """Full paper dicts (the backup/snapshot shape) in the order of ids; unknown ids skipped."""
    ids = list(ids)
    tag_map = tags_for(conn, ids)
    base: dict[str, dict] = {}
    notes: dict[str, tuple[str, str]] = {}
    hls: dict[str, list[dict]] = {}
    for part in chunks(ids):
        q = marks(len(part))
        for r in conn.execute(f"SELECT * FROM papers WHERE id IN ({q})", part):
            base[r["id"]] = dict(r)
        for r in conn.execute(f"SELECT paper_id, body, updated_at FROM notes WHERE paper_id IN ({q})", part):
            notes[r[0]] = (r[1], r[2])
        for r in conn.execute(
            f'SELECT id, paper_id, start, "end", quote, color, comment FROM highlights '
            f"WHERE paper_id IN ({q}) ORDER BY start, id",
            part,
        ):
            hls.setdefault(r["paper_id"], []).append(
                {"id": r["id"], "start": r["start"], "end": r["end"], "quote": r["quote"],
                 "color": r["color"], "comment": r["comment"]}
            )
    out = []
    for pid in ids:
        r = base.get(pid)
        if r is None:
            continue
        note, note_ts = notes.get(pid, ("", None))
        out.append({
            "id": pid,
            "title": r["title"],
            "title_source": r["title_source"],
            "derived_title": r["derived_title"],
            "abstract": r["abstract"],
            "venue": r["venue"],
            "year": r["year"],
            "authors": json.loads(r["authors"]),
            "links": json.loads(r["links"]),
            "code_links": json.loads(r["code_links"]),
            "method": r["method"],
            "collection": r["collection"],
            "sources": json.loads(r["sources"]),
            "added_at": r["added_at"],
            "updated_at": r["updated_at"],
            "read": bool(r["read"]),
            "starred": bool(r["starred"]),
            "tags": tag_map.get(pid, []),
            "note": note,
            "note_updated_at": note_ts,
            "highlights": hls.get(pid, []),
        })
    return out


def tag_id(conn: sqlite3.Connection, name: str, *, create: bool) -> int | None:
    row = conn.execute("SELECT id FROM tags WHERE name = ?", [name]).fetchone()
    if row:
        return row[0]
    if not create:
        return None
    return conn.execute("INSERT INTO tags (name) VALUES (?)", [name]).lastrowid


def set_tags(conn: sqlite3.Connection, paper_id: str, tags: Iterable[str]) -> None:
    conn.execute("DELETE FROM paper_tags WHERE paper_id = ?", [paper_id])
    for name in tags:
        conn.execute(
            "INSERT OR IGNORE INTO paper_tags (paper_id, tag_id) VALUES (?, ?)",
            [paper_id, tag_id(conn, name, create=True)],
        )


def set_note(conn: sqlite3.Connection, paper_id: str, body: str, updated_at: str | None = None) -> None:
    if not body.strip():
        conn.execute("DELETE FROM notes WHERE paper_id = ?", [paper_id])
        return
    ts = updated_at or now_iso()
    conn.execute(
        "INSERT INTO notes (paper_id, body, created_at, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (paper_id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at",
        [paper_id, body, ts, ts],
    )


def drop_unused_tags(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM tags WHERE id NOT IN (SELECT DISTINCT tag_id FROM paper_tags)")


def paper_to_row(p: dict, seq: int) -> dict:
    """The papers-table row for a full paper dict (snapshot or backup)."""
    return {
        "id": p["id"],
        "title": p["title"],
        "title_source": p.get("title_source") or "imported",
        "derived_title": p.get("derived_title") or p["title"],
        "abstract": p["abstract"],
        "abstract_text": abstract_plain(p["abstract"]),
        "venue": p.get("venue") or "",
        "year": p.get("year"),
        "authors": json.dumps(list(p.get("authors") or []), ensure_ascii=False),
        "links": json.dumps(list(p.get("links") or []), ensure_ascii=False),
        "code_links": json.dumps(list(p.get("code_links") or []), ensure_ascii=False),
        "method": p.get("method") or "",
        "collection": p.get("collection") or "",
        "sources": json.dumps(list(p.get("sources") or []), ensure_ascii=False),
        "added_at": p.get("added_at") or now_iso(),
        "updated_at": p.get("updated_at") or now_iso(),
        "read": int(bool(p.get("read"))),
        "starred": int(bool(p.get("starred"))),
        "seq": seq,
    }


def write_paper_state(conn: sqlite3.Connection, p: dict, seq: int) -> None:
    """Write a full paper dict back exactly: row, tags, note and highlights."""
    row = paper_to_row(p, seq)
    cols = list(row)
    # An upsert, not INSERT OR REPLACE: REPLACE deletes the row first, cascading to its children.
    updates = ", ".join(f"{c} = excluded.{c}" for c in cols if c != "id")
    conn.execute(
        f"INSERT INTO papers ({', '.join(cols)}) VALUES ({marks(len(cols))}) "
        f"ON CONFLICT (id) DO UPDATE SET {updates}",
        [row[c] for c in cols],
    )
    conn.execute("DELETE FROM tombstones WHERE paper_id = ?", [p["id"]])
    set_tags(conn, p["id"], p.get("tags") or [])
    set_note(conn, p["id"], p.get("note") or "", p.get("note_updated_at"))
    conn.execute("DELETE FROM highlights WHERE paper_id = ?", [p["id"]])
    for h in p.get("highlights") or []:
        conn.execute(
            'INSERT INTO highlights (id, paper_id, start, "end", quote, color, comment, created_at) '
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [h.get("id"), p["id"], int(h["start"]), int(h["end"]), h.get("quote", ""),
             h.get("color") or "#ffe066", h.get("comment") or "", now_iso()],
        )


def delete_papers(conn: sqlite3.Connection, ids: Sequence[str], seq: int) -> None:
    for part in chunks(list(ids)):
        conn.execute(f"DELETE FROM papers WHERE id IN ({marks(len(part))})", part)
        conn.executemany(
            "INSERT OR REPLACE INTO tombstones (paper_id, seq) VALUES (?, ?)", [(i, seq) for i in part]
        )
