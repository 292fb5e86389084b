"""Opening the library file safely: damage checks, read-only fallback, migrations and the daily backup."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..derived_files import prune_oldest
from ..errors import DatabaseDamagedError, LibraryEnvironmentError, classify_sqlite_error
from ..paths import LibraryPaths
from ..workers import lower_thread_priority
from .backups import BackupCancelled, all_backups, daily_due, take_backup
from .connection import PAGE_SIZE, open_connection, open_database
from .damage import DAMAGE_MARKER, damaged_error, is_damage_error, reason_of
from .schema import SCHEMA_MIGRATIONS, migrate

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"
ENV_READ_ONLY = "READER_READ_ONLY"  # "1": open the library read-only even where it could be written
QUICK_CHECK_LIMIT = 20  # problems listed; the first one is enough to know


@dataclass
class OpenedStore:
    conn: sqlite3.Connection
    read_only: bool
    maintenance: DailyMaintenance | None = None
    daily_due: bool = False  # the day's check and backup are due (started or not: see open_store)


def library_writable(paths: LibraryPaths) -> bool:
    """Can the folder (for -wal/-shm files, backups) and the file be written? READER_READ_ONLY=1 says no."""
    if os.environ.get(ENV_READ_ONLY, "") not in ("", "0"):
        return False
    root = paths.root
    if root.exists():
        if not os.access(root, os.W_OK | os.X_OK):
            return False
    elif not os.access(_existing_parent(root), os.W_OK | os.X_OK):
        return False
    db = paths.database
    return not db.exists() or os.access(db, os.W_OK)


def _existing_parent(p: Path) -> Path:
    while not p.exists() and p.parent != p:
        p = p.parent
    return p


def is_new_folder(paths: LibraryPaths) -> bool:
    """A folder where no library ever lived: no backups and no search index."""
    if all_backups(paths.backups_dir):
        return False
    index = paths.index_dir
    try:
        return not index.exists() or (index.is_dir() and not any(index.iterdir()))
    except OSError:
        return False


def check_file(paths: LibraryPaths) -> None:
    """Catch damage SQLite would not report: an empty file where a library lived, a foreign header.

    SQLite treats a zero-length file as a new empty database; Reader would then re-create the
    schema and re-import the samples over a library that was lost (e.g. truncated by a full disk)."""
    db = paths.database
    try:
        size = db.stat().st_size
    except FileNotFoundError:
        return
    except OSError as exc:
        raise LibraryEnvironmentError(f"{db} cannot be read ({exc.strerror})") from exc
    if size == 0:
        if is_new_folder(paths) and library_writable(paths):
            db.unlink()  # created moments before a crash: start again
            return
        raise damaged_error(db, "the file is empty (0 bytes)")
    try:
        with open(db, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise LibraryEnvironmentError(f"{db} cannot be read ({exc.strerror})") from exc
    if head != SQLITE_HEADER:
        raise damaged_error(db, "not an SQLite database: its header is damaged")


def integrity_check(conn: sqlite3.Connection, limit: int) -> list[str]:
    """PRAGMA integrity_check (the full one: indexes too): ["ok"], or up to `limit` problems."""
    return [r[0] for r in conn.execute(f"PRAGMA integrity_check({int(limit)})").fetchall()]


def quick_check(conn: sqlite3.Connection) -> list[str]:
    """PRAGMA quick_check's problems (empty when sound); a file too broken to check is one problem."""
    try:
        rows = [r[0] for r in conn.execute(f"PRAGMA quick_check({QUICK_CHECK_LIMIT})").fetchall()]
    except DatabaseDamagedError as exc:
        return [str(exc.__cause__ or exc)]
    except sqlite3.DatabaseError as exc:
        if is_damage_error(exc):
            return [reason_of(exc)]
        raise
    return [] if rows == ["ok"] else rows


def write_damage_marker(marker: Path, problems: list[str]) -> None:
    try:
        marker.write_text("PRAGMA quick_check found:\n" + "\n".join(problems) + "\n", encoding="utf-8")
    except OSError as exc:
        log.warning("cannot write %s: %s", marker, exc)


