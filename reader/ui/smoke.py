"""`reader --smoke-test`: drive the real window offscreen through import, search, star, note, export."""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from contextlib import ExitStack
from importlib.resources import as_file
from pathlib import Path
from types import TracebackType

# The offscreen platform plugin lacks this feature and says so; not a problem of the app.
OFFSCREEN_NOISE = "This plugin does not support propagateSizeHints"
SMOKE_NOTE = "Smoke-test note: worth a closer look."


def _wait(app: object, condition: Callable[[], bool], timeout: float = 60.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"smoke test: timed out waiting for {what}")
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.005)


def run_smoke_test() -> int:
    """0 when the app works end to end; non-zero on any traceback or Qt warning."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    problems: list[str] = []

    def on_qt_message(kind: QtMsgType, _context: object, message: str) -> None:
        if message.startswith(OFFSCREEN_NOISE):
            return
        if kind in (QtMsgType.QtWarningMsg, QtMsgType.QtCriticalMsg, QtMsgType.QtFatalMsg):
            problems.append(f"Qt: {message}")

    def on_exception(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        problems.append("".join(traceback.format_exception(exc_type, exc, tb)))

    previous_hook = sys.excepthook
    sys.excepthook = on_exception
    qInstallMessageHandler(on_qt_message)
    try:
        with tempfile.TemporaryDirectory(prefix="reader-smoke-") as tmp:
            _drive(Path(tmp), problems)
    except Exception:  # every failure becomes a message and a status
        problems.append(traceback.format_exc())
    finally:
        sys.excepthook = previous_hook
        qInstallMessageHandler(None)
    for problem in problems:
        print(problem, file=sys.stderr)
    print("smoke test: " + ("FAILED" if problems else "ok"))
    return 1 if problems else 0


def _drive(tmp: Path, problems: list[str]) -> None:
    from reader.bundled import seed_files
    from reader.library import Library
    from reader.models import ExportKind

    from .app import make_app
    from .dialogs.common import ExportOptions
    from .operations.papers import toggle_star
    from .window.main_window import MainWindow

    os.environ["READER_CONFIG_DIR"] = str(tmp / "config")  # the user's own settings stay untouched
    app = make_app()
    library = Library.open(tmp / "library", seed_if_empty=False)
    window = MainWindow(library)
    try:
        window.show()
        with ExitStack() as stack:
            seeds = [stack.enter_context(as_file(s)) for s in seed_files()]
            window.transfer.import_paths(seeds)
            _wait(app, lambda: bool(window.last_import_summaries), what="the import")
        new = sum(s.new for s in window.last_import_summaries)
        if new == 0 or any(s.error for s in window.last_import_summaries):
            raise AssertionError(f"smoke test: import failed: {window.last_import_text}")
        _wait(app, lambda: window.model.rowCount() == new, what="the table")
        _wait(app, lambda: window.index_ready and not window.runner.busy, what="the index")

        window.searchBox.setText("diffusion")
        _wait(app, lambda: window.search_results is not None and window.model.rowCount() > 0, what="search results")
        window.move_current(0)
        pid = window.current_id()
        if pid is None:
            raise AssertionError("smoke test: no paper selected after the search")
        toggle_star(window.ops, window.list_scope())
        _wait(app, lambda: bool((paper := library.paper(pid)) and paper.starred), what="the star")

        window.focus_note()
        window.pane.noteEditor.setPlainText(SMOKE_NOTE)
        window.flush()
        if (paper := library.paper(pid)) is None or paper.note != SMOKE_NOTE:
            raise AssertionError("smoke test: the note was not saved")

        out = tmp / "reading-list.md"
        window.transfer.export_to(out, ExportOptions(kind=ExportKind.READING_LIST, scope="starred", title="Smoke test"))
        _wait(app, lambda: window.last_export is not None, what="the export")
        text = out.read_text(encoding="utf-8")
        for expected in ("Smoke test", SMOKE_NOTE):
            if expected not in text:
                raise AssertionError(f"smoke test: {expected!r} missing from the exported Markdown")
        _wait(app, lambda: not window.runner.busy, timeout=10, what="pending writes")
        app.processEvents()
    finally:
        window.close()
        app.processEvents()
        window.deleteLater()
        app.processEvents()
        library.close()
    if problems:
        return
