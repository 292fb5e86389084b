"""Logging to a rotating file in the library's logs folder (a temp folder or stderr when it can't be written)."""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
import tempfile
from pathlib import Path

_configured: set[Path] = set()
_stderr_handler: logging.Handler | None = None


def setup_logging(logs_dir: Path, level: int = logging.INFO) -> Path | None:
    """Send the `reader` logger to logs_dir/reader.log (once per folder); returns the log file.

    A read-only library must still open: then the log goes to a per-user temp folder, and when
    that fails too, warnings and errors go to stderr (None is returned)."""
    for folder in (logs_dir, Path(tempfile.gettempdir()) / f"reader-logs-{_user()}"):
        path = folder / "reader.log"
        if path in _configured:
            return path
        try:
            folder.mkdir(parents=True, exist_ok=True)
            handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8")
        except OSError:
            continue
        _attach(handler, level)
        _configured.add(path)
        return path
    global _stderr_handler
    if _stderr_handler is None:
        _stderr_handler = logging.StreamHandler(sys.stderr)
        _attach(_stderr_handler, level)
        _stderr_handler.setLevel(logging.WARNING)
    return None


def _attach(handler: logging.Handler, level: int) -> None:
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("reader")
    logger.addHandler(handler)
    logger.setLevel(level)


def _user() -> str:
    try:
        return str(os.getuid())
    except AttributeError:  # Windows
        return os.environ.get("USERNAME", "user")
