"""The reading group's tables (m0017_group): membership, what this library wrote, how far each
member's files were read, the members' merged decisions and the local papers' group keys."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any

from .papers import TITLE_KEY_SQL, title_key_sql
from .sql import chunks, marks, now_iso

FIELDS = ("star", "skip", "read", "tags", "note")
STATE_COLUMNS = ", ".join(f"{f}, {f}_s" for f in FIELDS)


# ------------------------------------------------------------------ membership
def config(conn: sqlite3.Connection) -> sqlite3.Row | None:
    return conn.execute("SELECT * FROM group_config WHERE id = 1").fetchone()


def library_id(conn: sqlite3.Connection) -> str:
    row = conn.execute("SELECT value FROM meta WHERE key = 'library_id'").fetchone()
    return str(row[0]) if row else ""


def join(conn: sqlite3.Connection, folder: str, name: str, share_notes: bool, tags: str) -> None:
    conn.execute("INSERT INTO group_config (id, folder, name, share_notes, tags, joined_at) "
                 "VALUES (1, ?, ?, ?, ?, ?)", [folder, name, int(share_notes), tags, now_iso()])


def set_options(conn: sqlite3.Connection, **values: Any) -> None:
    allowed = {"share_notes", "tags", "best_first_group", "own_seq", "gen", "exported", "keyed", "last_sync_at",
               "purge"}
    cols = [c for c in values if c in allowed]
    if cols:
        conn.execute(f"UPDATE group_config SET {', '.join(c + ' = ?' for c in cols)} WHERE id = 1",
                     [values[c] for c in cols])


def leave(conn: sqlite3.Connection) -> None:
    for table in ("group_config", "group_own", "group_files", "group_members", "group_state",
                  "group_keys", "group_divisions"):
        conn.execute(f"DELETE FROM {table}")


# ------------------------------------------------------------------ this library's decisions
def papers_since(conn: sqlite3.Connection, seq: int) -> list[sqlite3.Row]:
    """Papers written after `seq`: their decisions and what their keys are made of."""
    return conn.execute(
        f"SELECT p.id, p.starred, p.skipped, p.read, p.doi, p.arxiv, p.links, {title_key_sql('p.')} AS title_key, "
        "p.year, "
        "p.abstract_key, (SELECT json_group_array(t.name) FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id "
        "WHERE pt.paper_id = p.id) AS tags, (SELECT n.body FROM notes n WHERE n.paper_id = p.id) AS note "
        "FROM papers p WHERE p.seq > ?", [seq]).fetchall()


def deleted_since(conn: sqlite3.Connection, seq: int) -> list[str]:
    return [r[0] for r in conn.execute("SELECT paper_id FROM tombstones WHERE seq > ?", [seq])]


def own_keys(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
    """paper id -> (pkey, keys json) this library's records give it."""
    out: dict[str, tuple[str, str]] = {}
    for part in chunks(list(ids)):
        out.update((r[0], (r[1], r[2])) for r in conn.execute(
            f"SELECT paper_id, pkey, keys FROM group_own WHERE paper_id IN ({marks(len(part))})", list(part)))
    return out


def put_own_keys(conn: sqlite3.Connection, rows: Iterable[tuple[str, str, str]]) -> None:
    conn.executemany("INSERT OR REPLACE INTO group_own (paper_id, pkey, keys) VALUES (?, ?, ?)", rows)


def member_state(conn: sqlite3.Connection, member: str, pkeys: Sequence[str] | None = None) -> dict[str, sqlite3.Row]:
    """A member's merged state by paper key (what its files say): all, or these keys'."""
    sql = "SELECT pkey, keys, " + STATE_COLUMNS + " FROM group_state WHERE member = ?"
    if pkeys is None:
        return {r["pkey"]: r for r in conn.execute(sql + " ORDER BY pkey", [member])}
    out: dict[str, sqlite3.Row] = {}
    for part in chunks(list(pkeys)):
        out.update((r["pkey"], r) for r in conn.execute(sql + f" AND pkey IN ({marks(len(part))})", [member, *part]))
    return out


# ------------------------------------------------------------------ reading the members' files
def files(conn: sqlite3.Connection) -> dict[tuple[str, str], tuple[int, int, int]]:
    return {(r[0], r[1]): (r[2], r[3], r[4]) for r in conn.execute(
        "SELECT member, file, size, mtime_ns, offset FROM group_files")}


def put_file(conn: sqlite3.Connection, member: str, name: str, size: int, mtime_ns: int, offset: int) -> None:
    conn.execute("INSERT OR REPLACE INTO group_files (member, file, size, mtime_ns, offset) VALUES (?, ?, ?, ?, ?)",
                  [member, name, size, mtime_ns, offset])


