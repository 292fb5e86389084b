"""Logging to a rotating file in the library's logs folder."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

_configured: set[Path] = set()


def setup_logging(logs_dir: Path, level: int = logging.INFO) -> Path:
    """Send the `reader` logger to logs_dir/reader.log (once per folder)."""
    logs_dir.mkdir(parents=True, exist_ok=True)
    path = logs_dir / "reader.log"
    if path in _configured:
        return path
    handler = logging.handlers.RotatingFileHandler(path, maxBytes=1_000_000, backupCount=3, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("reader")
    logger.addHandler(handler)
    logger.setLevel(level)
    _configured.add(path)
    return path
