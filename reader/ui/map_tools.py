"""The map page's button row: the map's tools on the left, what acts on the selection on the right.

The selection's six actions are QActions, shown as buttons while the row has room and folded into
one Selection menu button when it has not (the map at 1024 px, beside the sidebar and the paper
pane). The row's minimum width is the folded one: the nine buttons' 520-odd px were the list
column's minimum, so the splitter took the missing width from the sidebar and cut its section
names. Buttons and menu hold the same actions: one enabled state, one trigger, one name each."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QMenu, QStyle, QToolButton, QWidget

TOOLS = (("lasso", "Lasso", "Draw a lasso to select (also Ctrl+drag)"),
         ("refit", "Refit", "Lay out only the papers of this list"),
         ("relayout", "Re-layout", "Lay the whole library out anew"))
SELECTION = (("star", "Star", "Star the selected papers"),
             ("read", "Read", "Mark the selected papers read"),
             ("tag", "Tag…", "Tag the selected papers"),
             ("like", "Like these", "Light up the papers most like the selection"),
             ("triage", "Triage", "Triage the selected papers"),
             ("export", "Export…", "Export the selected papers"))


class MapToolbar(QWidget):
    """The row of buttons above the map; `folded` while the selection's actions are in the menu."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mapToolbar")
        self.buttons: dict[str, QToolButton] = {}
        self.selection_actions: dict[str, QAction] = {}
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(4, 0, 4, 0)
        for key, text, tip in TOOLS:
            button = self._button(key, tip)
            button.setText(text)
            button.setCheckable(key in ("lasso", "refit"))
        self.row.addStretch(1)
        self.menu = QMenu("Selection", self)
        self.menu.setObjectName("mapSelectionMenu")
        for key, text, tip in SELECTION:
            action = QAction(text, self)
            action.setObjectName(f"map{key.capitalize()}Action")
            action.setIconText(text)  # the button's text, its "…" kept (Qt drops it): a dialog follows
            action.setToolTip(tip)
            action.setStatusTip(tip)
            self.selection_actions[key] = action
            self.menu.addAction(action)
            self._button(key, tip).setDefaultAction(action)
        self.more = QToolButton(self)
        self.more.setObjectName("mapSelectionButton")
        self.more.setText("Selection")
        self.more.setToolTip("Act on the selected papers: star, read, tag, like these, triage, export")
        self.more.setAccessibleName("Act on the selected papers")
        self.more.setMenu(self.menu)
        self.more.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        # Room for the menu's arrow, which the style draws in the corner, over the text's end.
        arrow = self.style().pixelMetric(QStyle.PixelMetric.PM_MenuButtonIndicator)
        self.more.setMinimumWidth(self.more.sizeHint().width() + arrow)
        self.more.hide()
        self.row.addWidget(self.more)
        self.folded = False

    def _button(self, key: str, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setToolTip(tip)
        button.setObjectName(f"map{key.capitalize()}Button")
        button.setAccessibleName(tip)
        self.buttons[key] = button
        self.row.addWidget(button)
        return button

    def _width(self, buttons: list[QToolButton]) -> int:
        """The row's width with `buttons` (their hints hold whether shown or hidden)."""
        margins = self.row.contentsMargins()
        spacing = max(self.row.spacing(), 0)
        return (margins.left() + margins.right() + sum(b.sizeHint().expandedTo(b.minimumSize()).width() for b in buttons)
                + spacing * len(buttons))  # one more gap: the stretch between the two groups

    def _tools(self) -> list[QToolButton]:
        return [self.buttons[key] for key, _, _ in TOOLS]

    def full_width(self) -> int:
        return self._width(self._tools() + [self.buttons[key] for key, _, _ in SELECTION])

    def folded_width(self) -> int:
        return self._width([*self._tools(), self.more])

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(self.folded_width(), super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.full_width(), super().sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.fold(event.size().width() < self.full_width())
        super().resizeEvent(event)

    def fold(self, folded: bool) -> None:
        """The selection's actions in the menu (folded) or as buttons."""
        if folded == self.folded:
            return
        self.folded = folded
        for key, _, _ in SELECTION:
            self.buttons[key].setVisible(not folded)
        self.more.setVisible(folded)

    def set_selection_count(self, n: int) -> None:
        for action in self.selection_actions.values():
            action.setEnabled(n > 0)
        self.more.setEnabled(n > 0)
