"""A J/K step lays the paper pane out as little as it can (issue 31, J/K p95 ≤ 16 ms at 100k).

- The abstract was laid out at two widths per paper: setHtml emptied it, its scroll bar hid, the
  text was laid out at the wider viewport, then the bar came back and it was laid out again. It
  wraps beside the bar's room now, shown or not: one width.
- The title's and meta line's heights changed on ~70% of steps (titles of 2-6 lines in a narrow
  pane): each change moved and repainted every row below them and resized the abstract. In a run
  of steps they keep the run's tallest height, and fit their paper again once the keys pause.
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication

from reader.ui.window.main_window import MainWindow

from .helpers import key


class Moves(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.seen: Counter[str] = Counter()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt's name
        if event.type() == QEvent.Type.Move:
            self.seen[watched.objectName()] += 1
        return False


def narrow(qtbot, window: MainWindow) -> None:
    window.resize(900, 640)  # a narrow pane: titles of several lines, abstracts that scroll
    QApplication.processEvents()
    window.table.setFocus()
    window.select_paper(window.model.ids()[0])
    QApplication.processEvents()


def step(qtbot, window: MainWindow, k: Qt.Key = Qt.Key.Key_J) -> None:
    key(qtbot, window.table, k)
    QApplication.processEvents()
    window._related_timer.stop()  # related papers come once the keys stop: not a step's work


def test_the_abstract_is_laid_out_at_one_width(qtbot, window: MainWindow) -> None:
    narrow(qtbot, window)
    view = window.pane.abstractView
    widths: list[float] = []
    view.document().documentLayout().documentSizeChanged.connect(
        lambda _size: widths.append(view.document().textWidth()))
    bars = []
    for _ in range(12):
        step(qtbot, window)
        bars.append(view.verticalScrollBar().isVisible())
    assert any(bars), "no abstract overflowed: the test shows nothing"
    laid_out = {w for w in widths if w > 0}
    assert len(laid_out) == 1, laid_out  # the old code: the viewport's width with and without the bar
    assert view.viewport().width() == int(next(iter(laid_out)))  # the text fills the view beside its bar


def test_a_run_of_steps_keeps_the_rows_below_the_title_in_place(qtbot, window: MainWindow) -> None:
    narrow(qtbot, window)
    pane = window.pane
    pane.steady.timer.setInterval(60_000)  # however loaded the machine, the run does not pause
    ids = window.model.ids()[:14]
    # Paused after each paper: the heights each paper's title and meta line take.
    natural = []
    for pid in ids:
        window.select_paper(pid)
        QApplication.processEvents()
        pane.steady.timer.timeout.emit()  # the keys paused
        QApplication.processEvents()
        natural.append(pane.titleEdit.height() + pane.metaLabel.height())
    assert any(b < a for a, b in zip(natural, natural[1:], strict=False)), natural  # some get shorter
    window.select_paper(ids[0])
    QApplication.processEvents()
    moves = Moves()
    pane.starButton.installEventFilter(moves)
    pane.tagEditor.installEventFilter(moves)
    heights = []
    for _ in ids[1:]:
        step(qtbot, window)
        heights.append(pane.titleEdit.height() + pane.metaLabel.height())
    assert heights == sorted(heights), heights  # never shorter within the run (the old code: natural)
    growths = sum(b > a for a, b in zip(heights, heights[1:], strict=False)) + 1
    assert moves.seen["starButton"] <= growths and moves.seen["tagEditor"] <= growths, (moves.seen, heights)
    pane.steady.timer.timeout.emit()  # the keys pause: the paper's own height again
    QApplication.processEvents()
    assert pane.titleEdit.height() + pane.metaLabel.height() == natural[-1]
