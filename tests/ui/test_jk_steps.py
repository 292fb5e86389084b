"""J/K through the list: a step relays out and renders only the paper pane's own part (issue 31).

A step used to set the pane's tab titles (to the same text) and the Group tab's HTML again: each
relaid the whole window out (sidebar, table, status bar), ~56% of a step's CPU at 3k papers.
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication

from reader.ui.paper import pane as pane_module
from reader.ui.window.main_window import MainWindow

from .helpers import key


class LayoutRequests(QObject):
    """Counts the LayoutRequest events each widget receives (by objectName)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: Counter[str] = Counter()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt's name
        if event.type() == QEvent.Type.LayoutRequest:
            self.seen[watched.objectName()] += 1
        return False


def _steps(qtbot, window: MainWindow, keys: list[Qt.Key]) -> list[str]:
    shown = []
    for k in keys:
        key(qtbot, window.table, k)
        QApplication.processEvents()
        shown.append(window.pane.paper_id)
    return shown


def test_jk_steps_do_not_relay_the_window_out(qtbot, window: MainWindow) -> None:
    window._related_timer.stop()
    window.table.setFocus()
    window.select_paper(window.model.ids()[0])
    _steps(qtbot, window, [Qt.Key.Key_J])  # the first step may settle the pane once
    window._related_timer.stop()
    counter = LayoutRequests()
    app = QApplication.instance()
    app.installEventFilter(counter)
    try:
        shown = []
        for k in [Qt.Key.Key_J] * 10 + [Qt.Key.Key_K] * 10:
            shown += _steps(qtbot, window, [k])
            window._related_timer.stop()  # related papers fill their list once J/K stops: not a step's work
    finally:
        app.removeEventFilter(counter)
    assert len(set(shown)) > 5, shown  # it did step through papers
    for name in ("mainWindow", "centralStack", "mainSplitter", "paperPane", "paneSplitter", "paneTabs"):
        assert counter.seen[name] == 0, (name, counter.seen)


def test_an_abstract_is_rendered_once_when_stepping_back_and_forth(qtbot, window: MainWindow, monkeypatch) -> None:
    rendered: Counter[str] = Counter()
    real = pane_module.abstract_html

    def counting(raw: str, *args, **kwargs) -> str:
        rendered[raw] += 1
        return real(raw, *args, **kwargs)

    monkeypatch.setattr(pane_module, "abstract_html", counting)
    window.table.setFocus()
    window.select_paper(window.model.ids()[0])
    shown = _steps(qtbot, window, [Qt.Key.Key_J] * 6 + [Qt.Key.Key_K] * 6 + [Qt.Key.Key_J] * 6)
    assert len(set(shown)) >= 6
    assert rendered and max(rendered.values()) == 1, rendered


def test_a_highlight_still_shows_in_the_cached_abstract(qtbot, window: MainWindow) -> None:
    """The cache is keyed on the highlights: adding one renders the abstract anew."""
    from reader.ui.operations import highlights

    pid = window.pane.paper_id
    assert pid is not None
    before = window.pane.abstractView.toHtml()
    highlights.add_highlight(window.ops, pid, 0, 5, "green", "")
    qtbot.waitUntil(lambda: window.pane.abstractView.toHtml() != before)
    assert pane_module.HighlightColour.GREEN.hex.lower() in window.pane.abstractView.toHtml().lower()
    assert window.pane.tabs.tabText(pane_module.HIGHLIGHTS_TAB) == "Highlights (1)"
    assert window.pane.highlightList.count() == 1
