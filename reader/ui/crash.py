"""Unhandled exceptions: log the traceback to the library's logs folder and show it, keep running."""

from __future__ import annotations

import os
import sys
import traceback
from datetime import datetime
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

# Set (e.g. by tests) to only log: a modal dialog would block an offscreen run.
NO_DIALOG_ENV = "READER_NO_ERROR_DIALOG"
_dialogs: list[QMessageBox] = []


def log_exception(logs_dir: Path | None, text: str) -> Path | None:
    if logs_dir is None:
        return None
    try:
        logs_dir.mkdir(parents=True, exist_ok=True)
        path = logs_dir / "errors.log"
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"--- {datetime.now().isoformat(timespec='seconds')}\n{text}\n")
        return path
    except OSError:
        return None


def show_traceback(text: str, log_path: Path | None) -> None:
    if os.environ.get(NO_DIALOG_ENV) or QApplication.instance() is None:
        return
    box = QMessageBox(QMessageBox.Icon.Critical, "Reader — unexpected error",
                      "Something went wrong. Reader keeps running; your data is saved.")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setInformativeText(f"Details were written to {log_path}." if log_path else "")
    box.setDetailedText(text)
    box.setObjectName("crashDialog")
    _dialogs.append(box)
    box.finished.connect(lambda _=0, b=box: _dialogs.remove(b) if b in _dialogs else None)
    box.open()  # not exec(): never block the event loop


def install_excepthook(logs_dir: Path | None) -> None:
    """Route uncaught exceptions (also from Qt slots) to the log and a non-blocking dialog."""

    def hook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        sys.stderr.write(text)
        show_traceback(text, log_exception(logs_dir, text))

    sys.excepthook = hook
