"""J/K through the list: a step relays out and renders only the paper pane's own part (issue 31).

A step used to set the pane's tab titles (to the same text) and the Group tab's HTML again: each
relaid the whole window out (sidebar, table, status bar), ~56% of a step's CPU at 3k papers.
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication

from reader.models import HighlightColour
from reader.ui.paper import abstract_html as abstract_module
from reader.ui.paper import pane as pane_module
from reader.ui.window.main_window import MainWindow

from .helpers import key


class LayoutRequests(QObject):
    """Counts the LayoutRequest events each widget receives (by objectName)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: Counter[str] = Counter()
        self.order: list[str] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt's name
        if event.type() == QEvent.Type.LayoutRequest:
            self.seen[watched.objectName()] += 1
            self.order.append(f"{type(watched).__name__}:{watched.objectName()}")
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
    for _ in range(3):
        QApplication.processEvents()  # requests posted before the steps are delivered first
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
        assert counter.seen[name] == 0, (name, counter.order)


def test_an_abstract_is_rendered_once_when_stepping_back_and_forth(qtbot, window: MainWindow, monkeypatch) -> None:
    """Once on the GUI thread (the pane's cache), whether it or the read-ahead's worker
    rendered it: a step that did not wait for the worker may render a paper the worker is
    rendering at that moment (twice in all, never twice here)."""
    import threading

    rendered: Counter[str] = Counter()
    anywhere: Counter[str] = Counter()
    real = abstract_module.abstract_html

    def counting(raw: str, *args, **kwargs) -> str:
        anywhere[raw] += 1
        if threading.current_thread() is threading.main_thread():
            rendered[raw] += 1
        return real(raw, *args, **kwargs)

    monkeypatch.setattr(abstract_module, "abstract_html", counting)
    window.table.setFocus()
    window.select_paper(window.model.ids()[0])
    shown = _steps(qtbot, window, [Qt.Key.Key_J] * 6 + [Qt.Key.Key_K] * 6 + [Qt.Key.Key_J] * 6)
    assert len(set(shown)) >= 6
    assert anywhere and max(rendered.values(), default=1) == 1 and max(anywhere.values()) <= 2, (rendered, anywhere)


def test_a_highlight_still_shows_in_the_cached_abstract(qtbot, window: MainWindow) -> None:
    """The cache is keyed on the highlights: adding one renders the abstract anew."""
    from reader.ui.operations import highlights

    pid = window.pane.paper_id
    assert pid is not None
    before = window.pane.abstractView.toHtml()
    highlights.add_highlight(window.ops, pid, 0, 5, "green", "")
    qtbot.waitUntil(lambda: window.pane.abstractView.toHtml() != before)
    assert HighlightColour.GREEN.hex.lower() in window.pane.abstractView.toHtml().lower()
    assert window.pane.tabs.tabText(pane_module.HIGHLIGHTS_TAB) == "Highlights (1)"
    assert window.pane.highlightList.count() == 1


# -- triage: J/X and the status bar's counts ---------------------------------------------------
def _triage(qtbot, window: MainWindow):
    from reader.ui.triage.controller import install_triage

    ctl = install_triage(window)
    key(qtbot, window.table, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: ctl.active and ctl.view.card is not None)
    qtbot.waitUntil(lambda: not window.runner.busy)
    return ctl


def test_triage_cards_and_decisions_do_not_relay_the_window_out(qtbot, window: MainWindow) -> None:
    """J shows the next card, X stores a decision (the status bar's counts change, the index
    catches up): the triage view's body relays itself out, the window does not."""
    window.status._quiet_timer.setInterval(60_000)  # the index's catch-up stays quiet, however loaded the machine
    ctl = _triage(qtbot, window)
    qtbot.keyClick(ctl.view.focusWidget() or ctl.view, Qt.Key.Key_J)  # the first card may settle the view
    qtbot.waitUntil(lambda: not window.runner.busy)
    for _ in range(3):
        QApplication.processEvents()  # requests posted before the steps are delivered first
    counter = LayoutRequests()
    app = QApplication.instance()
    app.installEventFilter(counter)
    counts_before = window.status.countsLabel.text()
    try:
        shown = []
        minimums = [ctl.view.minimumSizeHint()]
        for k in [Qt.Key.Key_J, Qt.Key.Key_J, Qt.Key.Key_X] * 4:
            qtbot.keyClick(ctl.view.focusWidget() or ctl.view, k)
            QApplication.processEvents()
            shown.append(ctl.view.card.id if ctl.view.card else None)
            minimums.append(ctl.view.minimumSizeHint())
        qtbot.waitUntil(lambda: not window.runner.busy)
        qtbot.waitUntil(lambda: window.status.countsLabel.text() != counts_before)
        QApplication.processEvents()
    finally:
        app.removeEventFilter(counter)
    assert len(set(shown)) >= 10, shown
    # The window hears of the body only when it needs more room than it ever asked for (a
    # longer title than any before): a request or two per such growth (the view's and its
    # layout's), never one per card (18 in these 12 steps before).
    growths = sum(1 for a, b in zip(minimums, minimums[1:], strict=False) if a != b)
    assert growths <= 2, minimums
    for name in ("mainWindow", "centralStack"):
        assert counter.seen[name] <= 2 * growths, (name, growths, counter.order)
    assert counter.seen["triageBody"] > 0  # the cards did change the body


def test_triage_re_ranks_off_the_gui_thread_after_x(qtbot, window: MainWindow, monkeypatch) -> None:
    """X in best first: the re-rank runs on a worker; the next card is shown at once."""
    import threading

    from reader.triage import best as best_module
    from reader.triage.queue import BEST_FIRST

    threads: list[bool] = []
    real = best_module.BestFirst.rank

    def rank(self, *args, **kwargs):
        threads.append(threading.current_thread() is threading.main_thread())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(best_module.BestFirst, "rank", rank)
    ctl = _triage(qtbot, window)
    ctl.set_order(BEST_FIRST)
    qtbot.waitUntil(lambda: ctl.queue is not None and ctl.queue.order == BEST_FIRST)
    qtbot.waitUntil(lambda: not window.runner.busy, timeout=30000)
    for _ in range(3):
        before = ctl.view.card.id if ctl.view.card else None
        qtbot.keyClick(ctl.view.focusWidget() or ctl.view, Qt.Key.Key_X)
        assert ctl.view.card is not None and ctl.view.card.id != before  # shown before any re-rank
        qtbot.waitUntil(lambda: not window.runner.busy, timeout=30000)
    assert threads and not any(threads), threads
