"""Opening a library: damaged, empty or foreign files are refused in one line; read-only libraries open for reading."""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from reader import logs
from reader.errors import DatabaseDamagedError, LibraryEnvironmentError, classify_sqlite_error
from reader.library import Library
from reader.store import health
from reader.store.backups import daily_backups
from reader.store.connection import open_connection
from reader.store.health import DailyMaintenance

from .damaging import overwrite_page, table_leaves


def _daily_backup(root):
    with Library.open(root, seed_if_empty=False):
        pass  # the second open of a library takes the daily backup (joined at close)
    [backup] = daily_backups(root / "backups")
    return backup


def test_the_first_failing_query_names_the_file_and_the_newest_backup(library):
    root, _ = library
    backup = _daily_backup(root)
    db = root / "library.sqlite3"
    leaves = table_leaves(db, "papers")
    overwrite_page(db, leaves[len(leaves) // 2][0])
    with Library.open(root, seed_if_empty=False) as lib:  # opening reads no paper page
        with pytest.raises(DatabaseDamagedError) as err:
            lib.papers(lib.paper_ids())
    msg = str(err.value)
    assert str(db) in msg and str(backup) in msg and "doctor --recover" in msg and "\n" not in msg


def test_an_empty_file_where_a_library_lived_is_not_reseeded(library):
    root, _ = library
    _daily_backup(root)
    db = root / "library.sqlite3"
    db.write_bytes(b"")
    with pytest.raises(DatabaseDamagedError, match="empty"):
        Library.open(root)
    assert db.stat().st_size == 0


def test_an_empty_file_in_a_new_folder_is_a_new_library(tmp_path):
    root = tmp_path / "lib"
    root.mkdir()
    (root / "library.sqlite3").write_bytes(b"")  # e.g. killed right after creating it
    with Library.open(root) as lib:
        assert lib.counts().total == 56


def test_an_empty_file_beside_an_index_is_damage(tmp_path):
    root = tmp_path / "lib"
    (root / "index").mkdir(parents=True)
    (root / "index" / "reader-stamp.json").write_text("{}", encoding="utf-8")
    (root / "library.sqlite3").write_bytes(b"")
    with pytest.raises(DatabaseDamagedError, match="empty"):
        Library.open(root)


def test_a_foreign_header_is_damage(library):
    root, _ = library
    db = root / "library.sqlite3"
    data = db.read_bytes()
    db.write_bytes(b"garbage garbage " + data[16:])
    with pytest.raises(DatabaseDamagedError, match="header is damaged"):
        Library.open(root)
    assert db.read_bytes()[:16] == b"garbage garbage "  # left as it was


def test_the_daily_check_marks_damage_and_the_next_open_refuses(library):
    root, _ = library
    db = root / "library.sqlite3"
    pristine = db.read_bytes()
    leaves = table_leaves(db, "notes")
    overwrite_page(db, leaves[0][0])
    marker = root / "backups" / health.DAMAGE_MARKER
    check = DailyMaintenance(db, root / "backups", marker, lambda p: open_connection(p, readonly=True))
    check.run()  # in this thread
    assert check.problems and check.backup is None and marker.exists()
    assert not daily_backups(root / "backups")  # a damaged file is never backed up
    with pytest.raises(DatabaseDamagedError, match="integrity check"):
        Library.open(root)
    db.write_bytes(pristine)  # e.g. the user restored a backup
    with Library.open(root, seed_if_empty=False) as lib:
        assert lib.counts().total == 600
    assert not marker.exists()


def test_errors_are_classified_by_result_code(tmp_path):
    db = tmp_path / "x.sqlite3"
    sqlite3.connect(db).execute("CREATE TABLE t (a)").connection.close()
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as err:
        conn.execute("INSERT INTO t VALUES (1)")
    mapped = classify_sqlite_error(err.value)
    assert isinstance(mapped, LibraryEnvironmentError) and "read-only" in str(mapped)
    bug = sqlite3.OperationalError("no such column: x")
    assert classify_sqlite_error(bug) is bug  # a bug stays a bug


# ---------------------------------------------------------------- read-only libraries
def _check_read_only(root, info):
    db = root / "library.sqlite3"
    before = db.read_bytes()
    with Library.open(root) as lib:
        assert lib.read_only
        ids = lib.paper_ids()
        assert len(ids) == len(info["papers"])
        assert lib.paper(ids[0]).title == info["papers"][ids[0]]["title"]
        lib.sync_index()  # nothing to do: the index can't be written
        backup = lib.backup_data()
        assert len(backup["papers"]) == len(info["papers"])
        for write in (lambda: lib.set_starred([ids[0]], True), lambda: lib.add_tags([ids[0]], ["x"]),
                      lambda: lib.set_note(ids[0], "new"), lambda: lib.save_search("n", "q"), lib.reindex):
            with pytest.raises(LibraryEnvironmentError, match="read-only"):
                write()
    assert db.read_bytes() == before
    assert not daily_backups(root / "backups")


def test_read_only_by_environment_variable(library, monkeypatch):
    root, info = library
    monkeypatch.setenv(health.ENV_READ_ONLY, "1")
    _check_read_only(root, info)


def test_read_only_when_the_folder_is_not_writable(library, monkeypatch):
    """As root (CI) chmod does not stop writes, so os.access is made to say what a user would see;
    this proves the detection and the read-only behaviour, not the OS refusing the write."""
    root, info = library
    real = os.access

    def access(path, mode, *a, **kw):
        if mode & os.W_OK and str(path).startswith(str(root)):
            return False
        return real(path, mode, *a, **kw)

    monkeypatch.setattr(health.os, "access", access)
    _check_read_only(root, info)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root ignores permissions")
def test_read_only_folder_for_real(library):
    """With real permissions (non-root): no -shm can be made, so the WAL file opens immutable."""
    root, info = library
    for p in [root, *root.rglob("*")]:
        p.chmod(0o555 if p.is_dir() else 0o444)
    try:
        _check_read_only(root, info)
    finally:
        for p in [root, *root.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)


def test_a_read_only_library_with_unwritable_logs_reads_searches_and_exports(library, tmp_path):
    root, info = library
    with Library.open(root, seed_if_empty=False) as lib:
        lib.sync_index()
        title = next(iter(info["papers"].values()))["title"]
    shutil.rmtree(root / "logs")
    (root / "logs").write_text("not a folder", encoding="utf-8")  # even root can't create logs/reader.log
    env = {**os.environ, "READER_DATA_DIR": str(root), health.ENV_READ_ONLY: "1"}

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "reader", *args], capture_output=True, text=True, env=env,
                              timeout=300)

    assert cli("list").returncode == 0
    found = cli("search", title, "--json")
    assert found.returncode == 0 and title in found.stdout, found.stderr
    out = tmp_path / "backup.json"
    assert cli("export", "json", str(out)).returncode == 0 and out.exists()
    pid = next(iter(info["papers"]))
    star = cli("star", pid)
    assert star.returncode == 1 and "read-only" in star.stderr and "internal error" not in star.stderr
    env.pop(health.ENV_READ_ONLY)
    assert '"starred": false' in cli("show", pid, "--json").stdout


