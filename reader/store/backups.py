"""Backups of the library file in backups/: daily ones (the last few kept) and pre-migration ones.

A backup is the database copied through SQLite's backup API, with what is derived from it left
out: the plain texts are emptied (recomputed when the copy is opened: meta text_version is reset)
and the secondary indexes dropped (their CREATE statements kept in the copy's BACKUP_INDEXES
table; restoring or reading a backup builds them again). It is then bzip2-compressed to
`*.sqlite3.bz2`: at 100k papers the 244 MB database becomes a 40 MB backup (gzip of the copy
with its indexes, the format before, made 67 MB: bzip2 takes ~2x the CPU, once a day, off
anyone's way). Older `*.sqlite3.gz` and uncompressed `*.sqlite3` backups are still listed,
restored and read. bzip2 and gzip are in the standard library and any machine can open them.
"""

from __future__ import annotations

import bz2
import contextlib
import filecmp
import gzip
import logging
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger(__name__)

DAILY_PREFIX = "library-daily-"
BEFORE_PREFIX = "library-before-"  # taken before a schema migration
KEEP_DAILY = 7
KEEP_BEFORE = 2  # the newest pre-migration copies kept (each as big as a daily one)
DAILY_EVERY_S = 24 * 3600
COMPRESSED = ".sqlite3.bz2"
_GZIPPED = ".sqlite3.gz"  # backups written before the bzip2 ones
# A pre-migration copy is taken while the user waits (the upgrade's progress dialog): gzip,
# ~2x faster than bzip2 (57 MB at 100k in ~9 CPU-s), since it is rare and few are kept.
MIGRATION_SUFFIX = _GZIPPED
_PLAIN = ".sqlite3"
BACKUP_INDEXES = "reader_backup_indexes"  # in a backup: the CREATE INDEX statements it left out
_PARTIAL = ".partial"
_CHUNK = 1 << 20
_BZ2_LEVEL = 9  # 900 kB blocks; at 100k: 40 MB in ~20 CPU-s (gzip -6: 57 MB in 9; lzma -1: ~50 MB in 36)


class BackupCancelled(Exception):
    """The backup was stopped (the library is closing); nothing of it is left on disk."""


def _never() -> bool:
    return False


def _backup_files(backups_dir: Path, prefix: str) -> list[Path]:
    try:
        return [p for pattern in (f"{prefix}*{_PLAIN}", f"{prefix}*{COMPRESSED}", f"{prefix}*{_GZIPPED}")
                for p in backups_dir.glob(pattern) if p.is_file()]
    except OSError:
        return []


def all_backups(backups_dir: Path) -> list[Path]:
    """Every finished backup (daily and pre-migration, compressed or not), oldest first."""
    return sorted(_backup_files(backups_dir, "library-"), key=_mtime)


def newest_backup(backups_dir: Path) -> Path | None:
    found = all_backups(backups_dir)
    return found[-1] if found else None


def daily_backups(backups_dir: Path) -> list[Path]:
    """The daily backups, oldest first (their names sort by time)."""
    return sorted(_backup_files(backups_dir, DAILY_PREFIX), key=lambda p: p.name.split(".")[0])


def daily_due(backups_dir: Path, now: float | None = None) -> bool:
    """True when the newest daily backup is older than a day (or there is none)."""
    found = daily_backups(backups_dir)
    if not found:
        return True
    now = time.time() if now is None else now
    return now - _mtime(found[-1]) >= DAILY_EVERY_S


