"""`reader doctor`: check the library file and rescue what is readable from a damaged one into a new library."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from typing import TextIO

from .errors import ReaderError
from .paths import LibraryPaths
from .store.backups import newest_backup, restore
from .store.damage import reason_of
from .store.health import DAMAGE_MARKER, SQLITE_HEADER, integrity_check, library_writable
from .store.recovery import Rescue, connect_source, rescue

INTEGRITY_LIMIT = 20  # problems printed
LOST_IDS_SHOWN = 8  # lost ids per line


def file_problem(db: Path) -> str | None:
    """Damage visible without SQLite: a missing, empty or foreign file."""
    if not db.exists():
        return "there is no library file"
    try:
        size = db.stat().st_size
        with open(db, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        return f"the file cannot be read ({exc.strerror})"
    if size == 0:
        return "the file is empty (0 bytes)"
    if head != SQLITE_HEADER:
        return "not an SQLite database: its header is damaged"
    return None


def integrity_problems(db: Path) -> list[str]:
    """PRAGMA integrity_check (the full one: indexes too); read-only."""
    try:
        conn = connect_source(db)
    except sqlite3.DatabaseError as exc:
        return [reason_of(exc)]
    try:
        rows = integrity_check(conn, INTEGRITY_LIMIT)
    except sqlite3.DatabaseError as exc:
        return [reason_of(exc)]
    finally:
        conn.close()
    return [] if rows == ["ok"] else rows


def default_destination(root: Path) -> Path:
    return root.with_name(f"{root.name}-recovered-{datetime.now().strftime('%Y%m%d-%H%M%S')}")


def run_doctor(data_dir: Path, recover: str | None, out: TextIO) -> int:
    """Check (and with recover not None, rescue into `recover` or a new sibling folder); exit status."""
    paths = LibraryPaths(Path(data_dir))
    db = paths.database
    backup = newest_backup(paths.backups_dir)
    backup_line = f"newest backup: {backup}" if backup else "no backup in backups/"
    problem = file_problem(db)
    if problem == "there is no library file":
        raise ReaderError(f"{db}: no library here")
    problems = [problem] if problem else integrity_problems(db)
    if not problems:
        print(f"{db}: sound (integrity check ok)", file=out)
        marker = paths.backups_dir / DAMAGE_MARKER
        if marker.exists() and library_writable(paths):
            marker.unlink(missing_ok=True)
        print(backup_line, file=out)
        if recover is None:
            return 0
    else:
        print(f"{db}: DAMAGED", file=out)
        for p in problems[:INTEGRITY_LIMIT]:
            print(f"  {p}", file=out)
        if recover is None:
            print(backup_line, file=out)
            print("Run `reader doctor --recover [DEST]` to copy every readable row into a new library folder "
                  "(the damaged file is left as it is).", file=out)
            return 1
    if problem:  # nothing for SQLite to read: only a backup can help
        print(f"Nothing can be read from {db} ({problem}).", file=out)
        print(backup_line, file=out)
        if backup:
            print("To go back to it: reader doctor --restore  (the damaged file is moved aside)", file=out)
        return 1
    dest = Path(recover).expanduser().resolve() if recover else default_destination(paths.root)
    if dest == paths.root.resolve():
        raise ReaderError("the rescue goes into a new folder, not the damaged library's own")
    if dest.exists() and any(dest.iterdir()):
        raise ReaderError(f"{dest} is not empty; give a new or empty folder")
    try:
        result = rescue(db, dest)
    except sqlite3.DatabaseError as exc:
        raise ReaderError(f"{db}: nothing could be rescued ({reason_of(exc)}); {backup_line}") from exc
    _print_rescue(result, out)
    print(f"the damaged file is untouched: {db}", file=out)
    print(backup_line, file=out)
    print(f"To use the rescued library: reader --data-dir {dest}  (or move {paths.root} aside and "
          f"rename {dest} to it)", file=out)
    return 0


def run_restore(data_dir: Path, backup: str, out: TextIO) -> int:
    """Put a backup (the newest when backup is "") in place of the library file; exit status."""
    paths = LibraryPaths(Path(data_dir))
    chosen = Path(backup).expanduser() if backup else newest_backup(paths.backups_dir)
    if chosen is None:
        raise ReaderError(f"{paths.backups_dir}: no backup to restore")
    if not chosen.is_file():
        raise ReaderError(f"{chosen}: no such backup")
    try:
        aside = restore(chosen, paths.database)
    except (OSError, EOFError, sqlite3.DatabaseError) as exc:  # bz2/gzip raise OSError/EOFError
        raise ReaderError(f"{chosen}: cannot be restored ({exc})") from exc
    print(f"restored {chosen} to {paths.database}", file=out)
    if aside is not None:
        print(f"the file it replaced is kept as {aside}", file=out)
    return 0


def _print_rescue(result: Rescue, out: TextIO) -> None:
    print(f"rescued into {result.dest}:", file=out)
    for t in result.tables:
        if t.error:
            print(f"  {t.name:<15} unreadable: {t.error}", file=out)
            continue
        parts = [f"{t.recovered} recovered"]
        if t.from_index:
            parts.append(f"{t.from_index} of them rebuilt from an index")
        if t.lost is None:
            spans = ", ".join(f"{a}–{b}" for a, b in t.lost_ranges[:5])
            parts.append(f"an unknown number lost (row ids {spans})")
        elif t.lost:
            parts.append(f"{t.lost} lost")
        if t.orphaned:
            parts.append(f"{t.orphaned} set aside (their paper or tag was lost)")
        if t.invalid:
            parts.append(f"{t.invalid} rejected as garbled")
        print(f"  {t.name:<15} " + ", ".join(parts), file=out)
    papers = result.table("papers")
    if papers and papers.lost_keys:
        # Every id, LOST_IDS_SHOWN to a line: the user looks each one up in the newest backup
        # ("and 13 more" left them nowhere to be found).
        keys = papers.lost_keys
        lines = [", ".join(keys[i:i + LOST_IDS_SHOWN]) for i in range(0, len(keys), LOST_IDS_SHOWN)]
        print(f"lost papers (ids; look for them in the newest backup): {lines[0]}", file=out)
        for line in lines[1:]:
            print(f"  {line}", file=out)
    if result.orphans_file:
        print(f"notes, tags and highlights of lost papers are kept in {result.orphans_file}", file=out)
