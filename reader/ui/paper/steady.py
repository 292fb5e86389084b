"""The paper pane kept steady across J/K steps: each step lays out only what the new paper changes.

- `AbstractWrap`: the abstract wraps beside its scroll bar's room whether the bar shows or not.
  setHtml emptied the view and hid the bar, the text was laid out at the wider viewport, then
  the bar came back and it was laid out again: two widths, ~3 layouts per step. One width now.
- `SteadyHeights`: papers shown less than STEADY_MS apart (a held or repeated J/K) keep the
  tallest title and meta line of the run. Each height change (~70% of steps at 100k's bench, a
  narrow pane's titles taking 2-6 lines) moved and repainted every row below them and resized
  the abstract. They fit their paper again once the keys pause: one relayout. Only where things
  are drawn changes, never what.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QLabel, QTextBrowser

from .title_edit import TitleEdit

STEADY_MS = 300


class AbstractWrap(QObject):
    """Wraps `view`'s lines at its viewport's width with a vertical scroll bar shown, shown or
    not (set again on each resize)."""

    def __init__(self, view: QTextBrowser) -> None:
        super().__init__(view)
        self.view = view
        view.setLineWrapMode(QTextBrowser.LineWrapMode.FixedPixelWidth)
        view.installEventFilter(self)
        self.fit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt's name
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def fit(self) -> None:
        view = self.view
        width = max(view.contentsRect().width() - view.verticalScrollBar().sizeHint().width(), 40)
        if width != view.lineWrapColumnOrWidth():
            view.setLineWrapColumnOrWidth(width)


class SteadyHeights(QObject):
    """The title's and meta line's heights through a run of J/K steps (module docstring)."""

    def __init__(self, title: TitleEdit, meta: QLabel) -> None:
        super().__init__(title)
        self.title, self.meta = title, meta
        self.timer = QTimer(self)  # running: the last paper came less than STEADY_MS ago
        self.timer.setSingleShot(True)
        self.timer.setInterval(STEADY_MS)
        self.timer.timeout.connect(self.release)

    def paper_changed(self, stepping: bool) -> None:
        """Before another paper is shown; `stepping`: from one paper to another (not to none)."""
        if not stepping:
            self.release()
            return
        if self.timer.isActive():  # in a run: no shorter than now
            self.title.hold_height(max(self.title.height(), self.title.minimumHeight()))
            if self.meta.height() > self.meta.minimumHeight():
                self.meta.setMinimumHeight(self.meta.height())
        self.timer.start()

    def release(self) -> None:
        """The keys paused: each as tall as its own text again."""
        self.timer.stop()
        self.title.hold_height(0)
        if self.meta.minimumHeight():
            self.meta.setMinimumHeight(0)
