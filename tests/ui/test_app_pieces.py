"""Smoke test, crash logging, drag-and-drop, theme, shortcuts dialog and export dialog."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent, QPalette
from PySide6.QtWidgets import QApplication, QTableWidget

from reader.ui import crash
from reader.ui.dialogs import ExportDialog, ExportOptions, ShortcutsDialog
from reader.ui.main_window import MainWindow


def test_smoke_test_passes_offscreen() -> None:
    code = "import sys; from reader.ui.smoke import run_smoke_test; sys.exit(run_smoke_test())"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "smoke test: ok" in proc.stdout


def test_crash_hook_logs_and_keeps_running(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    crash.install_excepthook(tmp_path / "logs")
    try:
        raise RuntimeError("kaboom")
    except RuntimeError as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
    text = (tmp_path / "logs" / "errors.log").read_text(encoding="utf-8")
    assert "RuntimeError: kaboom" in text and "Traceback" in text


def test_drop_files_imports_them(qtbot, window: MainWindow, tmp_path: Path) -> None:
    src = tmp_path / "dropped.jsonl"
    src.write_text('{"title": "Dropped paper", "abstract": "An abstract about dropping files onto windows for tests."}\n',
                   encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(src))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    qtbot.waitUntil(lambda: window.last_import_summaries != [], timeout=20000)
    assert window.last_import_summaries[0].new == 1
    qtbot.waitUntil(lambda: window.model.rowCount() == 57)


def test_theme_switch(window: MainWindow) -> None:
    window.apply_theme("dark")
    assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() < 100
    assert window.pane.dark
    assert window.theme_actions["dark"].isChecked()
    window.apply_theme("light")
    assert QApplication.palette().color(QPalette.ColorRole.Window).lightness() > 150
    assert not window.pane.dark


def test_shortcuts_dialog_lists_the_keys(qtbot, window: MainWindow) -> None:
    dialog = ShortcutsDialog(window, window.shortcut_actions)
    qtbot.addWidget(dialog)
    table = dialog.findChild(QTableWidget, "shortcutsTable")
    keys = {table.item(r, 1).text() for r in range(table.rowCount())}
    for expected in ("Ctrl+F", "/", "Esc", "J", "K", "S", "R", "T", "N", "Ctrl+Z", "Ctrl+Shift+Z, Ctrl+Y",
                     "Del", "Ctrl+I", "Ctrl+E", "Ctrl+Q"):
        assert expected in keys, expected


def test_export_dialog_options(qtbot, window: MainWindow) -> None:
    dialog = ExportDialog(window, ["rl", "vision"], 2, ExportOptions(kind="per_paper", scope="tag", tag="vision"))
    qtbot.addWidget(dialog)
    opts = dialog.options()
    assert (opts.kind, opts.scope, opts.tag) == ("per_paper", "tag", "vision")
    dialog.abstractsCheck.setChecked(True)
    assert dialog.options().with_abstracts
    empty = ExportDialog(window, [], 0, ExportOptions(scope="selection"))
    qtbot.addWidget(empty)
    assert empty.options().scope == "view"  # nothing selected: the current list


def test_export_per_paper_and_json(qtbot, window: MainWindow, tmp_path: Path) -> None:
    window.table.selectRow(0)
    window.export_to(tmp_path / "papers", ExportOptions(kind="per_paper", scope="selection"))
    qtbot.waitUntil(lambda: window.last_export is not None)
    assert len(list((tmp_path / "papers").glob("*.md"))) == 1
    window.last_export = None
    window.export_to(tmp_path / "backup.json", ExportOptions(kind="json"))
    qtbot.waitUntil(lambda: window.last_export is not None)
    assert '"reader-backup"' in (tmp_path / "backup.json").read_text(encoding="utf-8")
    assert Path(str(window.settings.value("lastExportFolder"))) == tmp_path
