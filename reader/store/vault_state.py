"""Queries for Markdown vault sync: vaults, what each sync wrote per paper, and vault membership."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..models import without_controls
from . import notes
from . import papers as q
from . import tags as tag_store
from .sql import chunks, marks


@dataclass(frozen=True)
class VaultRow:
    id: int
    key: str
    root: str
    query: str
    last_sync_at: str | None


@dataclass(frozen=True)
class FileState:
    """What the last sync of one paper wrote (the merge base) and where the file was."""

    paper_id: str
    path: str  # relative to the vault root, with "/" separators
    mtime_ns: int
    size: int
    paper_seq: int  # the paper's change sequence when it was last synced
    reader_hash: str  # everything Reader contributed, to skip unchanged papers without rendering
    title_hash: str
    note_hash: str
    tags: tuple[str, ...]
    starred: bool
    read: bool
    owned_hash: str  # the parts only Reader writes (abstract, authors, highlights...)
    conflict: bool
    # The hash of the bytes this sync wrote, while every version of the file was Reader's own
    # ('' once the user edited it): such a file leaving the vault's query goes to .trash.
    file_hash: str = ""


_COLUMNS = ("paper_id", "path", "mtime_ns", "size", "paper_seq", "reader_hash", "title_hash",
            "note_hash", "tags", "starred", "read", "owned_hash", "conflict", "file_hash")


def get_vault(conn: sqlite3.Connection, key: str) -> VaultRow | None:
    r = conn.execute("SELECT id, key, root, query, last_sync_at FROM vaults WHERE key = ?", [key]).fetchone()
    return VaultRow(r[0], r[1], r[2], r[3], r[4]) if r else None


def save_vault(conn: sqlite3.Connection, key: str, root: str, query: str, last_sync_at: str | None) -> int:
    return conn.execute(
        "INSERT INTO vaults (key, root, query, last_sync_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (key) DO UPDATE SET root = excluded.root, query = excluded.query, "
        "last_sync_at = coalesce(excluded.last_sync_at, vaults.last_sync_at) RETURNING id",
        [key, root, query, last_sync_at],
    ).fetchone()[0]


@lru_cache(maxsize=4096)
def _tags(data: str) -> tuple[str, ...]:
    """Decoded once per distinct tag set: most papers share a few."""
    return tuple(json.loads(data))


def load_states(conn: sqlite3.Connection, vault_id: int) -> dict[str, FileState]:
    out: dict[str, FileState] = {}
    for r in conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM vault_files WHERE vault_id = ?", [vault_id]):
        out[r[0]] = FileState(
            paper_id=r[0], path=r[1], mtime_ns=r[2], size=r[3], paper_seq=r[4], reader_hash=r[5],
            title_hash=r[6], note_hash=r[7], tags=_tags(r[8]), starred=bool(r[9]),
            read=bool(r[10]), owned_hash=r[11], conflict=bool(r[12]), file_hash=r[13],
        )
    return out


def save_states(conn: sqlite3.Connection, vault_id: int, states: Iterable[FileState]) -> None:
    conn.executemany(
        f"INSERT OR REPLACE INTO vault_files (vault_id, {', '.join(_COLUMNS)}) "
        f"VALUES (?, {marks(len(_COLUMNS))})",
        [(vault_id, s.paper_id, s.path, s.mtime_ns, s.size, s.paper_seq, s.reader_hash, s.title_hash,
          s.note_hash, json.dumps(list(s.tags), ensure_ascii=False), int(s.starred), int(s.read),
          s.owned_hash, int(s.conflict), s.file_hash) for s in states],
    )


def drop_states(conn: sqlite3.Connection, vault_id: int, paper_ids: Iterable[str]) -> None:
    conn.executemany(
        "DELETE FROM vault_files WHERE vault_id = ? AND paper_id = ?", [(vault_id, p) for p in paper_ids]
    )


def paper_seqs(conn: sqlite3.Connection, ids: Sequence[str] | None = None) -> dict[str, int]:
    """Each paper's change sequence (all papers when ids is None)."""
    if ids is None:
        return dict(conn.execute("SELECT id, seq FROM papers"))
    out: dict[str, int] = {}
    for part in chunks(list(ids)):
        out.update(
            (r[0], r[1]) for r in conn.execute(f"SELECT id, seq FROM papers WHERE id IN ({marks(len(part))})", part)
        )
    return out


# Filters of the vault membership query answered here, because the search language lacks
# `has:highlight` and `tag:*` (and SQL answers the others without needing the index).
_FILTERS = {
    "is:starred": "SELECT id FROM papers WHERE starred = 1",
    "is:unstarred": "SELECT id FROM papers WHERE starred = 0",
    "is:read": "SELECT id FROM papers WHERE read = 1",
    "is:unread": "SELECT id FROM papers WHERE read = 0",
    "is:skipped": "SELECT id FROM papers WHERE skipped = 1",
    "is:unskipped": "SELECT id FROM papers WHERE skipped = 0",
    "has:note": "SELECT paper_id FROM notes",
    "has:highlight": "SELECT DISTINCT paper_id FROM highlights",
    "tag:*": "SELECT DISTINCT paper_id FROM paper_tags",
}
SQL_FILTERS = tuple(_FILTERS)


def ids_for_filter(conn: sqlite3.Connection, name: str) -> set[str]:
    """Paper ids matching one of SQL_FILTERS."""
    return {r[0] for r in conn.execute(_FILTERS[name])}


def ids_with_tag(conn: sqlite3.Connection, tag: str) -> set[str]:
    return {
        r[0] for r in conn.execute(
            "SELECT pt.paper_id FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id WHERE t.name = ?", [tag]
        )
    }


def apply_vault_changes(
    conn: sqlite3.Connection, paper_id: str, seq: int, *, title: str | None = None, note: str | None = None,
    tags: Sequence[str] | None = None, starred: bool | None = None, read: bool | None = None,
) -> None:
    """Write the parts of one paper that the vault changed (inside the caller's transaction)."""
    if title is not None:
        title = " ".join(without_controls(title).split())
        row = conn.execute(f"SELECT {q.DERIVED_TITLE_SQL} FROM papers WHERE id = ?", [paper_id]).fetchone()
        source = "derived" if row is not None and title == row[0] else "edited"
        conn.execute(f"UPDATE papers SET derived_title = {q.DERIVED_TITLE_SQL}, title = ?, title_source = ? "
                     "WHERE id = ?", [title[:500], source, paper_id])
    if starred is not None:
        conn.execute("UPDATE papers SET starred = ? WHERE id = ?", [int(starred), paper_id])
    if read is not None:
        conn.execute("UPDATE papers SET read = ? WHERE id = ?", [int(read), paper_id])
    if note is not None:
        notes.set_note(conn, paper_id, note)
    if tags is not None:
        tag_store.set_tags(conn, paper_id, tag_store.clean_tags(tags))
        tag_store.drop_unused(conn)
    q.touch(conn, [paper_id], seq)
