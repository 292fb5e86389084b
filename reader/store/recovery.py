"""Rescue every readable row of a damaged library file into a new library (the old file is only read).

`iterdump` stops at the first bad page and the sqlite3 CLI's `.recover` is not in a frozen app, so
each table is read in rowid order; where a read fails, a galloping then binary search over rowids
finds the first readable row after the damage (a seek into a damaged leaf fails, a seek past it
works), and the scan goes on from there. Which rows were lost is learnt from the tables' indexes
(separate pages), and rows whose columns all live in an index (tags, paper_tags) are rebuilt from it.
"""

from __future__ import annotations

import bisect
import functools
import json
import os
import sqlite3
import tempfile
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..output_files import target_of, write_text
from .connection import open_database
from .schema import migrate

MIN_ROWID = -(2**63)
MAX_ROWID = 2**63 - 1
# Parents before children, so foreign keys hold; tables not listed follow in name order.
TABLE_ORDER = ("meta", "papers", "tags", "paper_tags", "notes", "highlights", "saved_searches",
               "imports", "tombstones")
# Rows that point at a paper: kept in the orphans file when the paper itself was lost.
PAPER_CHILDREN = {"paper_tags": "paper_id", "notes": "paper_id", "highlights": "paper_id"}
ORPHANS_FILE = "recovery-orphans.json"


@dataclass
class TableRescue:
    name: str
    recovered: int = 0
    from_index: int = 0  # rows rebuilt from an index because their table page was unreadable
    lost: int | None = 0  # None: unknown (no readable index to count them)
    lost_keys: list[str] = field(default_factory=list)  # e.g. the ids of lost papers
    lost_ranges: list[tuple[int, int]] = field(default_factory=list)  # unreadable rowid spans
    orphaned: int = 0  # readable, but their paper or tag was lost (see the orphans file)
    invalid: int = 0  # readable, but rejected by the schema (garbage in a damaged row)
    error: str | None = None  # the table could not be read at all


@dataclass
class Rescue:
    source: Path
    dest: Path
    tables: list[TableRescue]
    orphans_file: Path | None

    def table(self, name: str) -> TableRescue | None:
        return next((t for t in self.tables if t.name == name), None)


def connect_source(path: Path) -> sqlite3.Connection:
    """Read-only, never writing the damaged file (a leftover -wal is still read where allowed)."""
    quoted = urllib.parse.quote(str(path))
    try:
        conn = sqlite3.connect(f"file:{quoted}?mode=ro", uri=True, isolation_level=None)
        conn.execute("SELECT 1").fetchone()
        conn.execute("PRAGMA schema_version").fetchone()
        return conn
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", None) not in (sqlite3.SQLITE_READONLY_DIRECTORY, sqlite3.SQLITE_CANTOPEN):
            raise
    return sqlite3.connect(f"file:{quoted}?mode=ro&immutable=1", uri=True, isolation_level=None)


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({_q(table)})")]


def _read_from(conn: sqlite3.Connection, table: str, cols: str, lo: int) -> Iterator[tuple]:
    yield from conn.execute(f"SELECT rowid, {cols} FROM {_q(table)} WHERE rowid >= ? ORDER BY rowid", [lo])


def _first_from(conn: sqlite3.Connection, table: str, cols: str, p: int) -> tuple | None:
    return conn.execute(
        f"SELECT rowid, {cols} FROM {_q(table)} WHERE rowid >= ? ORDER BY rowid LIMIT 1", [p]
    ).fetchone()


def _readable(conn: sqlite3.Connection, table: str, cols: str, p: int) -> bool:
    """Can the first row at or after rowid p be read (or is there none)?"""
    try:
        _first_from(conn, table, cols, p)
        return True
    except sqlite3.DatabaseError:
        return False


GALLOP_MAX_STEP = 4096  # rowids; bigger jumps could leap over a readable stretch into the next damage
PROBE_BUDGET = 200_000  # probes per damaged stretch when no index tells which rowids exist


def _next_readable(conn: sqlite3.Connection, table: str, cols: str, bad: int) -> int | None:
    """The smallest rowid > bad from which reading works again; None when nothing after bad reads.

    Used when no index lists the rowids: gallop (steps capped) to a readable probe, then bisect."""
    bad = max(bad, 0)  # Reader's rowids are positive: no need to gallop up from -2**63
    step, lo, probes = 1, bad, 0
    while True:
        p = min(lo + step, MAX_ROWID)
        probes += 1
        if _readable(conn, table, cols, p):
            hi = p
            break
        lo = p
        if p == MAX_ROWID or probes > PROBE_BUDGET:
            return None
        step = min(step * 2, GALLOP_MAX_STEP)
    while hi - lo > 1:  # smallest readable in (lo, hi]
        mid = (lo + hi) // 2
        if _readable(conn, table, cols, mid):
            hi = mid
        else:
            lo = mid
    return hi


