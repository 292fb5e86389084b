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