def open_store(paths: LibraryPaths, *, start_daily: bool = True) -> OpenedStore:
    """Open the library file, read-only when it can't be written; raise DatabaseDamagedError when damaged.

    Fast: the full-file check (quick_check) runs once a day on a background thread with the daily
    backup (start_daily=False: not started, the caller sees daily_due and starts it where nobody
    waits, see reader.store.daily), and synchronously here only when that check found damage last time."""
    read_only = not library_writable(paths)
    if read_only:
        if not paths.database.exists():
            raise LibraryEnvironmentError(f"{paths.root} cannot be written and holds no library yet")
    else:
        _ensure_folders(paths)
    check_file(paths)
    existed = paths.database.exists()
    marker = paths.backups_dir / DAMAGE_MARKER
    conn = None
    try:
        conn = open_connection(paths.database, readonly=read_only)
        if marker.exists():
            problems = quick_check(conn)
            if problems:
                raise damaged_error(paths.database, f"integrity check: {problems[0]}")
            if not read_only:
                marker.unlink(missing_ok=True)  # restored or repaired since
        db = open_database(conn)
        if read_only:
            if SCHEMA_MIGRATIONS.pending(db):
                raise LibraryEnvironmentError(
                    f"{paths.database} needs upgrading to this version of Reader, but the library is read-only"
                )
        else:
            migrate(db, paths.database, paths.backups_dir)  # Library.open then refreshes stale plain texts
    except DatabaseDamagedError:
        _close(conn)
        raise
    except Exception as exc:  # environment problems become one readable line
        _close(conn)
        if is_damage_error(exc):
            raise damaged_error(paths.database, reason_of(exc)) from exc
        raise classify_sqlite_error(exc) from exc
    maintenance = None
    due = not read_only and existed and daily_due(paths.backups_dir)
    if due and start_daily:
        maintenance = DailyMaintenance(paths.database, paths.backups_dir, marker, maintenance_connection)
        maintenance.start()
    return OpenedStore(conn, read_only, maintenance, due)


def upgrade_due(paths: LibraryPaths) -> bool:
    """Will opening this library rewrite its papers for this version of Reader (see upgrade_kind)?"""
    return upgrade_kind(paths) is not None


def upgrade_kind(paths: LibraryPaths) -> str | None:
    """What opening this library will rewrite first, so the caller can say so before the wait
    (about a minute at 100k papers, once): "schema" (migrations; a backup is taken first),
    "texts" (plain texts made by an older text version, recomputed in place) or "restored" (a
    restored or recovered copy, whose plain texts were left out and are recomputed). A cheap
    read-only look; None when there is nothing to do, no library yet, no paper, or it cannot be
    read (opening it then says why)."""
    if not paths.database.is_file():
        return None
    conn = None
    try:
        conn = open_connection(paths.database, readonly=True)
        db = open_database(conn)
        if "papers" not in db.table_names() or conn.execute("SELECT 1 FROM papers LIMIT 1").fetchone() is None:
            return None
        if SCHEMA_MIGRATIONS.pending(db):
            return "schema"
        from ..text import TEXT_VERSION
        from .changes import text_version

        version = text_version(conn)
        if version == TEXT_VERSION:
            return None
        return "restored" if version == 0 else "texts"
    except (sqlite3.Error, OSError, ValueError):
        return None
    finally:
        _close(conn)


def _ensure_folders(paths: LibraryPaths) -> None:
    """The library folder and backups/ are needed; logs/ is not (logging falls back, see reader.logs)."""
    try:
        paths.root.mkdir(parents=True, exist_ok=True)
        paths.backups_dir.mkdir(exist_ok=True)
    except OSError as exc:
        raise LibraryEnvironmentError(f"{exc.filename or paths.root}: cannot create the library folder "
                                      f"({exc.strerror})") from exc
    try:
        paths.logs_dir.mkdir(exist_ok=True)
    except OSError:
        pass


def maintenance_connection(path: Path) -> sqlite3.Connection:
    return open_connection(path, readonly=True)


def _close(conn: sqlite3.Connection | None) -> None:
    if conn is not None:
        try:
            conn.close()
        except sqlite3.Error:
            pass


