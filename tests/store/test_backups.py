"""Daily backups: taken at the second open of a day, complete copies, the last seven kept."""

from __future__ import annotations

import os
import sqlite3
import time

from reader.services import Library
from reader.store import backups
from reader.store.backups import (
    DAILY_PREFIX,
    daily_backups,
    daily_due,
    newest_backup,
    rotate,
    take_backup,
)


def test_first_open_takes_none_second_open_takes_one_copy(tmp_path):
    root = tmp_path / "lib"
    with Library.open(root) as lib:
        lib.set_starred([lib.paper_ids()[0]], True)
    assert not daily_backups(root / "backups")
    with Library.open(root) as lib:
        pass
    [copy] = daily_backups(root / "backups")
    conn = sqlite3.connect(copy)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*), sum(starred) FROM papers").fetchone() == (56, 1)
    finally:
        conn.close()
    with Library.open(root):  # the same day: no second copy
        pass
    assert daily_backups(root / "backups") == [copy]


def test_due_after_a_day(tmp_path):
    d = tmp_path / "backups"
    d.mkdir()
    assert daily_due(d)
    f = d / f"{DAILY_PREFIX}20260101T000000000000.sqlite3"
    f.write_bytes(b"x")
    assert not daily_due(d)
    old = time.time() - backups.DAILY_EVERY_S - 10
    os.utime(f, (old, old))
    assert daily_due(d)


def test_rotation_keeps_the_last_seven_and_the_pre_migration_copies(tmp_path):
    d = tmp_path / "backups"
    d.mkdir()
    premigration = d / "library-before-m0002_abstract_text-20250101T000000.sqlite3"
    premigration.write_bytes(b"x")
    for day in range(1, 10):
        (d / f"{DAILY_PREFIX}202601{day:02d}T000000000000.sqlite3").write_bytes(b"x")
    partial = d / f"{DAILY_PREFIX}20260110T000000000000.sqlite3.partial"
    partial.write_bytes(b"half")
    old = time.time() - 7200
    os.utime(partial, (old, old))
    src = sqlite3.connect(":memory:")
    src.execute("CREATE TABLE t (a)")
    new = take_backup(src, d)
    kept = daily_backups(d)
    assert len(kept) == 7 and kept[-1] == new
    assert [p.name[len(DAILY_PREFIX) : len(DAILY_PREFIX) + 8] for p in kept[:-1]] == [
        f"202601{day:02d}" for day in range(4, 10)]
    assert premigration.exists() and not partial.exists()
    assert newest_backup(d) == new
    assert rotate(d) == []


def test_a_failed_backup_leaves_no_partial_file(tmp_path):
    d = tmp_path / "backups"
    d.mkdir()
    src = sqlite3.connect(":memory:")
    src.close()  # backing up a closed connection fails
    try:
        take_backup(src, d)
    except sqlite3.ProgrammingError:
        pass
    assert list(d.iterdir()) == []
