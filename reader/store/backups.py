"""Backups of the library file in backups/: daily ones (the last few kept) and pre-migration ones.

A backup is the database copied through SQLite's backup API, with the derived plain texts
emptied (they are recomputed when the copy is opened: meta text_version is reset), then
gzip-compressed to `*.sqlite3.gz`: at 50k papers 188 MB becomes ~26 MB, so the seven daily
copies together stay below the live file. Older uncompressed `*.sqlite3` backups are still
listed, restored and read. gzip is in the standard library and any machine can open it.
"""

from __future__ import annotations

import contextlib
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
KEEP_DAILY = 7
DAILY_EVERY_S = 24 * 3600
COMPRESSED = ".sqlite3.gz"
_PLAIN = ".sqlite3"
_PARTIAL = ".partial"
_CHUNK = 1 << 20
_GZIP_LEVEL = 6  # level 1 is ~3x faster but ~20% bigger: seven copies would pass the live file


class BackupCancelled(Exception):
    """The backup was stopped (the library is closing); nothing of it is left on disk."""


def _never() -> bool:
    return False


def _backup_files(backups_dir: Path, prefix: str) -> list[Path]:
    try:
        return [p for pattern in (f"{prefix}*{_PLAIN}", f"{prefix}*{COMPRESSED}")
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
    """Copy the database behind source into final (a `*.sqlite3.gz` path), compressed.

    Written under temporary names and renamed when complete, so a killed process never leaves
    half a backup that would count as the newest. `stopped` is asked between stages and chunks
    (BackupCancelled, nothing left behind); on_target is given the copy's connection while it is
    vacuumed, so a canceller can interrupt it, then None."""
    final.parent.mkdir(parents=True, exist_ok=True)
    copy = final.with_name(final.name.removesuffix(".gz") + _PARTIAL)
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
        with open(copy, "rb") as src, gzip.open(packed, "wb", compresslevel=_GZIP_LEVEL) as out:
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


def _drop_derived(conn: sqlite3.Connection) -> None:
    """Empty the plain texts (derived from the abstracts; half the file) and mark them stale.

    The VACUUM packs the rows again: at 50k the copy is then 100 MB, 26 MB gzipped (32 MB
    with the freed space only zeroed by secure_delete: seven would pass the live file)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "papers" not in tables or "meta" not in tables:
        return
    cols = {r[1] for r in conn.execute("PRAGMA table_info(papers)")}
    if "abstract_text" not in cols:
        return
    with conn:
        conn.execute("UPDATE papers SET abstract_text = ''")
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'text_version'")
    conn.execute("VACUUM")


def take_backup(source: sqlite3.Connection, backups_dir: Path, *, keep: int = KEEP_DAILY,
                **stop: Callable) -> Path:
    """A compressed daily backup (see write_backup, which takes `stop`'s keywords); old daily
    copies beyond `keep` are dropped."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    final = write_backup(source, backups_dir / f"{DAILY_PREFIX}{stamp}{COMPRESSED}", **stop)
    rotate(backups_dir, keep)
    return final


def rotate(backups_dir: Path, keep: int = KEEP_DAILY) -> list[Path]:
    """Delete all but the newest `keep` daily backups (and stale partial ones); returns what went."""
    removed = []
    found = daily_backups(backups_dir)
    for old in found[: max(len(found) - keep, 0)]:
        old.unlink(missing_ok=True)
        removed.append(old)
    for partial in backups_dir.glob(f"{DAILY_PREFIX}*{_PARTIAL}"):
        if time.time() - _mtime(partial) > 3600:  # another process may be writing a fresh one
            partial.unlink(missing_ok=True)
    return removed


@contextlib.contextmanager
def opened_backup(backup: Path) -> Iterator[Path]:
    """A plain SQLite file of the backup to read (a temporary copy when it is compressed)."""
    if not backup.name.endswith(".gz"):
        yield backup
        return
    with tempfile.TemporaryDirectory(prefix="reader-backup-") as tmp:
        plain = Path(tmp) / backup.name.removesuffix(".gz")
        unpack(backup, plain)
        yield plain


def unpack(backup: Path, dest: Path) -> None:
    """Write the backup's database to dest (decompressing a `.gz` one)."""
    opener = gzip.open if backup.name.endswith(".gz") else open
    with opener(backup, "rb") as src, open(dest, "wb") as out:
        shutil.copyfileobj(src, out, _CHUNK)


def restore(backup: Path, db_path: Path) -> Path | None:
    """Put the backup in place of db_path; the file it replaces is moved aside (returned).

    The backup is unpacked next to the library and checked before anything is moved; its
    plain texts are recomputed when the library next opens."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    fresh = db_path.with_name(db_path.name + f".restoring{_PARTIAL}")
    try:
        unpack(backup, fresh)
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
