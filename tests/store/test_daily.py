"""The day's check and backup: one at a time per library across processes (reader.store.daily)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from reader.library import Library
from reader.store.backups import daily_backups, daily_due
from reader.store.daily import daily_lock
from reader.store.health import run_detached


def _library(root):
    Library.open(root).close()  # the first open takes no backup: the day's work is due now
    assert daily_due(root / "backups")


def test_a_window_thread_leaves_the_day_to_the_process_holding_the_lock(tmp_path):
    root = tmp_path / "lib"
    _library(root)
    with daily_lock(root / "backups", wait=False):  # another process is at it
        lib = Library.open(root)
        job = lib._maintenance
        lib.close()  # joins the thread
    assert job is not None and job.skipped and job.backup is None and job.error is None
    assert daily_backups(root / "backups") == [] and daily_due(root / "backups")


def test_a_detached_run_waits_for_the_lock_then_checks_and_backs_up(tmp_path):
    root = tmp_path / "lib"
    _library(root)
    results: list[int] = []
    with daily_lock(root / "backups", wait=False):
        run = threading.Thread(target=lambda: results.append(run_detached(root)))
        run.start()
        run.join(0.3)
        assert run.is_alive() and daily_backups(root / "backups") == []  # waiting for the lock
    run.join(60)
    assert results == [0] and len(daily_backups(root / "backups")) == 1
    assert not daily_due(root / "backups")


def test_a_detached_run_finding_the_day_done_does_nothing(tmp_path):
    root = tmp_path / "lib"
    _library(root)
    assert run_detached(root) == 0
    [first] = daily_backups(root / "backups")
    assert run_detached(root) == 0  # e.g. two commands both found it due
    assert daily_backups(root / "backups") == [first]


def test_the_lock_is_never_written_through_a_link(tmp_path):
    root = tmp_path / "lib"
    _library(root)
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep\n", encoding="utf-8")
    (root / "backups" / ".daily.lock").symlink_to(target)
    assert run_detached(root) == 0
    assert target.read_text(encoding="utf-8") == "keep\n"
    assert not (root / "backups" / ".daily.lock").is_symlink()


def test_a_read_only_command_answers_without_waiting_for_the_days_check(tmp_path):
    """`reader stats` with the day's check due answers at once; the check and backup follow
    in a detached process (here held back by the lock until the command has answered)."""
    root = tmp_path / "lib"
    _library(root)
    env = {**os.environ, "READER_DAILY_MAINTENANCE": ""}
    with daily_lock(root / "backups", wait=False):  # the day's work cannot start while we hold it
        proc = subprocess.run([sys.executable, "-m", "reader", "--data-dir", str(root), "stats"],
                              capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert "56" in proc.stdout  # the seeds' count
        assert daily_backups(root / "backups") == []  # answered before the day's work
    deadline = time.monotonic() + 300
    while not daily_backups(root / "backups") and time.monotonic() < deadline:
        time.sleep(0.05)
    with daily_lock(root / "backups", wait=True):  # the detached run has finished and let go
        assert len(daily_backups(root / "backups")) == 1
    assert not daily_due(root / "backups")


def test_a_cli_command_starts_no_thread_and_leaves_the_day_to_a_detached_run(tmp_path, monkeypatch, capsys):
    from reader.cli import run
    from reader.store import daily

    root = tmp_path / "lib"
    _library(root)
    started: list[tuple[object, str]] = []
    monkeypatch.setattr(daily, "spawn", lambda paths: started.append((paths.root, capsys.readouterr().out)))
    assert run(["--data-dir", str(root), "stats"]) == 0
    assert [r for r, _ in started] == [root]
    assert "56" in started[0][1]  # the answer was out before the day's work was started
    assert not any(t.name == "reader-daily-backup" for t in threading.enumerate())
    assert daily_backups(root / "backups") == []


def _shrink_pages(db, page_size: int = 4096) -> None:
    """The file as libraries made before 16 kB pages have it: 4 kB pages (and WAL)."""
    import sqlite3

    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute(f"PRAGMA page_size = {page_size}")
    conn.execute("VACUUM")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()


def _file_state(db) -> tuple[int, str, list, list]:
    import sqlite3

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return (conn.execute("PRAGMA page_size").fetchone()[0],
                conn.execute("PRAGMA integrity_check").fetchone()[0],
                conn.execute("SELECT id, title, abstract FROM papers ORDER BY id").fetchall(),
                conn.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall())
    finally:
        conn.close()


def test_the_days_detached_run_compacts_a_file_of_small_pages(tmp_path):
    """A library made with 4 kB pages is rewritten into 16 kB ones by the detached run, after
    its check and backup; every row stays; the next open finds WAL mode again."""
    from reader.store.connection import PAGE_SIZE

    root = tmp_path / "lib"
    _library(root)
    db = root / "library.sqlite3"
    _shrink_pages(db)
    size, ok, rows, schema = _file_state(db)
    assert size == 4096 and ok == "ok" and len(rows) == 56
    assert run_detached(root) == 0
    assert len(daily_backups(root / "backups")) == 1
    assert _file_state(db) == (PAGE_SIZE, "ok", rows, schema)
    assert db.read_bytes()[18:20] == b"\x02\x02"  # WAL mode again (the header's read/write versions)
    with Library.open(root, daily=False) as lib:
        assert len(lib.paper_ids()) == 56


def test_compacting_waits_for_a_day_nobody_has_the_file_open(tmp_path):
    from reader.store.health import compact

    root = tmp_path / "lib"
    _library(root)
    db = root / "library.sqlite3"
    _shrink_pages(db)
    with Library.open(root, daily=False) as lib:  # a window or a command has it open
        assert lib.paper_ids()
        assert not compact(db)  # at once: no waiting on the other connection
        assert _file_state(db)[0] == 4096
    assert compact(db) and _file_state(db)[0] == 16384
    assert not compact(db)  # nothing left to do


_KILL_MID_VACUUM = """
import os, sys
from pathlib import Path
from reader.store.health import compact
calls = [0]
def progress():
    calls[0] += 1
    if calls[0] == int(sys.argv[2]):
        os._exit(9)  # killed mid-VACUUM: no cleanup, no rollback of ours
    return 0