class DailyMaintenance(threading.Thread):
    """Check the file (PRAGMA quick_check) and, when sound, take the daily backup — off the caller's thread.

    quick_check reads the whole file (≈1 s warm, ≈4 s cold at 50k papers), too slow for every open,
    so it runs here once a day; a damaged file is never backed up over the good copies. Damage found
    is written to the marker file that the next open checks (see reader.store.health).
    One runs at a time per library (reader.store.daily's lock): a thread finding another process
    at it leaves the day's work to that one; locked=True: the caller holds the lock already."""

    def __init__(self, db_path: Path, backups_dir: Path, marker: Path, connect, *, locked: bool = False) -> None:
        super().__init__(name="reader-daily-backup", daemon=True)
        self.db_path = db_path
        self.backups_dir = backups_dir
        self.marker = marker
        self._connect = connect
        self.backup: Path | None = None
        self.problems: list[str] = []
        self.error: BaseException | None = None
        self.cancelled = False
        self.skipped = False  # another process held the lock, or had done the day's work already
        self.pruned = (0, 0)  # fetched files dropped by the day's pruning: (files, bytes)
        self._locked = locked
        self._halt = threading.Event()
        self._busy_lock = threading.Lock()
        self._busy: sqlite3.Connection | None = None  # the connection a cancel interrupts
        # Called between the backup's stages and chunks (Library.yield_housekeeping_to): the
        # window's wait while the user is at the keys.
        self.pause: Callable[[], object] | None = None

    def cancel(self) -> None:
        """Stop soon (the library is closing): the backup is left for the next open, which still
        finds it due. At 50k papers a whole backup takes ~35 s on a loaded machine."""
        self._halt.set()
        with self._busy_lock:
            if self._busy is not None:
                self._busy.interrupt()

    def _stopped(self) -> bool:
        """Between two chunks of the backup: give way while the user is active, then say
        whether the library is closing."""
        pause = self.pause
        if pause is not None and not self._halt.is_set():
            pause()
        return self._halt.is_set()

    def _set_busy(self, conn: sqlite3.Connection | None) -> None:
        with self._busy_lock:
            self._busy = conn
            if conn is not None and self._halt.is_set():
                conn.interrupt()

    def run(self) -> None:
        # The check and the compression (bz2, GIL released) take a core for seconds beside the
        # window: at 100k papers the backup ran through the user's first triage steps after an
        # import, and the GUI thread waited for a core (stalls of 100-260 ms). Only on a thread
        # of its own (run() called directly, as a detached run does, keeps its caller's).
        if threading.current_thread() is self:
            lower_thread_priority()
        if self._locked:
            self._run()
            return
        from .daily import LockBusy, daily_lock

        try:
            with daily_lock(self.backups_dir, wait=False):
                if not daily_due(self.backups_dir):  # another process just took it
                    self.skipped = True
                    return
                self._run()
        except LockBusy:
            self.skipped = True
            log.info("daily backup of %s: another process is taking it", self.db_path)
        except OSError as exc:
            self.error = exc
            log.warning("daily backup of %s failed: %s", self.db_path, exc)

    def _run(self) -> None:
        conn = None
        try:
            conn = self._connect(self.db_path)
            self._set_busy(conn)
            self.problems = quick_check(conn)
            self._set_busy(None)
            if self._halt.is_set():
                raise BackupCancelled
            if self.problems:
                log.error("%s failed its daily check: %s", self.db_path, "; ".join(self.problems[:5]))
                write_damage_marker(self.marker, self.problems)
                return
            self.backup = take_backup(conn, self.backups_dir, stopped=self._stopped,
                                      on_target=self._set_busy)
            log.info("daily backup written to %s", self.backup)
            if not self._halt.is_set():
                self.pruned = prune_fetched(LibraryPaths(self.db_path.parent))
        except BackupCancelled:
            self.cancelled = True
            log.info("daily backup of %s stopped: the library closed; the next open takes it",
                     self.db_path)
        except sqlite3.OperationalError as exc:
            if self._halt.is_set():  # quick_check interrupted
                self.cancelled = True
            else:
                self.error = exc
                log.warning("daily backup of %s failed: %s", self.db_path, exc)
        except Exception as exc:  # a missed backup is logged, never an error for the user's action
            self.error = exc
            log.warning("daily backup of %s failed: %s", self.db_path, exc)
        finally:
            if conn is not None:
                conn.close()