def write_backup(source: sqlite3.Connection, final: Path, *,
                 stopped: Callable[[], bool] = _never,
                 on_target: Callable[[sqlite3.Connection | None], None] | None = None) -> Path:
    """Copy the database behind source into final (a `*.sqlite3.bz2` path), compressed.

    Written under temporary names and renamed when complete, so a killed process never leaves
    half a backup that would count as the newest. `stopped` is asked between stages and chunks
    (BackupCancelled, nothing left behind); on_target is given the copy's connection while it is
    vacuumed, so a canceller can interrupt it, then None."""
    final.parent.mkdir(parents=True, exist_ok=True)
    copy = final.with_name(final.name.removesuffix(".gz").removesuffix(".bz2") + _PARTIAL)
    packed = final.with_name(final.name + _PARTIAL)
    try:
        target = sqlite3.connect(copy, check_same_thread=False)
        try:
            source.backup(target)  # one step: a consistent snapshot, writers in WAL mode go on
            _check(stopped)
            if on_target is not None:
                on_target(target)
            _drop_derived(target)
        except sqlite3.OperationalError as exc:
            if stopped():  # interrupted by the canceller
                raise BackupCancelled from exc
            raise
        finally:
            if on_target is not None:
                on_target(None)
            target.close()
        _check(stopped)
        with open(copy, "rb") as src, _packer(final, packed) as out:
            while chunk := src.read(_CHUNK):
                _check(stopped)
                out.write(chunk)
        os.replace(packed, final)
    except BaseException:
        packed.unlink(missing_ok=True)
        raise
    finally:
        copy.unlink(missing_ok=True)
    return final


def _check(stopped: Callable[[], bool]) -> None:
    if stopped():
        raise BackupCancelled


def _packer(final: Path, packed: Path):
    """The compressed file to write for a backup named final (by its suffix: bzip2, gzip)."""
    if final.name.endswith(".gz"):
        return gzip.open(packed, "wb", compresslevel=6)
    return bz2.open(packed, "wb", compresslevel=_BZ2_LEVEL)


def _opener(backup: Path):
    """How to read a backup file: by its suffix (bzip2, gzip or a plain SQLite file)."""
    if backup.name.endswith(".bz2"):
        return bz2.open
    return gzip.open if backup.name.endswith(".gz") else open


