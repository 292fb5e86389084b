"""The day's check and backup: one at a time per library across processes (reader.store.daily)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

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
