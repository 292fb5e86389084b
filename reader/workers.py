"""Worker processes that die with their parent (a kill -9 of Reader must leave none behind), and
background threads that yield the CPU to the user's own work."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

WATCH_SECONDS = 0.5  # how often a worker checks that its parent is alive


def _watch(parent: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        if os.getppid() != parent:  # re-parented: the parent is gone and nobody would stop us
            os._exit(3)


def watch_parent(parent: int) -> None:
    """In a worker process: exit within WATCH_SECONDS once the process `parent` is gone."""
    threading.Thread(target=_watch, args=(parent,), daemon=True, name="reader-parent-watch").start()


# Nice value of a background thread: it runs when the window's own threads (painting, searches,
# the writer) leave a core free, and gets about a tenth of one when they don't.
BACKGROUND_NICE = 10


def lower_thread_priority() -> bool:
    """Lower the calling thread's CPU priority, for housekeeping that must not slow the user
    (the daily backup compresses the whole database: at 100k papers ~20 CPU-s beside the
    window). On Linux, a thread's own nice value (setpriority on its thread id affects that
    thread only); on Windows, THREAD_PRIORITY_BELOW_NORMAL. Elsewhere, or when refused, the
    thread runs as before; True if lowered. Call it only on a thread that ends with its task: an
    unprivileged process cannot raise a thread's priority back."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, max(os.getpriority(os.PRIO_PROCESS, tid), BACKGROUND_NICE))
            return True
        return False
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        return bool(kernel32.SetThreadPriority(kernel32.GetCurrentThread(), -1))  # BELOW_NORMAL
    return False


def thread_nice() -> int | None:
    """The calling thread's nice value on Linux (tests), else None."""
    if not sys.platform.startswith("linux"):
        return None
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