def _drop_derived(conn: sqlite3.Connection) -> None:
    """Empty the plain texts (derived from the abstracts) and mark them stale; drop the
    secondary indexes, keeping their CREATE statements in BACKUP_INDEXES.

    The VACUUM packs the rows again: at 100k the copy is then 178 MB (208 MB with its indexes,
    244 MB live), 40 MB bzip2-compressed."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "papers" not in tables or "meta" not in tables:
        return
    cols = {r[1] for r in conn.execute("PRAGMA table_info(papers)")}
    if "abstract_text" not in cols:
        return
    indexes = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
                           "ORDER BY rowid").fetchall()
    with conn:
        conn.execute("UPDATE papers SET abstract_text = ''")
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'text_version'")
        conn.execute(f"CREATE TABLE {BACKUP_INDEXES} (name TEXT NOT NULL, sql TEXT NOT NULL)")
        conn.executemany(f"INSERT INTO {BACKUP_INDEXES} VALUES (?, ?)", indexes)
        for name, _ in indexes:
            conn.execute(f'DROP INDEX "{name.replace(chr(34), chr(34) * 2)}"')
    conn.execute("VACUUM")


def rebuild_indexes(db_file: Path) -> None:
    """Build again the indexes a backup left out (a plain copy of a backup, before any use)."""
    conn = sqlite3.connect(db_file)
    try:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                            [BACKUP_INDEXES]).fetchone():
            return
        with conn:
            for (sql,) in conn.execute(f"SELECT sql FROM {BACKUP_INDEXES} ORDER BY rowid").fetchall():
                conn.execute(sql)
            conn.execute(f"DROP TABLE {BACKUP_INDEXES}")
    finally:
        conn.close()


def take_backup(source: sqlite3.Connection, backups_dir: Path, *, keep: int = KEEP_DAILY,
                **stop: Callable) -> Path:
    """A compressed daily backup (see write_backup, which takes `stop`'s keywords); old daily
    copies beyond `keep` are dropped."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    final = write_backup(source, backups_dir / f"{DAILY_PREFIX}{stamp}{COMPRESSED}", **stop)
    _drop_repeat(backups_dir, final)
    rotate(backups_dir, keep)
    return final


def _drop_repeat(backups_dir: Path, final: Path) -> None:
    """Delete the daily backup before `final` when its bytes are the same (nothing changed in
    between: a copy is made the same way each time), so that a week with no change keeps one
    copy, not seven; the new one stays, as the day's."""
    before = [p for p in daily_backups(backups_dir) if p != final]
    if not before or not before[-1].name.endswith(COMPRESSED):
        return
    try:
        if before[-1].stat().st_size == final.stat().st_size and filecmp.cmp(before[-1], final, shallow=False):
            before[-1].unlink(missing_ok=True)
    except OSError:
        pass  # kept: rotation drops it in time


def rotate(backups_dir: Path, keep: int = KEEP_DAILY) -> list[Path]:
    """Delete all but the newest `keep` daily backups and KEEP_BEFORE pre-migration ones (and
    stale partial ones); returns what went."""
    removed = []
    found = daily_backups(backups_dir)
    before = sorted(_backup_files(backups_dir, BEFORE_PREFIX), key=_mtime)
    for old in found[: max(len(found) - keep, 0)] + before[: max(len(before) - KEEP_BEFORE, 0)]:
        old.unlink(missing_ok=True)
        removed.append(old)
    for partial in backups_dir.glob(f"{DAILY_PREFIX}*{_PARTIAL}"):
        if time.time() - _mtime(partial) > 3600:  # another process may be writing a fresh one
            partial.unlink(missing_ok=True)
    return removed


@contextlib.contextmanager
def opened_backup(backup: Path) -> Iterator[Path]:
    """A plain SQLite file of the backup to read (a temporary copy when it is compressed)."""
    if not backup.name.endswith((".gz", ".bz2")):
        yield backup
        return
    with tempfile.TemporaryDirectory(prefix="reader-backup-") as tmp:
        plain = Path(tmp) / backup.name.removesuffix(".gz").removesuffix(".bz2")
        unpack(backup, plain)
        rebuild_indexes(plain)
        yield plain


def unpack(backup: Path, dest: Path) -> None:
    """Write the backup's database to dest (decompressing a `.bz2` or `.gz` one); its left-out
    indexes are not built yet (see rebuild_indexes)."""
    with _opener(backup)(backup, "rb") as src, open(dest, "wb") as out:
        shutil.copyfileobj(src, out, _CHUNK)


def restore(backup: Path, db_path: Path) -> Path | None:
    """Put the backup in place of db_path; the file it replaces is moved aside (returned).

    The backup is unpacked next to the library and checked before anything is moved; its
    plain texts are recomputed when the library next opens."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    fresh = db_path.with_name(db_path.name + f".restoring{_PARTIAL}")
    try:
        unpack(backup, fresh)
        rebuild_indexes(fresh)
        conn = sqlite3.connect(f"file:{fresh}?mode=ro", uri=True)
        try:
            ok = conn.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            conn.close()
        if ok != "ok":
            raise sqlite3.DatabaseError(f"{backup} is damaged too ({ok})")
        _new_origin(fresh)
        aside = None
        if db_path.exists():
            aside = db_path.with_name(f"{db_path.name}.replaced-{stamp}")
            os.replace(db_path, aside)
        for suffix in ("-wal", "-shm"):  # the old file's journal must not be replayed onto the backup
            side = db_path.with_name(db_path.name + suffix)
            if side.exists() and aside is not None:
                os.replace(side, aside.with_name(aside.name + suffix))
        os.replace(fresh, db_path)
        return aside
    finally:
        fresh.unlink(missing_ok=True)


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0


def _new_origin(db_file: Path) -> None:
    """A restored library is another origin: its change sequence went back, so derived files
    stamped with a later sequence of the replaced file (map.npz...) must not pass for current."""
    from .changes import mark_restored, new_origin

    conn = sqlite3.connect(db_file)
    try:
        with conn:
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone():
                new_origin(conn)
                mark_restored(conn)
    finally:
        conn.close()