ENV_SOURCES_CACHE_MB = "READER_SOURCES_CACHE_MB"
SOURCES_CACHE_MB = 1024


def prune_fetched(paths: LibraryPaths) -> tuple[int, int]:
    """Keep the fetched responses and parsed records (`sources/`) under the size cap
    (READER_SOURCES_CACHE_MB, default 1024 MB), dropping the least recently used first: a venue
    re-added offline stays cached while an old one is fetched anew if ever asked for again."""
    try:
        cap_mb = float(os.environ.get(ENV_SOURCES_CACHE_MB, "") or SOURCES_CACHE_MB)
    except ValueError:
        log.warning("%s is not a number of megabytes; keeping %d MB", ENV_SOURCES_CACHE_MB, SOURCES_CACHE_MB)
        cap_mb = SOURCES_CACHE_MB
    removed, freed = prune_oldest(paths.sources_dir, int(max(cap_mb, 0) * 1024 * 1024), (".resp", ".json"))
    if removed:
        log.info("fetched files: %d least recently used dropped (%.1f MB) to stay under %g MB",
                 removed, freed / 1e6, cap_mb)
    return removed, freed


# A file worth compacting: pages smaller than new files get (libraries made before 16 kB
# pages: a 100k library's 435 MB became 348 MB), or this share of its pages free.
COMPACT_FREE_SHARE = 0.25


def needs_compacting(conn: sqlite3.Connection) -> bool:
    """Whether the file has pages smaller than PAGE_SIZE or a quarter of them free."""
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    free = conn.execute("PRAGMA freelist_count").fetchone()[0]
    return page_size < PAGE_SIZE or (pages > 0 and free / pages >= COMPACT_FREE_SHARE)


def compact(path: Path, *, progress: Callable[[], int] | None = None, every: int = 1000) -> bool:
    """Rewrite the file into PAGE_SIZE pages without free space (VACUUM), when it needs it and
    nobody else has it open. Returns True if it was compacted.

    Only the daily work's detached process calls it (`run_detached`, after the check and the
    backup), never a command: the page size changes only outside WAL mode, and leaving WAL
    needs the file to itself, so with any other connection open (a window, a command) the
    switch fails at once (busy timeout 0) and the file stays as it is until another day.
    A crash or a kill mid-VACUUM leaves the file as it was: SQLite's rollback journal
    restores it when it is next opened. `progress`: SQLite's progress handler, called every
    `every` instructions (tests)."""
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=0)
    try:
        conn.execute("PRAGMA busy_timeout = 0")
        if not needs_compacting(conn):
            return False
        try:
            mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
        except sqlite3.OperationalError:  # another connection has it open
            return False
        if str(mode).lower() != "delete":
            return False
        try:
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            if progress is not None:
                conn.set_progress_handler(progress, every)
            conn.execute("VACUUM")
            conn.set_progress_handler(None, 0)
        finally:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("PRAGMA journal_mode = WAL")
        log.info("%s compacted into %d-byte pages", path, PAGE_SIZE)
        return True
    except sqlite3.Error as exc:  # compacting is an optimisation: the next day tries again
        log.warning("%s not compacted: %s", path, exc)
        return False
    finally:
        conn.close()


def run_detached(root: Path) -> int:
    """The detached run: wait for the lock, then check and back up the file if still due."""
    from ..logs import setup_logging
    from .daily import daily_lock

    paths = LibraryPaths(root)
    setup_logging(paths.logs_dir)
    with contextlib.suppress(OSError, AttributeError):
        os.nice(5)  # housekeeping: the user's own work goes first
    try:
        with daily_lock(paths.backups_dir, wait=True):
            if not paths.database.is_file() or not daily_due(paths.backups_dir):
                return 0
            job = DailyMaintenance(paths.database, paths.backups_dir, paths.backups_dir / DAMAGE_MARKER,
                                   maintenance_connection, locked=True)
            job.run()  # here, in this process's own thread
            if job.error is not None or job.problems:
                return 1
            if job.backup is not None:  # with a good backup taken, and only if nobody has it open
                compact(paths.database)
            return 0
    except OSError as exc:
        log.warning("daily backup of %s not taken: %s", root, exc)
        return 1
