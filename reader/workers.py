"""Worker processes that die with their parent (a kill -9 of Reader must leave none behind)."""

from __future__ import annotations

import os
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
