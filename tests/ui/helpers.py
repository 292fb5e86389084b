"""Small helpers shared by the GUI tests: keys, reading a paper, running a search."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reader.models import Paper
from reader.services import Library
from reader.ui.main_window import MainWindow


def key(qtbot, widget, k, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(widget, k, modifier)


def paper(library: Library, pid: str) -> Paper:
    found = library.paper(pid)
    assert found is not None
    return found


def search(qtbot, window: MainWindow, query: str) -> None:
    window.searchBox.setText(query)
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == query)


def search_now(qtbot, window: MainWindow, query: str) -> None:
    window.searchBox.setText(query)
    window.refresh_list()
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == query,
                    timeout=5000)
