"""Leaving a reading group, and joining under a name again: the mark a member that leaves writes
in its own folder (`left.json`: its name, library and when), so that the others stop counting it
as a member (no share of a division) while they keep its decisions.

The mark counts only for the library it names. Joining again from that library takes it away;
another library may take the name once it is there (the name passes to it: the others forget the
decisions of the library that left, and its files are replaced at the new one's first sync).
That mark then stays, naming the library that left: it no longer counts, and a member that had
not synced since the leave still sees why the name changed hands (with the mark gone, it would
see two libraries writing one name)."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..store import group as gs
from . import folder as fs
from .format import FORMAT, HEADER_KEY, BadLine, parse_header
from .meeting import now_iso
from .records import GroupSyncReport

MARK_CAP = 4096  # bytes of a mark read at most (it holds a few dozen)


@dataclass(frozen=True)
class LeftMark:
    name: str
    library: str
    left_at: str


def write_mark(own: Path, name: str, library: str) -> str:
    """Write this member's mark (atomically, never over a path that is no regular file); '' or
    the problem, in one line."""
    obj = {HEADER_KEY: FORMAT, "name": name, "library": library, "left_at": now_iso()}
    try:
        own.mkdir(exist_ok=True)
        fs.write_atomic(own / fs.LEFT_FILE, json.dumps(obj, separators=(",", ":")).encode("utf-8"))
    except OSError as exc:
        return (f"could not mark {name} as left in {own}: {exc.strerror or exc}; the others still count "
                f"{name} as a member (join again and leave once it can be written)")
    return ""


def read_mark(path: Path) -> LeftMark:
    """The mark at `path`: OSError when it can't be read (no regular file, too big), ValueError
    saying what is wrong with it."""
    data = fs.read_small(path, MARK_CAP)
    try:
        obj = json.loads(data)
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(obj, dict) or not isinstance(obj.get(HEADER_KEY), int):
        raise ValueError("not a mark of leaving the group")
    if obj[HEADER_KEY] > FORMAT:
        raise ValueError("from a newer Reader")
    name, library, left_at = obj.get("name"), obj.get("library"), obj.get("left_at")
    if not (isinstance(name, str) and isinstance(library, str) and library and isinstance(left_at, str)
            and left_at):
        raise ValueError("a mark of leaving without its name, library or time")
    try:
        datetime.fromisoformat(left_at)
    except ValueError:
        raise ValueError(f"its time {left_at[:40]!r} is no time") from None
    return LeftMark(name, library, left_at)


def mark_of(own: Path) -> LeftMark | None:
    """The mark in the member folder `own` when there is one (a regular file that reads as a
    mark of its name)."""
    try:
        mark = read_mark(own / fs.LEFT_FILE)
    except (OSError, ValueError):
        return None
    return mark if mark.name == own.name else None


def clear_mark(own: Path) -> None:
    """Take this member's mark away (joining again); a path that is no regular file is left
    alone (it is no mark). OSError when it can't be removed."""
    path = own / fs.LEFT_FILE
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISREG(st.st_mode):
        path.unlink(missing_ok=True)


def folder_library(path: Path) -> tuple[str, int]:
    """The library that writes a member folder, from its newest file's header ('' if none), and
    that generation."""
    try:
        found = fs.scan(path)
    except OSError:
        return "", 0
    for fname, _st in found.current():
        try:
            chunk = fs.read_lines(path / fname, 0, limit=fs.READ_CHUNK)
            if chunk.lines:
                return parse_header(chunk.lines[0][1]).library, found.gen
        except (OSError, BadLine):
            continue
    return "", found.gen


def passed_on(known: sqlite3.Row | None, own: Path, found: fs.MemberFiles, library: str) -> bool:
    """Whether files of another library than `library` under a member's name are the name's new
    writer's: `library` left (seen before, or its mark is there)."""
    if known is not None and known["left_at"]:
        return True
    mark = mark_of(own) if found.left is not None else None
    return mark is not None and mark.library == library


def member_left(conn: sqlite3.Connection, own: Path, found: fs.MemberFiles,
                stored: dict[tuple[str, str], tuple[int, int, int]], known: sqlite3.Row | None, library: str,
                report: GroupSyncReport) -> str | None:
    """When the member of the folder `own` left (None: it takes part), from its mark, read again
    when the mark or the member's library changed; the mark's state recorded in group_files.
    A mark that can't be read gives one line and counts as none."""
    member = own.name
    st = found.left
    if st is None:
        return None
    gs.put_file(conn, member, fs.LEFT_FILE, st.st_size, st.st_mtime_ns, st.st_size)
    seen = stored.get((member, fs.LEFT_FILE))
    if seen is not None and seen[:2] == (st.st_size, st.st_mtime_ns) and known is not None \
            and known["library"] == library:
        return known["left_at"]  # read before, as it is
    path = own / fs.LEFT_FILE
    try:
        mark = read_mark(path)
        if mark.name != member:
            raise ValueError(f"written for {mark.name!r}")
    except (OSError, ValueError) as exc:
        report.problems.append(f"{path}: {fs.reason(exc)}: ignored ({member} counts as a member)")
        return None
    if library and mark.library != library:
        return None  # the mark of the library that left the name before this one took it
    return mark.left_at
