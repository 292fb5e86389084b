"""The window's three columns (sidebar | list | paper pane) and how a narrow window shares them.

QSplitter gives the column without stretch (the sidebar) its width, shares the rest between the
list and the pane by their current widths, each kept at least at its minimum, and when the
minimums do not fit takes what is missing from the sidebar (and gives it back when the window
widens). The pane's minimum was 365 px (its rows side by side), so below ~745 px the sidebar
was squeezed (113 px at 700) and the window could not be narrower than 657 px. Now the pane's
minimum is a floor that gives way as the window narrows: PANE_WIDTH while the list keeps
LIST_WIDTH beside it (so 1024 px and wider lay out as before), then less, down to
PANE_MIN_WIDTH (the pane's rows fold, fold_row.py); only then does the list go below
LIST_WIDTH, and the sidebar gives width only once the list is at its minimum."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSplitter, QWidget

SIZES = (170, 730, 380)  # sidebar, list, paper pane at 1280 px: the titles get the room
SIDEBAR, LIST, PANE = range(3)
PANE_WIDTH = 365  # the pane's rows side by side: its minimum before, its width at 1024 px
PANE_MIN_WIDTH = 240  # folded rows, the three tabs' names whole
LIST_WIDTH = 360  # kept by the list before the pane goes narrower: a title of ~190 px beside "Added"


class MainSplitter(QSplitter):
    """Sidebar, list and pane, added in that order."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName("mainSplitter")

    def column(self, index: int) -> QWidget:
        widget = self.widget(index)
        assert widget is not None
        return widget

    def pane_floor(self, width: int) -> int:
        """The pane's minimum in a splitter `width` px wide (the sidebar at its current width)."""
        room = width - self.handleWidth() * (self.count() - 1) - self.column(SIDEBAR).width() - LIST_WIDTH
        hard = max(PANE_MIN_WIDTH, self.column(PANE).minimumSizeHint().width())
        return max(hard, min(PANE_WIDTH, room))

    def minimumSizeHint(self) -> QSize:  # Qt's name
        """With the pane at its narrowest, not at its floor of the moment: the window's minimum
        counted the floor, which kept a resize from 1280 to 700 px at 707."""
        hint = super().minimumSizeHint()
        if self.count() > PANE:
            pane = self.column(PANE)
            hard = max(PANE_MIN_WIDTH, pane.minimumSizeHint().width())
            hint.setWidth(hint.width() - pane.minimumWidth() + min(hard, pane.minimumWidth()))
        return hint

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt's name
        if self.count() > PANE:
            self.column(PANE).setMinimumWidth(self.pane_floor(event.size().width()))
        super().resizeEvent(event)
