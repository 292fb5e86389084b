"""Daily backups: taken at the second open of a day, complete compressed copies without what is
derived (plain texts, secondary indexes), the last seven kept."""

from __future__ import annotations

import gzip
import os
import shutil
import sqlite3
import time
from pathlib import Path

from reader.library import Library
from reader.store import backups
from reader.store.backups import (
    BACKUP_INDEXES,
    BEFORE_PREFIX,
    COMPRESSED,
    DAILY_PREFIX,
    KEEP_BEFORE,
    daily_backups,
    daily_due,
    newest_backup,
    opened_backup,
    restore,
    rotate,
    take_backup,
)
from reader.store.papers import PLAIN_SQL
from reader.text import abstract_plain


def test_first_open_takes_none_second_open_takes_one_copy(tmp_path):
    root = tmp_path / "lib"
    with Library.open(root) as lib:
        lib.set_starred([lib.paper_ids()[0]], True)
    assert not daily_backups(root / "backups")
    with Library.open(root) as lib:
        pass
    [copy] = daily_backups(root / "backups")
    assert copy.name.endswith(COMPRESSED) and copy.read_bytes()[:3] == b"BZh"  # bzip2
    assert copy.stat().st_size < (root / "library.sqlite3").stat().st_size / 4
    with opened_backup(copy) as plain:
        conn = sqlite3.connect(plain)
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


def test_a_daily_backup_the_same_as_the_one_before_replaces_it(tmp_path):
    """Nothing changed since the last daily backup: the new one (the same bytes) stays as the
    day's and the one before goes; after a change both are kept."""
    root = tmp_path / "lib"
    lib = Library.open(root)
    try:
        d = root / "backups"
        first = take_backup(lib._wconn, d)
        second = take_backup(lib._wconn, d)
        assert daily_backups(d) == [second] and not first.exists()
        pid = lib._wconn.execute("SELECT id FROM papers LIMIT 1").fetchone()[0]
        lib.set_starred([pid], True)
        third = take_backup(lib._wconn, d)
        assert daily_backups(d) == [second, third]
    finally:
        lib.close()


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


SEEDS = sorted((Path(__file__).resolve().parents[2] / "seeds").glob("*.txt"))


def _library(root: Path) -> Library:
    lib = Library.open(root, seed_if_empty=False)
    lib.import_files(SEEDS, index=False)
    return lib


def test_a_compressed_backup_restores_and_its_plain_texts_come_back(tmp_path):
    root = tmp_path / "lib"
    with _library(root) as lib:
        first = lib.paper_ids()[0]
        lib.set_starred([first], True)
        word = max(lib._reader().execute(f"SELECT {PLAIN_SQL} FROM papers WHERE id = ?", [first])
                   .fetchone()[0].split(), key=lambda w: (w.isalpha(), len(w)))
        copy = take_backup(lib._wconn, root / "backups")
        lib.set_starred([first], False)
        lib.delete_papers([lib.paper_ids()[1]])
    aside = restore(copy, root / "library.sqlite3")
    assert aside is not None and aside.exists()
    with Library.open(root) as lib:
        assert lib.counts().total == 56 and lib.paper(first).starred
        # emptied in the backup, recomputed at open (stored only where it is not the abstract)
        rows = lib._reader().execute(f"SELECT abstract, {PLAIN_SQL} FROM papers").fetchall()
        assert [plain for _, plain in rows] == [abstract_plain(abstract) for abstract, _ in rows]
        assert any(abstract != plain for abstract, plain in rows)
        lib.sync_index()
        assert first in [h.id for h in lib.search(word).hits]


def test_old_uncompressed_backups_are_still_listed_read_and_restored(tmp_path):
    root = tmp_path / "lib"
    with _library(root) as lib:
        lib.set_starred([lib.paper_ids()[0]], True)
        old = root / "backups" / f"{DAILY_PREFIX}20200101T000000000000.sqlite3"
        target = sqlite3.connect(old)
        lib._wconn.backup(target)
        target.close()
        lib.set_starred([lib.paper_ids()[0]], False)
        new = take_backup(lib._wconn, root / "backups")
    assert daily_backups(root / "backups") == [old, new]
    with opened_backup(old) as plain:
        assert plain == old
    restore(old, root / "library.sqlite3")
    with Library.open(root) as lib:
        assert lib.counts().starred == 1


def _indexes(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    return sorted(tuple(r) for r in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))


def test_a_backup_leaves_the_indexes_out_and_restoring_builds_them_again(tmp_path):
    root = tmp_path / "lib"
    with _library(root) as lib:
        live = _indexes(lib._wconn)
        copy = take_backup(lib._wconn, root / "backups")
    assert len(live) > 10
    plain = tmp_path / "plain.sqlite3"
    backups.unpack(copy, plain)
    conn = sqlite3.connect(plain)
    try:  # the copy itself: no secondary index, their statements kept
        assert _indexes(conn) == []
        assert sorted(conn.execute(f"SELECT name, sql FROM {BACKUP_INDEXES}")) == live
    finally:
        conn.close()
    with opened_backup(copy) as readable:
        conn = sqlite3.connect(readable)
        try:
            assert _indexes(conn) == live
            assert not conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", [BACKUP_INDEXES]).fetchone()
        finally:
            conn.close()
    restore(copy, root / "library.sqlite3")
    conn = sqlite3.connect(root / "library.sqlite3")
    try:
        assert _indexes(conn) == live and conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    with Library.open(root) as lib:
        assert lib.counts().total == 56


