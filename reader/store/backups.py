"""Automatic daily copies of the library file in backups/ (the last few kept), beside the pre-migration ones."""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger(__name__)

DAILY_PREFIX = "library-daily-"
KEEP_DAILY = 7
DAILY_EVERY_S = 24 * 3600
_PARTIAL = ".partial"


def all_backups(backups_dir: Path) -> list[Path]:
    """Every finished backup (daily and pre-migration), oldest first."""
    try:
        found = [p for p in backups_dir.glob("library-*.sqlite3") if p.is_file()]
    except OSError:
        return []
    return sorted(found, key=_mtime)


def newest_backup(backups_dir: Path) -> Path | None:
    found = all_backups(backups_dir)
    return found[-1] if found else None


def daily_backups(backups_dir: Path) -> list[Path]:
    """The daily backups, oldest first (their names sort by time)."""
    try:
        return sorted(p for p in backups_dir.glob(f"{DAILY_PREFIX}*.sqlite3") if p.is_file())
    except OSError:
        return []


def daily_due(backups_dir: Path, now: float | None = None) -> bool:
    """True when the newest daily backup is older than a day (or there is none)."""
    found = daily_backups(backups_dir)
    if not found:
        return True
    now = time.time() if now is None else now
    return now - _mtime(found[-1]) >= DAILY_EVERY_S


def take_backup(source: sqlite3.Connection, backups_dir: Path, *, keep: int = KEEP_DAILY) -> Path:
    """Copy the database through the backup API (committed WAL pages included) and drop old daily copies.

    Written under a temporary name and renamed when complete, so a killed process never leaves
    half a backup that would count as the newest."""
    backups_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    final = backups_dir / f"{DAILY_PREFIX}{stamp}.sqlite3"
    tmp = final.with_name(final.name + _PARTIAL)
    try:
        target = sqlite3.connect(tmp)
        try:
            source.backup(target)  # one step: a consistent snapshot, writers in WAL mode go on
        finally:
            target.close()
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    rotate(backups_dir, keep)
    return final


def rotate(backups_dir: Path, keep: int = KEEP_DAILY) -> list[Path]:
    """Delete all but the newest `keep` daily backups (and stale partial ones); returns what went."""
    removed = []
    for old in daily_backups(backups_dir)[: max(len(daily_backups(backups_dir)) - keep, 0)]:
        old.unlink(missing_ok=True)
        removed.append(old)
    for partial in backups_dir.glob(f"{DAILY_PREFIX}*{_PARTIAL}"):
        if time.time() - _mtime(partial) > 3600:  # another process may be writing a fresh one
            partial.unlink(missing_ok=True)
    return removed


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0
