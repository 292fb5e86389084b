"""The papers' marks as the map draws them (year, state, first tag, title), kept as a derived
file (`map-marks.npz` beside `map.npz`) so a map opens without scanning the papers table.

Reading every paper's marks scans the whole table, abstracts and all (half a second at 50k
papers, most of a map's open). The copy is stamped with the change sequence it reflects; an
open reads only the papers written or deleted since (the `seq` index and the tombstones), and
reads all again when the copy is missing, damaged, ahead of the store or too far behind. Like
the map, it is never the source of truth."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from reader.derived_files import READ_ERRORS, open_npz, origin_of, save_npz
from reader.store import changes, map_rows
from reader.store.map_rows import READ, SKIPPED, STARRED, TAGGED, UNREAD, MapMarks
from reader.store.sql import read_snapshot

__all__ = ["READ", "SKIPPED", "STARRED", "TAGGED", "UNREAD", "MapMarks", "current", "load", "path_for", "save"]

FILE_NAME = "map-marks.npz"
VERSION = 1
PATCH_LIMIT = 5_000  # more papers changed since the copy: read them all again
SAVE_AFTER = 200  # papers patched in before the copy is written again
_SEP = "\x1f"  # the unit separator: in no id, tag or title (a title's control characters are dropped)


def path_for(root: Path) -> Path:
    return Path(root) / FILE_NAME


def _pack(texts: tuple[str, ...]) -> np.ndarray:
    return np.frombuffer(_SEP.join(t.replace(_SEP, " ") for t in texts).encode("utf-8"), dtype=np.uint8)


def _unpack(blob: np.ndarray, n: int) -> tuple[str, ...]:
    if n == 0:
        return ()
    parts = tuple(blob.tobytes().decode("utf-8").split(_SEP))
    if len(parts) != n:
        raise ValueError("marks file: column length")
    return parts


def save(path: Path, marks: MapMarks, stamp: int, origin: str | None = None) -> None:
    """Atomically (a reader never sees half a file)."""
    save_npz(path, ".map-marks-", origin=origin, arrays={
        "meta": np.array([VERSION, stamp, len(marks.ids)], dtype=np.int64), "ids": _pack(marks.ids),
        "year": np.array(marks.year, dtype=np.int32), "state": np.array(marks.state, dtype=np.int8),
        "tag": _pack(marks.tag), "title": _pack(marks.title)})


def load(path: Path, origin: str | None = None) -> tuple[MapMarks, int] | None:
    """(marks, stamp) of the stored copy, or None when missing, not a regular file, unreadable,
    of another version or origin (another library's, or from before a restore) or inconsistent."""
    try:
        with open_npz(path) as z:
            version, stamp, n = (int(v) for v in z["meta"])
            if version != VERSION or (origin is not None and origin_of(z) != origin):
                return None
            year, state = z["year"], z["state"]
            if year.shape != (n,) or state.shape != (n,):
                return None
            marks = MapMarks(_unpack(z["ids"], n), tuple(year.tolist()), tuple(state.tolist()),
                             _unpack(z["tag"], n), _unpack(z["title"], n))
            return marks, stamp
    except READ_ERRORS:
        return None


def _patch(old: MapMarks, touched: set[str], fresh: MapMarks) -> MapMarks:
    """`old` without the touched papers, then the touched papers that still exist."""
    keep = [i for i, pid in enumerate(old.ids) if pid not in touched]

    def column(old_col: tuple, new_col: tuple) -> tuple:
        return tuple(old_col[i] for i in keep) + new_col

    return MapMarks(column(old.ids, fresh.ids), column(old.year, fresh.year), column(old.state, fresh.state),
                    column(old.tag, fresh.tag), column(old.title, fresh.title))


def current(conn: sqlite3.Connection, root: Path) -> MapMarks:
    """Every paper's marks, up to date with the store: the stored copy with the papers changed
    since read again, or all read (and stored) when there is no usable copy."""
    path = path_for(root)
    origin = changes.origin(conn)
    stored = load(path, origin)
    with read_snapshot(conn):  # the stamp and the rows agree, whoever writes meanwhile
        stamp = changes.current_seq(conn)
        touched = None
        if stored is not None and stored[1] <= stamp:
            touched = changes.touched_since(conn, stored[1], PATCH_LIMIT)
        if stored is None or touched is None:
            marks = map_rows.map_marks(conn)
            patched = len(marks.ids)
        else:
            marks = _patch(stored[0], set(touched), map_rows.marks_of(conn, list(touched))) if touched else stored[0]
            patched = len(touched)
    if stored is None or touched is None or patched >= SAVE_AFTER:
        try:
            save(path, marks, stamp, origin)
        except OSError:  # a read-only folder: the map still shows, it only opens slower
            pass
    return marks