def test_gzipped_backups_of_earlier_versions_are_still_listed_read_and_restored(tmp_path):
    root = tmp_path / "lib"
    with _library(root) as lib:
        lib.set_starred([lib.paper_ids()[0]], True)
        plain = tmp_path / "old.sqlite3"
        target = sqlite3.connect(plain)
        lib._wconn.backup(target)  # as the gzip backups were: every index inside
        target.close()
        old = root / "backups" / f"{DAILY_PREFIX}20200101T000000000000.sqlite3.gz"
        with open(plain, "rb") as src, gzip.open(old, "wb") as out:
            shutil.copyfileobj(src, out)
        lib.set_starred([lib.paper_ids()[0]], False)
        new = take_backup(lib._wconn, root / "backups")
    assert daily_backups(root / "backups") == [old, new]
    with opened_backup(old) as readable:
        assert sqlite3.connect(readable).execute("SELECT sum(starred) FROM papers").fetchone() == (1,)
    restore(old, root / "library.sqlite3")
    with Library.open(root) as lib:
        assert lib.counts().starred == 1


def test_a_migration_backup_is_gzipped_and_only_the_newest_two_are_kept(tmp_path):
    d = tmp_path / "backups"
    d.mkdir()
    before = []
    for i in range(4):
        f = d / f"{BEFORE_PREFIX}m00{i:02d}_x-2026010{i + 1}T000000.sqlite3.gz"
        f.write_bytes(b"x")
        os.utime(f, (1_700_000_000 + i, 1_700_000_000 + i))
        before.append(f)
    src = sqlite3.connect(":memory:")
    src.execute("CREATE TABLE t (a)")
    take_backup(src, d)
    assert KEEP_BEFORE == 2 and [f.exists() for f in before] == [False, False, True, True]
    root = tmp_path / "lib"
    _library(root).close()
    conn = sqlite3.connect(root / "library.sqlite3")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = (SELECT max(name) FROM _sqlite_migrations)")
    conn.commit()
    conn.close()
    with Library.open(root, seed_if_empty=False):
        pass
    [taken] = [p for p in (root / "backups").iterdir() if p.name.startswith(BEFORE_PREFIX)]
    assert taken.name.endswith(".sqlite3.gz") and taken.read_bytes()[:2] == b"\x1f\x8b"


def test_a_damaged_backup_is_not_restored(tmp_path):
    db = tmp_path / "library.sqlite3"
    db.write_bytes(b"live")
    bad = tmp_path / f"{DAILY_PREFIX}20200101T000000000000{COMPRESSED}"
    bad.write_bytes(b"\x1f\x8bnot gzip")
    try:
        restore(bad, db)
    except (OSError, EOFError):
        pass
    assert db.read_bytes() == b"live" and sorted(p.name for p in tmp_path.iterdir()) == sorted([db.name, bad.name])


def _source_db(tmp_path: Path) -> sqlite3.Connection:
    src = sqlite3.connect(tmp_path / "src.sqlite3", check_same_thread=False)
    src.execute("CREATE TABLE t (x TEXT)")
    src.executemany("INSERT INTO t VALUES (?)", [("y" * 2000,) for _ in range(3000)])
    src.commit()
    return src


def test_a_backup_stopped_at_any_stage_leaves_nothing(tmp_path):
    """Closing the library stops the daily backup: whichever stage it is in, no file stays."""
    src = _source_db(tmp_path)
    for stop_after in range(1, 8):  # the stopped() calls: after the copy, before packing, per chunk
        d = tmp_path / f"backups{stop_after}"
        asked = []

        def stopped(n=stop_after, asked=asked):
            asked.append(1)
            return len(asked) >= n

        try:
            take_backup(src, d, stopped=stopped)
        except backups.BackupCancelled:
            pass
        else:  # the copy has fewer chunks than this stage number: it finished
            assert len(daily_backups(d)) == 1
            continue
        assert list(d.iterdir()) == [], stop_after
    src.close()


def test_closing_the_library_stops_its_daily_backup_and_the_next_open_takes_it(tmp_path):
    root = tmp_path / "lib"
    _library(root).close()
    lib = Library.open(root, seed_if_empty=False)  # second open: the daily backup is due
    job = lib._maintenance
    assert job is not None
    job.cancel()  # as close(finish_backup=False) does, here before the thread gets far
    lib.close()
    assert not job.is_alive()
    assert job.cancelled or job.backup is not None  # a very quick thread may have finished first
    if job.cancelled:
        assert daily_backups(root / "backups") == []
        assert daily_due(root / "backups")
        assert not [p for p in (root / "backups").iterdir() if p.name.endswith(".partial")]


def test_a_window_closing_stops_the_backup_a_cli_command_waits_for_it(tmp_path):
    root = tmp_path / "lib"
    _library(root).close()
    lib = Library.open(root, seed_if_empty=False)
    lib.close()  # a CLI command: the day's backup is finished first
    assert len(daily_backups(root / "backups")) == 1
