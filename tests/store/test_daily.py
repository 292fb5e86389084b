"""The day's check and backup: one at a time per library across processes (reader.store.daily)."""

from __future__ import annotations

import threading

from reader.services import Library
from reader.store.backups import daily_backups, daily_due
from reader.store.daily import daily_lock, run_detached


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
