"""Fixtures for GUI tests: a seeded library in tmp_path and the real main window on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reader.library import Library

from .helpers import release_modifiers


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch) -> Path:
    """The app's global settings (window, theme, columns, recent libraries) in tmp_path."""
    folder = tmp_path / "config"
    monkeypatch.setenv("READER_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def collector_thresholds() -> Iterator[None]:
    """A window left open by a test gives Python's collection thresholds back (idle_gc.py)."""
    import gc

    before = gc.get_threshold()
    yield
    from reader.ui.idle_gc import IdleCollector

    if IdleCollector.installed is not None:
        IdleCollector.installed.uninstall()
    gc.set_threshold(*before)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "library"


@pytest.fixture
def library(data_dir: Path) -> Iterator[Library]:
    lib = Library.open(data_dir)
    yield lib
    lib.close()


@pytest.fixture
def window(qtbot, library: Library):
    from reader.ui.window.main_window import MainWindow

    w = MainWindow(library, theme="light")
    qtbot.addWidget(w)
    w.show()
    w.activateWindow()
    qtbot.waitExposed(w)
    release_modifiers(w)  # no modifier left held by an earlier test's key click
    qtbot.waitUntil(lambda: w.index_ready and not w.runner.busy)
    qtbot.waitUntil(lambda: w.model.rowCount() > 0 and w.pane.paper_id is not None)
    yield w
    w.close()


@pytest.fixture(autouse=True)
def desktop_screen(monkeypatch) -> None:
    """A desktop's screen (1920 x 1200 available): the offscreen platform's is 800 x 800, where
    the window (kept on the screen: window_size.py) would open smaller than the 1280 x 800 the
    tests lay out for. Tests of small screens patch `available` themselves."""
    from PySide6.QtCore import QRect

    from reader.ui.window import window_size

    monkeypatch.setattr(window_size, "available", lambda _widget=None: QRect(0, 0, 1920, 1200))
