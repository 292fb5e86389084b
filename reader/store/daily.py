"""The day's check and backup where nobody waits: one at a time per library, across processes.

The window runs it on a thread (reader.store.health.DailyMaintenance). A CLI command never runs
it before or during its work: when it is due, the command starts it in a detached process once
it has answered (`spawn`), which takes the lock, looks again whether it is still due (another
process may just have done it) and then checks and backs up the file
(reader.store.health.run_detached).
The lock is `backups/.daily.lock` (flock): a window's thread finding it held skips the day's
work, a detached run waits for it.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from ..paths import LibraryPaths

log = logging.getLogger(__name__)

LOCK_NAME = ".daily.lock"
ENV_DAILY = "READER_DAILY_MAINTENANCE"  # "off": a CLI command leaves the day's work to the next open
DETACHED_FLAG = "--daily-maintenance"  # `reader --daily-maintenance FOLDER`: the detached run
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class LockBusy(Exception):
    """Another process (or thread) holds the day's lock."""


def _lock_fd(path: Path) -> int:
    """Our own regular lock file at path, whatever was there (a link is removed, never followed)."""
    flags = os.O_RDWR | os.O_CREAT | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(3):
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            os.unlink(path)
            continue
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
        os.close(fd)
        if path.is_dir():
            raise OSError(errno.EISDIR, "a folder holds the lock's name", str(path))
        os.unlink(path)  # a FIFO or socket left under our name
    raise OSError(errno.EEXIST, "cannot create the lock", str(path))


@contextlib.contextmanager
def daily_lock(backups_dir: Path, *, wait: bool) -> Iterator[None]:
    """Hold the library's daily-work lock; LockBusy when wait=False and another holds it."""
    try:
        import fcntl
    except ImportError:  # Windows: no cross-process lock; the due check keeps repeats rare
        yield
        return
    fd = _lock_fd(backups_dir / LOCK_NAME)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise LockBusy(str(backups_dir / LOCK_NAME)) from None
        yield
    finally:
        os.close(fd)


def detached_command(root: Path) -> list[str]:
    """The command line of a detached run (a frozen bundle re-runs its own executable)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, DETACHED_FLAG, str(root)]
    return [sys.executable, "-m", "reader", DETACHED_FLAG, str(root)]


def spawn(paths: LibraryPaths) -> subprocess.Popen | None:
    """Start the day's check and backup in a detached process (no terminal, no pipes of ours:
    the caller exits at once, and a caller reading our output is not kept waiting)."""
    if os.environ.get(ENV_DAILY, "") == "off":
        return None
    try:
        return subprocess.Popen(
            detached_command(paths.root), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, close_fds=True, start_new_session=True, cwd=paths.root)
    except OSError as exc:  # the next open finds it still due
        log.warning("cannot start the daily backup of %s: %s", paths.root, exc)
        return None