compact(Path(sys.argv[1]), progress=progress, every=10)
print(calls[0])
"""


def test_a_kill_mid_compaction_leaves_the_library_intact(tmp_path):
    root = tmp_path / "lib"
    _library(root)
    db = root / "library.sqlite3"
    _shrink_pages(db)
    before = _file_state(db)
    # How many progress calls a whole VACUUM makes, then a kill half-way through one.
    whole = subprocess.run([sys.executable, "-c", _KILL_MID_VACUUM, str(db), "-1"], capture_output=True,
                           text=True, check=True, timeout=120)
    total = int(whole.stdout.split()[-1])
    assert total > 4 and _file_state(db)[0] == 16384
    _shrink_pages(db)
    killed = subprocess.run([sys.executable, "-c", _KILL_MID_VACUUM, str(db), str(total // 2)],
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == 9, killed.stderr
    assert _file_state(db) == before  # the rollback journal put the file back as it was
    with Library.open(root, daily=False) as lib:
        assert len(lib.paper_ids()) == 56
    assert run_detached(root) == 0 and _file_state(db)[0] == 16384


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's own nice value is Linux's")
def test_the_windows_daily_backup_thread_runs_below_the_users_threads(tmp_path, monkeypatch):
    """The backup compresses the whole database on a thread of the window's process: it must
    yield the cores to the GUI thread and the workers (at 100k it ran through the first triage
    steps after an import, each beside ~20 CPU-s of bz2). The caller's thread keeps its own."""
    from reader.store import health
    from reader.workers import BACKGROUND_NICE, thread_nice

    root = tmp_path / "lib"
    _library(root)
    seen: list[tuple[str, int | None]] = []
    real = health.take_backup

    def spy(*args, **kwargs):
        seen.append((threading.current_thread().name, thread_nice()))
        return real(*args, **kwargs)

    monkeypatch.setattr(health, "take_backup", spy)
    before = thread_nice()
    lib = Library.open(root)
    lib.close()  # joins the thread
    assert seen and seen[0][0] == "reader-daily-backup"
    assert seen[0][1] is not None and seen[0][1] >= BACKGROUND_NICE
    assert thread_nice() == before  # only that thread was lowered
    assert len(daily_backups(root / "backups")) == 1


def test_the_daily_backup_gives_way_between_its_chunks(tmp_path):
    """The window's wait (while the user is at the keys) is asked between the backup's stages
    and chunks; the backup is still written whole."""
    from reader.store import health

    root = tmp_path / "lib"
    _library(root)
    backups = root / "backups"
    job = health.DailyMaintenance(root / "library.sqlite3", backups, backups / health.DAMAGE_MARKER,
                                  health.maintenance_connection)
    paused: list[str] = []
    job.pause = lambda: paused.append(threading.current_thread().name)
    job.start()
    job.join()
    assert job.backup is not None and job.error is None and not job.cancelled
    assert len(paused) >= 3 and set(paused) == {"reader-daily-backup"}
    assert daily_backups(backups) == [job.backup]


def test_the_library_hands_the_wait_to_its_running_daily_thread(tmp_path):
    root = tmp_path / "lib"
    _library(root)
    lib = Library.open(root)
    try:
        job = lib._maintenance
        assert job is not None
        wait = lambda: None  # noqa: E731
        lib.yield_housekeeping_to(wait)
        assert job.pause is wait
    finally:
        lib.close()
