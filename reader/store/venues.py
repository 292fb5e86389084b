"""Queries over the papers' venue keys: the Venues list and keeping one key per venue."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ..venues import Venue, fold_keys, group_venues, venue_name
from .sql import chunks, marks


def spellings(conn: sqlite3.Connection) -> list[tuple[str, str, int]]:
    """(venue_key, venue as imported, papers) for every venue spelling in the library: read from
    the index on (venue_key, venue) alone (at 100k papers 12 ms, against 67 ms through the table)."""
    return [(r[0], r[1], r[2]) for r in conn.execute(
        "SELECT venue_key, venue, count(*) FROM papers WHERE venue != '' GROUP BY venue_key, venue")]


def venues(conn: sqlite3.Connection) -> list[Venue]:
    """The library's venues, most papers first."""
    return group_venues(spellings(conn))


def refold(conn: sqlite3.Connection) -> int:
    """Give every spelling of a venue the one key its venue has across the library (a long name
    joins the acronym other entries give it, an abbreviation its full name); the rows changed."""
    rows = spellings(conn)
    counted: dict[str, int] = {}
    for _, raw, n in rows:
        counted[raw] = counted.get(raw, 0) + n
    names = {raw: venue_name(raw) for raw in counted}
    alias = fold_keys((names[raw], n) for raw, n in counted.items())
    changed = 0
    for key, raw, _ in rows:
        own = names[raw].key
        wanted = alias.get(own, own)
        if wanted != key:
            changed += conn.execute("UPDATE papers SET venue_key = ? WHERE venue = ? AND venue_key = ?",
                                    [wanted, raw, key]).rowcount
    return changed


def stored(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    """id -> (venue as imported, venue_key) of the papers `ids` that are in the library."""
    found: dict[str, tuple[str, str]] = {}
    for part in chunks(list(ids)):
        found.update((r[0], (r[1], r[2])) for r in conn.execute(
            f"SELECT id, venue, venue_key FROM papers WHERE id IN ({marks(len(part))})", part))
    return found


def keep_keys(conn: sqlite3.Connection, keys: dict[str, str]) -> None:
    """Set papers' venue keys back (id -> key): rows rewritten with the venue they had keep the
    key the library folded it into."""
    conn.executemany("UPDATE papers SET venue_key = ? WHERE id = ? AND venue_key != ?",
                     [(key, pid, key) for pid, key in keys.items()])
