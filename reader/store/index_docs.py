"""Build search-index documents from the store, in bulk and in one pass."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime

from .papers import PLAIN_SQL, chunks, marks

_BATCH = 2000


def _added_ts(iso: str) -> float:
    try:
        return datetime.fromisoformat(iso).timestamp()
    except ValueError:
        return 0.0


# The papers-table columns a search document is made of, in paper_doc's order.
DOC_COLUMNS = ("id", "title", "abstract_text", "method", "venue", "year", "authors", "starred",
               "read", "added_at", "title_source", "skipped")
# What selects them (abstract_text: the plain text, see papers.PLAIN_SQL).
_DOC_SELECT = ", ".join(PLAIN_SQL if c == "abstract_text" else c for c in DOC_COLUMNS)


def paper_doc(r: Sequence, tags: list[str], note: str, comments: list[str]) -> dict:
    """The search document of a papers row (DOC_COLUMNS values) and its tags, note and
    highlight comments; imports build new papers' documents with it too."""
    return {
        "id": r[0],
        "title": r[1],
        "title_source": r[10],
        "abstract": r[2],
        "method": r[3] or "",
        "venue": r[4] or "",
        "year": r[5],
        "authors": "; ".join(json.loads(r[6])),
        "tags": tags,
        "note": note,
        "comments": "\n".join(comments),
        "starred": bool(r[7]),
        "read": bool(r[8]),
        "skipped": bool(r[11]),
        "added": _added_ts(r[9]),
    }


def _docs_for(conn: sqlite3.Connection, ids: Sequence[str]) -> list[dict]:
    q = marks(len(ids))
    tags: dict[str, list[str]] = {}
    for pid, name in conn.execute(
        f"SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id "
        f"WHERE pt.paper_id IN ({q})", ids
    ):
        tags.setdefault(pid, []).append(name)
    notes = dict(conn.execute(f"SELECT paper_id, body FROM notes WHERE paper_id IN ({q})", ids).fetchall())
    comments: dict[str, list[str]] = {}
    for pid, comment in conn.execute(
        f"SELECT paper_id, comment FROM highlights WHERE paper_id IN ({q}) AND comment != ''", ids
    ):
        comments.setdefault(pid, []).append(comment)
    docs = []
    for r in conn.execute(
        f"SELECT {_DOC_SELECT} FROM papers WHERE id IN ({q})", ids
    ):
        pid = r[0]
        docs.append(paper_doc(r, tags.get(pid, []), notes.get(pid, ""), comments.get(pid, [])))
    return docs


def docs_for_ids(conn: sqlite3.Connection, ids: Sequence[str]) -> list[dict]:
    out: list[dict] = []
    for part in chunks(list(ids)):
        out.extend(_docs_for(conn, part))
    return out


def iter_docs(conn: sqlite3.Connection, *, since_seq: int | None = None) -> Iterator[dict]:
    """Every paper's document (or those changed after since_seq), in batches."""
    if since_seq is None:
        ids = [r[0] for r in conn.execute("SELECT id FROM papers ORDER BY rowid")]
    else:
        ids = [r[0] for r in conn.execute("SELECT id FROM papers WHERE seq > ? ORDER BY rowid", [since_seq])]
    for i in range(0, len(ids), _BATCH):
        yield from docs_for_ids(conn, ids[i : i + _BATCH])


def count_changed(conn: sqlite3.Connection, since_seq: int) -> tuple[int, list[str]]:
    changed = conn.execute("SELECT count(*) FROM papers WHERE seq > ?", [since_seq]).fetchone()[0]
    deleted = [r[0] for r in conn.execute("SELECT paper_id FROM tombstones WHERE seq > ?", [since_seq])]
    return changed, deleted


def paper_texts(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Papers' (title, abstract) as paper_doc indexes them: the real title ('' for one derived
    from the abstract), the abstract's plain text. The search index reads them here instead of
    keeping a copy (reader/search/texts.py); ids not in the store are left out."""
    out: dict[str, tuple[str, str]] = {}
    for part in chunks(list(ids)):
        for pid, title, source, plain in conn.execute(
            f"SELECT id, title, title_source, {PLAIN_SQL} FROM papers WHERE id IN ({marks(len(part))})",
            part,
        ):
            real = title if isinstance(title, str) and source != "derived" else ""
            out[pid] = (real, plain if isinstance(plain, str) else "")
    return out
