"""Small helpers shared by the GUI tests: keys, reading a paper, running a search."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from reader.library import Library
from reader.models import Paper
from reader.ui.window.main_window import MainWindow

MODIFIER_KEYS = ((Qt.KeyboardModifier.ShiftModifier, Qt.Key.Key_Shift),
                 (Qt.KeyboardModifier.ControlModifier, Qt.Key.Key_Control),
                 (Qt.KeyboardModifier.AltModifier, Qt.Key.Key_Alt),
                 (Qt.KeyboardModifier.MetaModifier, Qt.Key.Key_Meta))


def key(qtbot, widget, k, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    """A key click, its modifiers released afterwards as a real keyboard does."""
    qtbot.keyClick(widget, k, modifier)
    if modifier != Qt.KeyboardModifier.NoModifier:
        release_modifiers(widget)


def release_modifiers(widget) -> None:
    """QTest's keyClick(Ctrl+Z) leaves Ctrl in QApplication.keyboardModifiers() (it never sends
    the modifier's own release), which turns a later selectRow() into a toggle: release them."""
    for _, modifier_key in MODIFIER_KEYS:
        QTest.keyRelease(widget, modifier_key)


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
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == query)


def import_in_window(qtbot, window: MainWindow, path) -> None:
    """Import `path` through the window (on the runner) and wait for its summaries."""
    window.transfer.import_paths([path])
    qtbot.waitUntil(lambda: window.last_import_summaries != [])


def shown(qtbot, window: MainWindow, pid: str | None = None) -> str | None:
    """Wait until the pane shows `pid` (else whichever paper it was asked for): a paper not read
    ahead is read on a worker (window/pane_reads.py). Returns the paper shown."""
    if pid is None:
        qtbot.waitUntil(lambda: window.reads.waiting is None and window.pane.paper_id is not None)
    else:
        qtbot.waitUntil(lambda: window.pane.paper_id == pid)
    return window.pane.paper_id