def test_logs_fall_back_to_a_temp_folder_then_stderr(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("x", encoding="utf-8")
    monkeypatch.setattr(logs, "_configured", set())
    monkeypatch.setattr(logs.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    logger = logging.getLogger("reader")
    before = list(logger.handlers)
    try:
        path = logs.setup_logging(blocked / "logs")
        assert path is not None and path.parent.parent == tmp_path / "tmp"
        monkeypatch.setattr(logs, "_configured", set())
        monkeypatch.setattr(logs.tempfile, "gettempdir", lambda: str(blocked))
        monkeypatch.setattr(logs, "_stderr_handler", None)
        assert logs.setup_logging(blocked / "logs") is None
        assert any(isinstance(h, logging.StreamHandler) and getattr(h, "stream", None) is sys.stderr
                   for h in logger.handlers)
    finally:
        for h in logger.handlers[:]:
            if h not in before:
                logger.removeHandler(h)
                h.close()


def _stale_texts(root) -> None:
    """Make the library look written by an older Reader: plain texts of another text version."""
    conn = sqlite3.connect(root / "library.sqlite3")
    with conn:
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'text_version'")
    conn.close()


def test_upgrade_due_only_when_opening_would_rewrite_the_papers(library, tmp_path):
    root, _ = library
    assert not Library.upgrade_due(tmp_path / "nowhere")  # no library yet
    assert not Library.upgrade_due(root)  # up to date
    _stale_texts(root)
    assert Library.upgrade_due(root)
    with Library.open(root, seed_if_empty=False):
        pass  # the open did the upgrade
    assert not Library.upgrade_due(root)
    conn = sqlite3.connect(root / "library.sqlite3")
    with conn:
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = (SELECT max(name) FROM _sqlite_migrations)")
    conn.close()
    assert Library.upgrade_due(root)  # a migration pending (not applied here: it would run again)
    empty = tmp_path / "empty"
    Library.open(empty, seed_if_empty=False).close()
    _stale_texts(empty)
    assert not Library.upgrade_due(empty)  # nothing to rewrite in a library without papers


def test_the_cli_says_it_is_upgrading_before_the_wait(library):
    root, _ = library
    env = {**os.environ, "READER_DATA_DIR": str(root)}
    quiet = subprocess.run([sys.executable, "-m", "reader", "--data-dir", str(root), "stats"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert quiet.returncode == 0 and "upgrading" not in quiet.stderr
    _stale_texts(root)
    loud = subprocess.run([sys.executable, "-m", "reader", "--data-dir", str(root), "stats"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert loud.returncode == 0, loud.stderr
    assert loud.stderr.startswith(f"reader: upgrading the library in {root} to this version of Reader"), loud.stderr
    assert loud.stderr.count("\n") == 1
    assert "plain texts" in loud.stderr and "backup" not in loud.stderr  # no migration, so no backup
    again = subprocess.run([sys.executable, "-m", "reader", "--data-dir", str(root), "stats"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert "upgrading" not in again.stderr


def test_the_first_command_after_a_restore_says_what_it_prepares(library):
    """A restored backup holds no plain texts: the next command recomputes them and says so,
    without claiming an upgrade or a backup that does not happen."""
    root, _ = library
    env = {**os.environ, "READER_DATA_DIR": str(root)}

    def reader(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "reader", "--data-dir", str(root), *argv],
                              capture_output=True, text=True, env=env, timeout=120)

    from reader.store.backups import take_backup

    with Library.open(root, seed_if_empty=False) as lib:
        take_backup(lib._wconn, root / "backups")
    restored = reader("doctor", "--restore")
    assert restored.returncode == 0, restored.stderr
    first = reader("stats")
    assert first.returncode == 0, first.stderr
    assert first.stderr == f"reader: preparing the restored library in {root} (its abstracts' plain texts, once)…\n"
    again = reader("stats")
    assert again.stderr == "" and again.stdout == first.stdout
