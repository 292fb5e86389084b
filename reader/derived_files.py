"""Derived numpy files in the library folder (the map, its marks, triage's word counts): written
atomically, and checked before use, so a caller gets None (and builds them again) on any doubt.

They are never the source of truth: a reader that gets None recomputes from SQLite. Before use:
- the path must be a regular file (opened without following a link and without blocking, then
  fstat: a FIFO, a device or a folder there is never read, so it can never hang a command);
- its origin must be this library's (`store.changes.origin`, made anew by a restore): another
  library's file with an equal change sequence, or this one's from before a restore, is foreign;
- the caller checks its own shapes (lengths agree, places finite).
A derived file is written only over a regular file (or nothing): anything else at its name is
refused in one line naming that path (NotRegularFile)."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import NotRegularFile, file_kind

# What np.load and the unpacking of a damaged or foreign file can raise: the file is rebuilt.
# BadZipFile (a file cut short after its zip magic) is none of the others: it was missed.
READ_ERRORS = (OSError, ValueError, KeyError, IndexError, EOFError, UnicodeDecodeError, zlib.error,
               zipfile.BadZipFile)
ORIGIN_KEY = "origin"
__all__ = ["READ_ERRORS", "NotRegularFile", "check_writable", "mark_used", "open_npz", "origin_of", "prune_oldest",
           "read_regular", "save_bytes", "save_npz", "write_atomic"]
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
    | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of `path` if it is a regular file of at most `limit` bytes; None when it is
    missing, unreadable, larger, or a link, FIFO, device or folder (opened without blocking)."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        with os.fdopen(fd, "rb") as f:
            fd = -1
            return f.read(limit + 1)
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)


@contextlib.contextmanager
def open_npz(path: Path) -> Iterator[Any]:
    """np.load of `path` if it is a regular file (OSError otherwise, one of READ_ERRORS)."""
    fd = os.open(path, _READ_FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{path} is {file_kind(mode)}, not a regular file")
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    import numpy as np  # here: the CLI's reads and writes that use this module never load numpy

    with handle, np.load(handle, allow_pickle=False) as z:
        yield z


def origin_of(z: Any) -> str | None:
    """The origin a file was stamped with (None: an older file without one)."""
    if ORIGIN_KEY not in z.files:
        return None
    return str(z[ORIGIN_KEY].item())


def check_writable(path: Path) -> None:
    """Refuse (NotRegularFile, one line) when `path` holds anything but a regular file."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise NotRegularFile(f"{path} is {file_kind(mode)}, not a regular file; move it away and Reader builds it again")


def save_npz(path: Path, prefix: str, arrays: dict[str, Any], origin: str | None = None) -> None:
    """Write `arrays` (and the library's `origin`) to `path` atomically: beside it under a
    temporary name, then renamed, so a reader (another window, the CLI) never sees half a file."""
    import numpy as np

    if origin is not None:
        arrays = {**arrays, ORIGIN_KEY: np.array(origin, dtype=np.str_)}
    _save(path, prefix, ".npz", lambda f: np.savez(f, **arrays))


def save_bytes(path: Path, prefix: str, data: bytes) -> None:
    """Write `data` to `path` atomically under a unique temporary name (e.g. the search index's
    stamp): two writers at once each rename a whole file, and only over a regular file."""
    _save(path, prefix, ".tmp", lambda f: f.write(data))


def _save(path: Path, prefix: str, suffix: str, fill: Any, *, durable: bool = False) -> None:
    check_writable(path)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            fill(f)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        check_writable(path)  # again, right before the rename
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: Path, parts: tuple[bytes, ...], suffix: str) -> None:
    """Write `parts` to `path` as one file, atomically and durably (beside it under a unique
    ".part-" name, synced, then renamed), making its folder; NotRegularFile when anything but a
    regular file holds the name (checked before and again right before the rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _save(path, ".part-", suffix, lambda f: [f.write(part) for part in parts], durable=True)


def mark_used(path: Path) -> None:
    """Note that a cached file was just read (its modification time), so pruning keeps it longest."""
    with contextlib.suppress(OSError, NotImplementedError):
        os.utime(path, follow_symlinks=False)


def prune_oldest(folder: Path, max_bytes: int, suffixes: tuple[str, ...]) -> tuple[int, int]:
    """Delete the least recently used regular files named *suffixes under folder until the rest
    hold at most max_bytes; (files removed, bytes freed). Links are never followed (a linked
    folder is not entered, a link is not counted) and nothing but a regular file is removed;
    temporary files a writer still holds (".part-…") are left alone. A folder that cannot be read
    is skipped: pruning is housekeeping, it never fails a caller."""
    found: list[tuple[float, int, str]] = []
    stack = [str(folder)]
    while stack:
        top = stack.pop()
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False) and entry.name.endswith(suffixes) \
                        and not entry.name.startswith(".part-"):
                    st = entry.stat(follow_symlinks=False)
                    found.append((st.st_mtime, st.st_size, entry.path))
            except OSError:
                continue
    total = sum(size for _, size, _ in found)
    removed = freed = 0
    for _, size, path in sorted(found):
        if total <= max_bytes:
            break
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError:
            continue
        total -= size
        removed += 1
        freed += size
    return removed, freed
