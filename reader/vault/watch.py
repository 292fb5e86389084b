"""Watch a vault folder and call back (debounced, on a timer thread) when its Markdown files change."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from .files import LOCK_NAME, MARKER_FILE, TMP_SUFFIX

DEFAULT_DELAY = 0.5  # seconds of quiet before the callback: editors save in bursts


def relevant(root: Path, path: str) -> bool:
    """A change worth a sync: a .md file outside hidden folders (.trash, .obsidian, .git)."""
    try:
        rel = Path(path).resolve().relative_to(root)
    except (ValueError, OSError):
        return False
    if any(part.startswith(".") for part in rel.parts[:-1]):
        return False
    name = rel.name
    if name in (LOCK_NAME, MARKER_FILE) or name.endswith(TMP_SUFFIX):
        return False
    return name.lower().endswith(".md")


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: VaultWatcher):
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        paths = [str(p) for p in (event.src_path, getattr(event, "dest_path", "")) if p]
        hits = [p for p in paths if relevant(self._watcher.root, p)]
        if hits:
            self._watcher.poke(*hits)


class VaultWatcher:
    """Calls `on_change()` once a burst of changes to the vault's Markdown files has settled.

    The callback runs on a timer thread, never on the caller's: a GUI hands it to its sync worker.
    A sync's own writes trigger it too; the sync that follows finds nothing changed and writes
    nothing, so it settles.
    """

    def __init__(self, root: str | Path, on_change: Callable[[], None], *, delay: float = DEFAULT_DELAY,
                 on_paths: Callable[[set[str]], None] | None = None):
        self.root = Path(root).resolve()
        self._on_change = on_change
        self._on_paths = on_paths  # when given, called instead with the burst's changed paths
        self._changed: set[str] = set()
        self._delay = delay
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._observer = Observer()
        self._observer.daemon = True
        self._observer.schedule(_Handler(self), str(self.root), recursive=True)

    def start(self) -> VaultWatcher:
        self._observer.start()
        return self

    def poke(self, *paths: str) -> None:
        """(Re)start the quiet-period timer; `paths` are remembered for `on_paths`."""
        with self._lock:
            self._changed.update(paths)
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self._delay, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            self._timer = None
            paths, self._changed = self._changed, set()
        if self._on_paths is not None:
            self._on_paths(paths)
        else:
            self._on_change()

    def stop(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        self._observer.stop()
        self._observer.join(timeout=5)

    def __enter__(self) -> VaultWatcher:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