def drop_files(conn: sqlite3.Connection, member: str, keep: Iterable[str]) -> None:
    keep = list(keep)
    conn.execute(f"DELETE FROM group_files WHERE member = ? AND file NOT IN ({marks(len(keep)) or ''})",
                 [member, *keep])


def member_rows(conn: sqlite3.Connection) -> dict[str, sqlite3.Row]:
    return {r["name"]: r for r in conn.execute("SELECT * FROM group_members")}


def put_member(conn: sqlite3.Connection, name: str, library: str, gen: int, problem: str,
               left_at: str | None = None) -> None:
    conn.execute("INSERT INTO group_members (name, library, gen, seen_at, problem, left_at) VALUES (?, ?, ?, ?, ?, ?) "
                 "ON CONFLICT (name) DO UPDATE SET library = excluded.library, gen = excluded.gen, "
                 "seen_at = excluded.seen_at, problem = excluded.problem, left_at = excluded.left_at",
                 [name, library, gen, now_iso(), problem, left_at])


def forget_member(conn: sqlite3.Connection, name: str) -> set[str]:
    """Everything merged from a member (its name passed to another library after it left): the
    local papers its decisions were on."""
    ids = _ids(conn, "SELECT paper_id FROM group_state WHERE member = ?", [name])
    for table, column in (("group_state", "member"), ("group_files", "member"), ("group_divisions", "member"),
                          ("group_members", "name")):
        conn.execute(f"DELETE FROM {table} WHERE {column} = ?", [name])
    return ids


def set_problem(conn: sqlite3.Connection, name: str, problem: str) -> None:
    conn.execute("INSERT INTO group_members (name, problem) VALUES (?, ?) "
                 "ON CONFLICT (name) DO UPDATE SET problem = excluded.problem", [name, problem])


_MERGE = ", ".join(
    f"{f} = CASE WHEN excluded.{f}_s > {f}_s THEN excluded.{f} ELSE {f} END, "
    f"{f}_s = max({f}_s, excluded.{f}_s)" for f in FIELDS)


KEY_INDEX = "CREATE UNIQUE INDEX group_state_key ON group_state (member, pkey)"  # m0021
PAPER_INDEX = "CREATE INDEX group_state_paper ON group_state (paper_id, member)"
BULK_ROWS = 2000  # into an empty group_state, this many records or more are loaded before its index is built
MERGE_CACHE_KB = 32 * 1024  # the page cache while a merge writes many records (its index's pages stay in memory)
BULK_VALUES = 64  # rows per INSERT statement of a bulk load (a statement run per row costs ~a third more)


ROW_COLUMNS = "keys, " + STATE_COLUMNS + ", pkey, paper_id, member"  # a merged row's order (the fold's)
_PKEY = itemgetter(11)  # a merged row's pkey (ROW_COLUMNS)


def merge_records(conn: sqlite3.Connection, batches: Mapping[str, Sequence[Sequence[Any]]]) -> None:
    """Fold records into the merged state: per (member, paper key) and field, the value with the
    highest sequence number wins (member -> its rows in any order, each in ROW_COLUMNS order:
    the keys space-separated, value and seq per field, pkey, the local paper id, the member;
    each pkey at most once). Into an empty table (a first sync) many records are inserted as
    they come, member after member, before its two indexes (the key's, unique, and the paper
    ids') are built by sorting, which is about half the cost of keeping them up one record at a
    time, BULK_VALUES records a statement; into a table holding records, many are written in
    key order (each member's sorted here), the order of its unique index."""
    count = sum(map(len, batches.values()))
    if not count:
        return
    many = count >= BULK_ROWS
    ordered = itertools.chain.from_iterable(batches[member] for member in sorted(batches))  # no 63k-row list
    cache = conn.execute("PRAGMA cache_size").fetchone()[0] if many else None
    if many:
        conn.execute(f"PRAGMA cache_size = -{MERGE_CACHE_KB}")
    insert = f"INSERT INTO group_state ({ROW_COLUMNS}) VALUES ({marks(14)})"
    try:
        if many and conn.execute("SELECT 1 FROM group_state LIMIT 1").fetchone() is None:
            conn.execute("DROP INDEX IF EXISTS group_state_key")  # each (member, pkey) is once in the batch
            conn.execute("DROP INDEX IF EXISTS group_state_paper")
            _insert_many(conn, ordered, count)
            conn.execute(KEY_INDEX)
            conn.execute(PAPER_INDEX)
        else:
            if many:  # in the unique index's order: each record's look-up near the last one's
                ordered = itertools.chain.from_iterable(sorted(batches[member], key=_PKEY) for member in sorted(batches))
            conn.executemany(insert + " ON CONFLICT (member, pkey) DO UPDATE SET paper_id = excluded.paper_id, "
                             + _MERGE, ordered)
    finally:
        if cache is not None:
            conn.execute(f"PRAGMA cache_size = {int(cache)}")


