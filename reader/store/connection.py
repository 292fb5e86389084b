"""Open SQLite connections the way Reader needs them (WAL, foreign keys, busy timeout)."""

from __future__ import annotations

import sqlite3
import sys
import urllib.parse
from pathlib import Path

from .damage import CheckedConnection

# sqlite-utils imports numpy and pandas at its own import, whenever they are installed, only to
# map their scalar types to SQL column types when a table is made from values: numpy costs
# 0.15-0.3 s CPU, a fifth of a command's start and a tenth of the window's. Reader makes its
# tables from Python types (schema.py) and hands sqlite-utils no numpy or pandas values (papers
# are written with plain SQL), so it is imported without them, unless they are loaded already;
# both stay importable afterwards (the map, triage).
_HIDDEN = [name for name in ("numpy", "pandas") if name not in sys.modules]
for _name in _HIDDEN:
    sys.modules[_name] = None  # type: ignore[assignment]  # `import name` raises ImportError
try:
    import sqlite_utils
finally:
    for _name in _HIDDEN:
        if sys.modules.get(_name, False) is None:
            del sys.modules[_name]

BUSY_TIMEOUT_MS = 5000
# A paper's row (abstract, plain text, keys) is ~2.8 kB: in 4 kB pages one fits and the rest
# of the page stays empty (a 100k library's papers table was 28% unused space, 110 MB). In
# 16 kB pages five fit. Only a new file takes it (SQLite ignores it once a file has pages).
PAGE_SIZE = 16384


def open_connection(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode: transactions are opened explicitly with db.atomic()."""
    if readonly:
        conn = _connect_readonly(Path(path))
    else:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, factory=CheckedConnection)
    conn.db_path = Path(path)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # before WAL: a new file only
        conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL is durable across application crashes in WAL mode; only a power cut can lose
        # the last transaction, which is the usual desktop trade-off.
        conn.execute("PRAGMA synchronous = NORMAL")
    conn.row_factory = sqlite3.Row
    return conn


def _connect_readonly(path: Path) -> CheckedConnection:
    """mode=ro; in a folder that can't be written a WAL database needs immutable=1 (no -shm can be made)."""
    quoted = urllib.parse.quote(str(path))
    conn = sqlite3.connect(f"file:{quoted}?mode=ro", uri=True, isolation_level=None, check_same_thread=False,
                           factory=CheckedConnection)
    conn.db_path = path
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", None) not in (sqlite3.SQLITE_READONLY_DIRECTORY, sqlite3.SQLITE_CANTOPEN):
            raise
        conn.close()
    # Nobody can write this folder, so nothing changes under us; a leftover -wal is not read.
    return sqlite3.connect(f"file:{quoted}?mode=ro&immutable=1", uri=True, isolation_level=None,
                           check_same_thread=False, factory=CheckedConnection)


def open_database(conn: sqlite3.Connection) -> sqlite_utils.Database:
    """Wrap our own connection; plugins off so nothing outside Reader runs inside it."""
    return sqlite_utils.Database(conn, execute_plugins=False)


def close_writer(conn: sqlite3.Connection, *, optimize: bool = True) -> None:
    """Close the writer connection, letting SQLite refresh its query-planner statistics first."""
    try:
        if optimize:  # not on a read-only library: it would try to write
            conn.execute("PRAGMA optimize")
    finally:
        conn.close()
