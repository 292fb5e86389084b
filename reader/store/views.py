"""Which paper ids a sidebar view selects, in the table's sort order."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from ..models import ViewKind


@dataclass(frozen=True, init=False)
class View:
    """What the sidebar selected."""

    kind: ViewKind
    value: str | None  # the collection or tag name

    def __init__(self, kind: ViewKind | str = ViewKind.ALL, value: str | None = None) -> None:
        # A plain string ("tag") is accepted and checked here, so an unknown kind fails where it is made.
        object.__setattr__(self, "kind", ViewKind(kind))
        object.__setattr__(self, "value", value)

    @property
    def ranked(self) -> bool:
        """A view in its own order whatever the sort: "more like these" (ranked by the search
        index, not selected by SQL) and "New" (selected by SQL, ranked best first)."""
        return self.kind in RANKED_KINDS


LIKE_KINDS = frozenset({ViewKind.LIKE_STARRED, ViewKind.LIKE_TAG})
RANKED_KINDS = LIKE_KINDS | {ViewKind.NEW}


_SORTS = {
    "starred": "p.starred",
    "title": "p.title COLLATE NOCASE",
    "method": "p.method = '', p.method COLLATE NOCASE",
    "venue": "p.venue COLLATE NOCASE",
    "year": "p.year",
    "tags": "(SELECT group_concat(t.name) FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id "
            "WHERE pt.paper_id = p.id) COLLATE NOCASE",
    "note": "EXISTS (SELECT 1 FROM notes n WHERE n.paper_id = p.id)",
    "added": "p.added_at",
    "read": "p.read",
}
SORT_KEYS = tuple(_SORTS)


def where_for(view: View) -> tuple[str, list[str]]:
    kind = view.kind
    if kind == ViewKind.ALL:
        return "", []
    if kind == ViewKind.UNREAD:
        return "WHERE p.read = 0", []
    if kind == ViewKind.READ:
        return "WHERE p.read = 1", []
    if kind == ViewKind.STARRED:
        return "WHERE p.starred = 1", []
    if kind == ViewKind.NOTES:
        return "WHERE EXISTS (SELECT 1 FROM notes n WHERE n.paper_id = p.id)", []
    if kind == ViewKind.COLLECTION:
        return "WHERE p.id IN (SELECT pc.paper_id FROM paper_collections pc WHERE pc.name = ?)", [view.value or ""]
    if kind == ViewKind.VENUE:
        return "WHERE p.venue_key = ?", [view.value or ""]
    if kind == ViewKind.TAG:
        return (
            "WHERE p.id IN (SELECT pt.paper_id FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id "
            "WHERE t.name = ?)",
            [view.value or ""],
        )
    if kind == ViewKind.NEW:
        return (
            "WHERE p.read = 0 AND p.skipped = 0 AND p.id IN (SELECT pc.paper_id FROM paper_collections pc "
            "WHERE pc.name IN (SELECT f.collection FROM feeds f))",
            [],
        )
    if kind in LIKE_KINDS:
        raise ValueError(f"a {kind.value} view is ranked by the search index: list it with Library.paper_ids")
    raise ValueError(f"unknown view kind {kind!r}")


def paper_ids(conn: sqlite3.Connection, view: View, sort: str = "added", descending: bool = True,
              limit: int | None = None) -> list[str]:
    """The view's ids in (sort, descending) order; the first `limit` of them when given (the
    window's first page at start: 200 of 100k read in a millisecond, the whole list in 0.3 s)."""
    if sort not in _SORTS:
        raise ValueError(f"unknown sort key {sort!r}")
    where, params = where_for(view)
    direction = "DESC" if descending else "ASC"
    order = ", ".join(f"{part} {direction}" for part in _SORTS[sort].split(", "))
    # rowid as the tie-breaker keeps the order stable between refreshes.
    sql = f"SELECT p.id FROM papers p {where} ORDER BY {order}, p.rowid {direction}"
    if limit is not None:
        sql = f"{sql} LIMIT {max(0, int(limit))}"
    return ids_in_order(conn, sql, params)


_SEP = "\x1f"  # between the ids of one list (a paper id is hex: never holds it)


def ids_in_order(conn: sqlite3.Connection, sql: str, params: list | tuple = ()) -> list[str]:
    """The first column of `sql` (an ordered SELECT of paper ids), in its order, read as one
    string in one step of SQLite and split in C. Row by row, the whole list at 100k papers held
    the GIL for most of 130-140 ms (a Python-level cursor step per row, damage.py) beside the
    window's thread; this way 88-102 ms of CPU, nearly all inside SQLite with the GIL let go.

    An aggregate consumes an ORDER BY subquery in its order (SQLite does not flatten such a
    subquery into an aggregate); the count read beside it checks that no id held the separator,
    and a mismatch falls back to reading row by row."""
    row = conn.execute(f"SELECT count(*), group_concat(o.id, char({ord(_SEP)})) FROM ({sql}) o", params).fetchone()
    count, joined = row[0], row[1]
    ids = joined.split(_SEP) if joined else []
    if len(ids) != count:
        return [r[0] for r in conn.execute(sql, params)]
    return ids
