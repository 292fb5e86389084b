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
    qtbot.waitUntil(lambda: w.index_ready and not w.runner.busy, timeout=30000)
    qtbot.waitUntil(lambda: w.model.rowCount() > 0 and w.pane.paper_id is not None)
    yield w
    w.close()