def _insert_many(conn: sqlite3.Connection, rows: Iterator[Sequence[Any]], count: int) -> None:
    """Insert `count` rows (ROW_COLUMNS) into group_state, BULK_VALUES rows per statement."""
    one = f"({marks(14)})"
    insert = f"INSERT INTO group_state ({ROW_COLUMNS}) VALUES "
    full = insert + ", ".join([one] * BULK_VALUES)
    whole, rest = divmod(count, BULK_VALUES)
    for _ in range(whole):
        conn.execute(full, list(itertools.chain.from_iterable(itertools.islice(rows, BULK_VALUES))))
    if rest:
        conn.execute(insert + ", ".join([one] * rest), list(itertools.chain.from_iterable(rows)))


def max_seq(conn: sqlite3.Connection, member: str) -> int:
    row = conn.execute("SELECT max(max(star_s), max(skip_s), max(read_s), max(tags_s), max(note_s)) "
                       "FROM group_state WHERE member = ?", [member]).fetchone()
    return int(row[0] or 0)


def state(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    return conn.execute("SELECT member, pkey, paper_id, " + STATE_COLUMNS +
                        " FROM group_state ORDER BY member, pkey").fetchall()


# ------------------------------------------------------------------ meeting the local papers
def key_rows(conn: sqlite3.Connection, since: int) -> list[sqlite3.Row]:
    return conn.execute(f"SELECT id, doi, arxiv, links, {TITLE_KEY_SQL} AS title_key, year, abstract_key "
                        "FROM papers WHERE seq > ?", [since]).fetchall()


def key_rows_of(conn: sqlite3.Connection, ids: Sequence[str]) -> list[sqlite3.Row]:
    out: list[sqlite3.Row] = []
    for part in chunks(list(ids)):
        out += conn.execute(f"SELECT id, doi, arxiv, links, {TITLE_KEY_SQL} AS title_key, year, abstract_key "
                            f"FROM papers WHERE id IN ({marks(len(part))})", list(part)).fetchall()
    return out


def keys_of(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for part in chunks(list(ids)):
        for k, pid in conn.execute(f"SELECT key, paper_id FROM group_keys WHERE paper_id IN ({marks(len(part))})",
                                   list(part)):
            out.setdefault(pid, set()).add(k)
    return out


def replace_keys(conn: sqlite3.Connection, ids: Sequence[str], pairs: Iterable[tuple[str, str]]) -> None:
    insert = "INSERT OR IGNORE INTO group_keys (key, paper_id) VALUES (?, ?)"
    if conn.execute("SELECT 1 FROM group_keys LIMIT 1").fetchone() is not None:
        for part in chunks(list(ids)):
            conn.execute(f"DELETE FROM group_keys WHERE paper_id IN ({marks(len(part))})", list(part))
        conn.executemany(insert, sorted(pairs))  # in key order
        return
    # A first sync: nothing to delete, and the index on paper ids built after the keys are in.
    conn.execute("DROP INDEX IF EXISTS group_keys_paper")
    conn.executemany(insert, sorted(pairs))
    conn.execute(KEYS_PAPER_INDEX)


KEYS_PAPER_INDEX = "CREATE INDEX group_keys_paper ON group_keys (paper_id)"  # m0017


def unresolved(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """Records that met no local paper, or one deleted since."""
    return [(r[0], r[1], r[2]) for r in conn.execute(
        "SELECT member, pkey, keys FROM group_state WHERE paper_id IS NULL "
        # from the deleted papers to their records (CROSS JOIN keeps that order: not a look-up per record)
        "UNION ALL SELECT g.member, g.pkey, g.keys FROM tombstones t CROSS JOIN group_state g ON g.paper_id = t.paper_id "
        "WHERE NOT EXISTS (SELECT 1 FROM papers p WHERE p.id = t.paper_id)")]


def key_papers(conn: sqlite3.Connection, keys: Iterable[str]) -> dict[str, str]:
    """Key hash -> the local paper holding it (the first by id when two do)."""
    keys = list(keys)
    out: dict[str, str] = {}
    for part in chunks(keys):
        for k, pid in conn.execute(f"SELECT key, min(paper_id) FROM group_keys WHERE key IN ({marks(len(part))}) "
                                   "GROUP BY key", list(part)):
            out[k] = pid
    return out


def all_key_papers(conn: sqlite3.Connection) -> dict[str, str]:
    return {k: pid for k, pid in conn.execute("SELECT key, min(paper_id) FROM group_keys GROUP BY key")}


def set_papers(conn: sqlite3.Connection, rows: Iterable[tuple[str | None, str, str]]) -> None:
    conn.executemany("UPDATE group_state SET paper_id = ? WHERE member = ? AND pkey = ?", rows)


# ------------------------------------------------------------------ the group's views (query filters)
def starred_by(conn: sqlite3.Connection, member: str) -> set[str]:
    return _ids(conn, "SELECT paper_id FROM group_state WHERE member = ? AND star = 1", [member])


def skipped_by(conn: sqlite3.Connection, member: str) -> set[str]:
    return _ids(conn, "SELECT paper_id FROM group_state WHERE member = ? AND skip = 1", [member])


def tagged_by(conn: sqlite3.Connection, member: str) -> set[str]:
    return _ids(conn, "SELECT paper_id FROM group_state WHERE member = ? AND tags != '[]'", [member])


def agree(conn: sqlite3.Connection) -> set[str]:
    return _ids(conn, "SELECT paper_id FROM group_state WHERE star = 1 GROUP BY paper_id "
                      "HAVING count(DISTINCT member) >= 2", [])


def split(conn: sqlite3.Connection) -> set[str]:
    """Starred by one member and skipped by another."""
    return _ids(conn, "SELECT DISTINCT a.paper_id FROM group_state a JOIN group_state b ON b.paper_id = a.paper_id "
                      "AND b.member != a.member WHERE a.star = 1 AND b.skip = 1", [])


def decided(conn: sqlite3.Connection) -> set[str]:
    return _ids(conn, "SELECT paper_id FROM group_state WHERE star = 1 OR skip = 1", [])


def _ids(conn: sqlite3.Connection, sql: str, params: list[Any]) -> set[str]:
    return {r[0] for r in conn.execute(sql, params) if r[0] is not None}


def marks_of(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[sqlite3.Row]]:
    """Per paper, each member's merged decisions on it (member order)."""
    out: dict[str, list[sqlite3.Row]] = {}
    for part in chunks(list(ids)):
        for r in conn.execute(f"SELECT paper_id, member, star, skip, read, tags, note FROM group_state "
                              f"WHERE paper_id IN ({marks(len(part))}) ORDER BY member", list(part)):
            out.setdefault(r["paper_id"], []).append(r)
    return out


def counts(conn: sqlite3.Connection) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in conn.execute("SELECT member, sum(star), sum(skip), sum(read), sum(tags != '[]'), sum(note != ''), "
                          "count(paper_id) FROM group_state GROUP BY member"):
        out[r[0]] = {"starred": r[1] or 0, "skipped": r[2] or 0, "read": r[3] or 0, "tagged": r[4] or 0,
                     "notes": r[5] or 0, "in_library": r[6] or 0}
    return out


# ------------------------------------------------------------------ divisions of the work
def put_division(conn: sqlite3.Connection, member: str, seq: int, made_at: str, query: str,
                 shares: dict[str, list[str]]) -> None:
    conn.execute("INSERT OR REPLACE INTO group_divisions (member, seq, made_at, query, shares) VALUES (?, ?, ?, ?, ?)",
                 [member, seq, made_at, query, json.dumps(shares, separators=(",", ":"))])


def divisions(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    return conn.execute("SELECT * FROM group_divisions ORDER BY made_at DESC, member").fetchall()


def locally_decided(conn: sqlite3.Connection) -> set[str]:
    """This library's own starred or skipped papers (a division leaves them out)."""
    return {r[0] for r in conn.execute("SELECT id FROM papers WHERE starred = 1 OR skipped = 1")}


def titles(conn: sqlite3.Connection, ids: Sequence[str]) -> list[tuple[str, str]]:
    """(id, title) of the papers `ids` (those that exist)."""
    out: list[tuple[str, str]] = []
    for part in chunks(list(ids)):
        out += conn.execute(f"SELECT id, title FROM papers WHERE id IN ({marks(len(part))})", part).fetchall()
    return out


class Savepoint:
    """A part of the sync's transaction that can be undone alone (the export: its folder could
    not be written). `with Savepoint(conn, name) as sp:` then `sp.undo()` rolls it back."""

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self._conn, self._name = conn, name

    def __enter__(self) -> Savepoint:
        self._conn.execute(f"SAVEPOINT {self._name}")
        return self

    def undo(self) -> None:
        self._conn.execute(f"ROLLBACK TO {self._name}")

    def __exit__(self, *_: object) -> None:
        self._conn.execute(f"RELEASE {self._name}")
