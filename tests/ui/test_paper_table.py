"""The paper table: the title column gets the room."""

from __future__ import annotations

from reader.ui.list.model import COL_ADDED, COL_NOTE, COL_STAR, COL_TITLE
from reader.ui.window.main_window import MainWindow


def test_title_column_gets_the_room_at_1280(qtbot, window: MainWindow) -> None:
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    qtbot.wait(50)  # the posted relayouts of the splitter and the header
    hh = window.table.horizontalHeader()
    title = hh.sectionSize(COL_TITLE)
    others = [hh.sectionSize(c) for c in range(window.model.columnCount()) if c != COL_TITLE]
    assert title >= 250 and title > 2 * max(others)
    assert hh.sectionSize(COL_STAR) <= 30 and hh.sectionSize(COL_NOTE) <= 30
    metrics = window.table.fontMetrics()
    assert hh.sectionSize(COL_ADDED) >= metrics.horizontalAdvance("2026-11-29")  # dates not clipped
