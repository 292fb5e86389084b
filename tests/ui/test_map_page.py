"""The map page at a small window (1024 x 640): the summary whole, the years labelled."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reader.ui.main_window import MainWindow
from reader.ui.map_view import year_ticks

from .helpers import key


def test_the_summary_is_not_cut_at_1024(qtbot, window: MainWindow):
    window.resize(1024, 640)
    controller = window.map
    before = controller.generation
    key(qtbot, window, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: controller.generation > before, timeout=60000)
    summary = controller.page.summary
    assert "labelled regions" in summary.text()
    assert summary.width() >= summary.fontMetrics().horizontalAdvance(summary.text())


def test_each_year_is_labelled_when_the_bars_have_room():
    assert year_ticks(7, 43.0, 36.0) == [0, 1, 2, 3, 4, 5, 6]
    ticks = year_ticks(40, 7.5, 36.0)  # 40 years in 300 px: every 5th, the last kept clear of it
    assert ticks[0] == 0 and ticks[-1] == 39 and all(b - a >= 5 for a, b in zip(ticks, ticks[1:], strict=False))
    assert year_ticks(1, 300.0, 36.0) == [0] and year_ticks(0, 10.0, 36.0) == []
