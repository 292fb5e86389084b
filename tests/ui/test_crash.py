"""The crash hook logs a traceback and keeps running."""

from __future__ import annotations

import sys
from pathlib import Path

from reader.ui import crash


def test_crash_hook_logs_and_keeps_running(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    crash.install_excepthook(tmp_path / "logs")
    try:
        raise RuntimeError("kaboom")
    except RuntimeError as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    text = (tmp_path / "logs" / "errors.log").read_text(encoding="utf-8")
    assert "RuntimeError: kaboom" in text and "Traceback" in text
