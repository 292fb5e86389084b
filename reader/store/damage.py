"""Recognise a damaged library file in any SQLite error and say so in one line (file, newest backup, doctor)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..errors import DatabaseDamagedError
from .backups import newest_backup

# Primary result codes that mean the file itself is broken, not Reader's SQL or the environment.
DAMAGE_CODES = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}
_DAMAGE_TEXT = ("database disk image is malformed", "file is not a database")
DAMAGE_MARKER = "damage-found.txt"  # in backups/: written when damage is seen, re-checked at the next open


def is_damage_error(exc: BaseException) -> bool:
    if isinstance(exc, DatabaseDamagedError):
        return True
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in DAMAGE_CODES
    text = str(exc).lower()
    return any(t in text for t in _DAMAGE_TEXT)


def mark_damaged(db_path: Path, reason: str) -> None:
    """Remember damage seen by a read in backups/DAMAGE_MARKER: later writes in this session
    refuse (known_damage), and the next open checks the whole file before going on."""
    marker = Path(db_path).parent / "backups" / DAMAGE_MARKER
    try:
        if marker.parent.is_dir() and not marker.exists():
            marker.write_text(f"a read found:\n{reason}\n", encoding="utf-8")
    except OSError:  # read-only library folder: the error itself still says what to run
        pass


def known_damage(db_path: Path) -> DatabaseDamagedError | None:
    """The damaged error to give a write when damage was found (by a read or the daily check)
    since the library was opened (the open removes a marker the file no longer deserves)."""
    marker = Path(db_path).parent / "backups" / DAMAGE_MARKER
    if not marker.exists():
        return None
    try:
        lines = marker.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    reason = lines[1].strip() if len(lines) > 1 else "damage found by an earlier check"
    return damaged_error(db_path, reason)


def damaged_error(db_path: Path, reason: str) -> DatabaseDamagedError:
    """The one-line message: which file, why, where the newest backup is, what to run."""
    backup = newest_backup(Path(db_path).parent / "backups")
    where = f"newest backup: {backup}" if backup else "no backup found in backups/"
    root = Path(db_path).parent
    return DatabaseDamagedError(
        f"{db_path} is damaged ({reason}); {where}. "
        f"Run `reader --data-dir {root} doctor --recover` to copy what is readable into a new library."
    )


def reason_of(exc: BaseException) -> str:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None and (code & 0xFF) == sqlite3.SQLITE_NOTADB:
        return "not an SQLite database: its header is damaged"
    return str(exc)


_cursor_next = sqlite3.Cursor.__next__


class _CheckedCursor(sqlite3.Cursor):
    """A cursor whose damage errors (on execute or on any later fetch) become DatabaseDamagedError."""

    def _damaged(self, exc: sqlite3.DatabaseError) -> DatabaseDamagedError:
        conn = self.connection
        db_path = getattr(conn, "db_path", None)
        if db_path is not None:
            mark_damaged(db_path, reason_of(exc))
        return damaged_error(db_path or Path("library.sqlite3"), reason_of(exc))

    def execute(self, *args, **kwargs):
        try:
            return super().execute(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if is_damage_error(exc):
                raise self._damaged(exc) from exc
            raise

    def executemany(self, *args, **kwargs):
        try:
            return super().executemany(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if is_damage_error(exc):
                raise self._damaged(exc) from exc
            raise

    def executescript(self, *args, **kwargs):
        try:
            return super().executescript(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if is_damage_error(exc):
                raise self._damaged(exc) from exc
            raise

    def fetchone(self):
        try:
            return super().fetchone()
        except sqlite3.DatabaseError as exc:
            if is_damage_error(exc):
                raise self._damaged(exc) from exc
            raise

    def fetchmany(self, *args, **kwargs):
        try:
            return super().fetchmany(*args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if is_damage_error(exc):
                raise self._damaged(exc) from exc
            raise

    def fetchall(self):
        try:
            return super().fetchall()
        except sqlite3.DatabaseError as exc:
            if is_damage_error(exc):
                raise self._damaged(exc) from exc
            raise

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return _cursor_next(self)  # not super(): this runs once per row
        except sqlite3.DatabaseError as exc:
            if is_damage_error(exc):
                raise self._damaged(exc) from exc
            raise


class CheckedConnection(sqlite3.Connection):
    """sqlite3.Connection whose queries report a damaged file as DatabaseDamagedError (a ReaderError).

    Every read and write path (GUI, CLI, sqlite-utils) then gives the one-line message at the first
    failing query instead of an internal error."""

    db_path: Path

    def cursor(self, factory=_CheckedCursor):
        return super().cursor(factory)

    def execute(self, *args, **kwargs):
        return self.cursor().execute(*args, **kwargs)

    def executemany(self, *args, **kwargs):
        return self.cursor().executemany(*args, **kwargs)

    def executescript(self, *args, **kwargs):
        return self.cursor().executescript(*args, **kwargs)