def _next_known(conn: sqlite3.Connection, table: str, cols: str, bad: int, known: list[int]) -> int | None:
    """With the rowids known from an index: the first one after bad whose row reads again."""
    for rowid in known[bisect.bisect_right(known, bad) :]:
        if _readable(conn, table, cols, rowid):
            return rowid
    after = (known[-1] + 1) if known else bad + 1
    return after if after > bad and _readable(conn, table, cols, after) else None


def scan_table(conn: sqlite3.Connection, table: str, cols: list[str],
               known: Callable[[], list[int] | None] = lambda: None) -> tuple[list[tuple], list[tuple[int, int]]]:
    """Every readable row (rowid first) and the rowid spans that could not be read.

    known() gives the table's rowids (sorted) when an index can tell them; asked at the first damage."""
    colsql = ", ".join(_q(c) for c in cols)
    rows: list[tuple] = []
    lost: list[tuple[int, int]] = []
    known_rowids: list[int] | None = None
    asked = False
    lo = MIN_ROWID
    while True:
        try:
            for row in _read_from(conn, table, colsql, lo):
                rows.append(row)
                lo = row[0] + 1
            return rows, lost
        except sqlite3.DatabaseError:
            pass
        # The cursor reads one row ahead, so the row before the damage raised too: take rows one
        # at a time (LIMIT 1 stops without stepping further) until the damage itself.
        while lo <= MAX_ROWID:
            try:
                one = _first_from(conn, table, colsql, lo)
            except sqlite3.DatabaseError:
                break
            if one is None:
                return rows, lost
            rows.append(one)
            lo = one[0] + 1
        if lo > MAX_ROWID:
            return rows, lost
        if not asked:
            known_rowids, asked = known(), True
        if known_rowids is not None:
            nxt = _next_known(conn, table, colsql, lo, known_rowids)
        else:
            nxt = _next_readable(conn, table, colsql, lo)
        if nxt is None:
            lost.append((lo, MAX_ROWID))
            return rows, lost
        lost.append((lo, nxt - 1))
        lo = nxt


def _index_entries(conn: sqlite3.Connection, table: str) -> dict[int, dict] | None:
    """rowid → the column values the table's readable indexes hold (merged); None when none is readable."""
    merged: dict[int, dict] | None = None
    ipk = _integer_pk(conn, table)
    indexes = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", [table])]
    for idx in indexes:
        try:
            icols = [r[2] for r in conn.execute(f"PRAGMA index_info({_q(idx)})") if r[2] is not None]
            sel = ", ".join(["rowid", *(_q(c) for c in icols)])
            rows = conn.execute(f"SELECT {sel} FROM {_q(table)} INDEXED BY {_q(idx)}").fetchall()
        except sqlite3.DatabaseError:
            continue
        merged = {} if merged is None else merged
        for r in rows:
            values = merged.setdefault(r[0], {} if ipk is None else {ipk: r[0]})
            values.update(zip(icols, r[1:], strict=True))
    return merged


def _known_rowids(conn: sqlite3.Connection, table: str) -> list[int] | None:
    entries = _index_entries(conn, table)
    return None if entries is None else sorted(entries)


def _integer_pk(conn: sqlite3.Connection, table: str) -> str | None:
    """The INTEGER PRIMARY KEY column (an alias of the rowid), if any."""
    pk = [r for r in conn.execute(f"PRAGMA table_info({_q(table)})") if r[5]]
    if len(pk) == 1 and str(pk[0][2]).upper() == "INTEGER":
        return str(pk[0][1])
    return None


def _in_ranges(rowid: int, ranges: list[tuple[int, int]]) -> bool:
    return any(a <= rowid <= b for a, b in ranges)


