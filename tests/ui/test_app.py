"""Starting the app: file arguments imported, no display said in one line, display detection."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from .helpers import search


def test_open_window_imports_file_arguments(qtbot, tmp_path: Path) -> None:
    from reader.ui.app import open_window

    src = tmp_path / "incoming.jsonl"
    src.write_text('{"title": "Frog jumping dynamics", "abstract": "We measure how far frogs jump '
                   'from lily pads of different sizes and report surprising results."}\n', encoding="utf-8")
    window = open_window(tmp_path / "lib", [src])
    assert window is not None
    qtbot.addWidget(window)
    try:
        qtbot.waitUntil(lambda: window.last_import_summaries != [])
        assert window.last_import_summaries[0].new == 1
        box = window.findChild(QMessageBox, "importSummary")
        assert box is not None
        box.close()
        qtbot.waitUntil(lambda: window.model.rowCount() == 57)
        # The index caught up on its own thread: the new paper is searchable.
        qtbot.waitUntil(lambda: window.index_ready and not window.runner.busy)
        search(qtbot, window, "frogs lily")
        qtbot.waitUntil(lambda: window.model.rowCount() >= 1)
        assert window.library.paper(window.model.id_at(0)).title == "Frog jumping dynamics"
    finally:
        window.close()
        window.library.close()


def test_run_without_a_display_says_so_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from reader.ui import app

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")

    def no_qt(*_args: object) -> None:
        raise AssertionError("Qt must not be started without a display")

    monkeypatch.setattr(app, "make_app", no_qt)
    monkeypatch.setattr(app, "open_window", no_qt)
    assert app.run(tmp_path / "lib") == 1
    err = capsys.readouterr().err
    assert err == "reader: no display found (set DISPLAY, or QT_QPA_PLATFORM=offscreen for tests)\n"
    assert not (tmp_path / "lib").exists()


@pytest.mark.parametrize(("env", "platform", "ok"), [
    ({}, "linux", False),
    ({"DISPLAY": ":0"}, "linux", True),
    ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", True),
    ({"DISPLAY": ""}, "linux", False),
    ({}, "darwin", True),
    ({}, "win32", True),
])
def test_display_available(env: dict[str, str], platform: str, ok: bool) -> None:
    from reader.ui.app import display_available

    assert display_available(env, platform) is ok


def test_an_upgrade_due_opens_off_the_gui_thread_behind_a_progress_dialog(qtbot, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-time upgrade takes a minute at 100k papers: the window's start must not freeze
    showing nothing. The open runs on a thread; the dialog is up meanwhile."""
    import sqlite3
    import threading

    from PySide6.QtWidgets import QApplication, QProgressDialog

    from reader.library import Library
    from reader.ui.app import open_window

    root = tmp_path / "lib"
    Library.open(root).close()  # the samples
    conn = sqlite3.connect(root / "library.sqlite3")
    with conn:
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'text_version'")
    conn.close()
    seen: dict[str, object] = {}
    real_open = Library.open.__func__  # type: ignore[attr-defined]

    def spying_open(cls, data_dir, **kw):
        seen["thread"] = threading.current_thread() is threading.main_thread()
        seen["dialog"] = any(isinstance(w, QProgressDialog) and w.objectName() == "upgradeProgress"
                             and w.isVisible() for w in QApplication.topLevelWidgets())
        seen["text"] = [w.labelText() for w in QApplication.topLevelWidgets()
                        if isinstance(w, QProgressDialog) and w.objectName() == "upgradeProgress"]
        return real_open(cls, data_dir, **kw)

    monkeypatch.setattr(Library, "open", classmethod(spying_open))
    window = open_window(root)
    assert window is not None
    qtbot.addWidget(window)
    try:
        # Only the plain texts are rendered anew: no backup is promised that is not taken.
        text = [f"Upgrading the library in {root} to this version of Reader.\n"
                "Its abstracts' plain texts are rendered anew, once."]
        assert seen == {"thread": False, "dialog": True, "text": text}
        assert window.model.rowCount() > 0
        assert not Library.upgrade_due(root)
        assert not [w for w in QApplication.topLevelWidgets()
                    if isinstance(w, QProgressDialog) and w.isVisible()]
    finally:
        window.close()
        window.library.close()
