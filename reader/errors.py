"""Exceptions the core raises; user errors carry a one-line message for the CLI and GUI."""

from __future__ import annotations

import sqlite3
import stat


class ReaderError(Exception):
    """A problem the user can act on (bad input, unknown id); shown as one line, never a traceback."""


class NotRegularFile(ReaderError, OSError):
    """A path Reader would write (an export, a derived file) holds a folder, a FIFO, a device or a
    link where a regular file must be: refused in one line, never written over."""


def file_kind(mode: int) -> str:
    """What a path that is not a regular file is, for NotRegularFile's message ("a folder")."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a link")):
        if test(mode):
            return name
    return "not a regular file"


class UsageError(ReaderError):
    """A command was called the wrong way (CLI exit status 2)."""


class InputFileError(ReaderError):
    """A file cannot be imported at all; names the file and, where known, the line or record."""

    def __init__(self, path: object, message: str, line: int | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.reason = message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {message}")


class LibraryEnvironmentError(ReaderError):
    """The library cannot be used because of its environment (disk full, locked, read-only)."""


class DatabaseDamagedError(LibraryEnvironmentError):
    """The library file is damaged (corrupt pages, bad header, truncated); `reader doctor` rescues it."""


READ_ONLY_MESSAGE = "The library is read-only: check the folder's permissions."


_ENV_MARKERS = (
    ("database or disk is full", "The disk is full: free some space and try again."),
    ("disk i/o error", "The library file could not be read or written (disk I/O error)."),
    ("database is locked", "The library is locked by another program (is Reader open twice?)."),
    ("readonly database", READ_ONLY_MESSAGE),
    ("attempt to write a readonly", READ_ONLY_MESSAGE),
    ("unable to open database", "The library file cannot be opened: check the folder exists and is writable."),
)


# By primary result code (like qutebrowser's misc/sql.py): these come from the environment, not
# from a bug in Reader's SQL. SQLITE_CORRUPT/NOTADB are DatabaseDamagedError (reader.store.damage).
_ENV_CODES = {
    sqlite3.SQLITE_FULL: "The disk is full: free some space and try again.",
    sqlite3.SQLITE_IOERR: "The library file could not be read or written (disk I/O error).",
    sqlite3.SQLITE_BUSY: "The library is locked by another program (is Reader open twice?).",
    sqlite3.SQLITE_LOCKED: "The library is locked by another program (is Reader open twice?).",
    sqlite3.SQLITE_READONLY: READ_ONLY_MESSAGE,
    sqlite3.SQLITE_PERM: READ_ONLY_MESSAGE,
    sqlite3.SQLITE_CANTOPEN: "The library file cannot be opened: check the folder exists and is writable.",
}


def classify_sqlite_error(exc: BaseException) -> BaseException:
    """Map an environment-caused SQLite error to a friendly LibraryEnvironmentError; keep bugs as they are."""
    if isinstance(exc, sqlite3.OperationalError | sqlite3.DatabaseError):
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None and (code & 0xFF) in _ENV_CODES:
            return LibraryEnvironmentError(_ENV_CODES[code & 0xFF])
        text = str(exc).lower()
        for marker, message in _ENV_MARKERS:
            if marker in text:
                return LibraryEnvironmentError(message)
    if isinstance(exc, OSError) and exc.errno in (28, 30, 13):  # ENOSPC, EROFS, EACCES
        return LibraryEnvironmentError(f"The library folder cannot be written: {exc.strerror}.")
    return exc