def rescue(source: Path, dest_dir: Path, progress: Callable[[str], None] | None = None) -> Rescue:
    """Copy every readable row of `source` into dest_dir/library.sqlite3 (a new file; source untouched)."""
    dest_dir.mkdir(parents=True, exist_ok=True)
    final = dest_dir / "library.sqlite3"
    if final.exists():
        raise FileExistsError(f"{final} already exists; choose an empty folder")
    target_of(dest_dir / ORPHANS_FILE)  # a FIFO, device or folder there: refused before any work
    # A new file of our own under a unique name (two rescues into one folder never share it).
    fd, tmp_name = tempfile.mkstemp(prefix=".library.sqlite3.", suffix=".partial", dir=dest_dir)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        src = connect_source(source)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    out = sqlite3.connect(tmp, isolation_level=None)
    results: list[TableRescue] = []
    orphans: dict[str, list[dict]] = {}
    try:
        migrate(open_database(out), None, None)  # the current schema, empty
        # A new file, renamed into place only when complete (and synced): no journal needed meanwhile.
        out.execute("PRAGMA journal_mode = OFF")
        out.execute("PRAGMA synchronous = OFF")
        out.execute("PRAGMA foreign_keys = ON")
        src_tables = [r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        dest_tables = {r[0] for r in out.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        wanted = [t for t in TABLE_ORDER if t in src_tables] + sorted(
            t for t in src_tables if t not in TABLE_ORDER and t in dest_tables and not t.startswith("_")
        )
        papers: dict[str, int] = {}  # recovered paper ids
        tags: dict[int, str] = {}  # recovered tag id → name
        out.execute("BEGIN")
        for table in wanted:
            if progress:
                progress(f"reading {table}")
            res = TableRescue(table)
            results.append(res)
            if table not in dest_tables:
                res.error = "not part of this version's schema"
                continue
            try:
                cols = [c for c in _columns(src, table) if c in set(_columns(out, table))]
                rows, lost_ranges = scan_table(src, table, cols, functools.partial(_known_rowids, src, table))
            except sqlite3.DatabaseError as exc:
                res.error = str(exc)
                res.lost = None
                continue
            res.lost_ranges = lost_ranges
            records = [dict(zip(cols, r[1:], strict=True)) for r in rows]
            got = {r[0] for r in rows}
            if lost_ranges:
                entries = _index_entries(src, table)
                if entries is None:
                    res.lost = None
                else:
                    res.lost = 0
                    for rid, values in sorted(entries.items()):
                        if rid in got or not _in_ranges(rid, lost_ranges):
                            continue
                        if set(cols) <= set(values):  # every column is in an index: rebuild the row
                            records.append({c: values[c] for c in cols})
                            res.from_index += 1
                        else:
                            res.lost += 1
                            if table == "papers":
                                res.lost_keys.append(str(values.get("id", f"rowid {rid}")))
            _insert(out, table, records, res, papers, tags, orphans)
        out.execute("COMMIT")
        out.execute("PRAGMA optimize")
    except BaseException:
        if out.in_transaction:
            out.execute("ROLLBACK")
        out.close()
        src.close()
        tmp.unlink(missing_ok=True)
        raise
    out.close()
    src.close()
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    os.replace(tmp, final)
    orphans_file = None
    if any(orphans.values()):
        orphans_file = dest_dir / ORPHANS_FILE  # atomic, and never over a FIFO, device or folder
        write_text(orphans_file, json.dumps(orphans, ensure_ascii=False, indent=1, default=str) + "\n")
    return Rescue(Path(source), final, results, orphans_file)


def _insert(out: sqlite3.Connection, table: str, records: list[dict], res: TableRescue,
            papers: dict[str, int], tags: dict[int, str], orphans: dict[str, list[dict]]) -> None:
    parent_col = PAPER_CHILDREN.get(table)
    # meta: the old values (change_seq, text_version) replace the new schema's defaults
    verb = "INSERT OR REPLACE" if table == "meta" else "INSERT"
    statements: dict[tuple[str, ...], str] = {}
    for rec in records:
        if (parent_col and rec.get(parent_col) not in papers) or (table == "paper_tags" and rec.get("tag_id") not in tags):
            kept = dict(rec)
            if table == "paper_tags":
                kept["tag"] = tags.get(rec.get("tag_id"))  # type: ignore[arg-type]
            orphans.setdefault(table, []).append(kept)
            res.orphaned += 1
            continue
        names = tuple(rec)
        sql = statements.get(names)
        if sql is None:
            sql = statements[names] = (
                f"{verb} INTO {_q(table)} ({', '.join(_q(n) for n in names)}) VALUES ({', '.join('?' * len(names))})"
            )
        try:
            out.execute(sql, tuple(rec.values()))
        except sqlite3.Error:  # a damaged row the schema rejects (NULL, bad CHECK value, duplicate)
            res.invalid += 1
            continue
        res.recovered += 1
        if table == "papers":
            papers[rec["id"]] = 1
        elif table == "tags":
            tags[rec["id"]] = rec["name"]
