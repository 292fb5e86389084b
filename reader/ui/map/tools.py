"""The map page's button row: the map's tools on the left, what acts on the selection on the right.

Every button shows a QAction. While the row has no room for all nine, the selection's six fold
into one Selection menu button; narrower still, the three tools fold into a Map menu button
too. The row's minimum width is the most folded one: the nine buttons' 520-odd px were the list
column's minimum (the map page is in the list's stack even while the list shows), so at 1024 px
the splitter took the missing width from the sidebar and cut its section names. Buttons and
menus hold the same actions: one enabled (or checked) state, one trigger, one name each."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QAction, QResizeEvent
from PySide6.QtWidgets import QHBoxLayout, QMenu, QStyle, QToolButton, QWidget

TOOLS = (("lasso", "Lasso", "Draw a lasso to select (also Ctrl+drag)"),
         ("refit", "Refit", "Lay out only the papers of this list"),
         ("relayout", "Re-layout", "Lay the whole library out anew"))
CHECKABLE = ("lasso", "refit")
SELECTION = (("star", "Star", "Star the selected papers"),
             ("read", "Read", "Mark the selected papers read"),
             ("tag", "Tag…", "Tag the selected papers"),
             ("like", "Like these", "Light up the papers most like the selection"),
             ("triage", "Triage", "Triage the selected papers"),
             ("export", "Export…", "Export the selected papers"))
SHOWN, SELECTION_FOLDED, ALL_FOLDED = 0, 1, 2  # the row's levels of folding


class MapToolbar(QWidget):
    """The row of buttons above the map, folded as far as its width needs (`level`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mapToolbar")
        self.buttons: dict[str, QToolButton] = {}
        self.tool_actions: dict[str, QAction] = {}
        self.selection_actions: dict[str, QAction] = {}
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(4, 0, 4, 0)
        self.tools_menu, self.tools_button = self._group(
            TOOLS, self.tool_actions, "Map", "mapTools", "The map's tools: lasso, refit, re-layout")
        for key in CHECKABLE:
            self.tool_actions[key].setCheckable(True)
        self.row.addStretch(1)
        self.menu, self.more = self._group(
            SELECTION, self.selection_actions, "Selection", "mapSelection",
            "Act on the selected papers: star, read, tag, like these, triage, export")
        self.more.setAccessibleName("Act on the selected papers")
        self.level = SHOWN

    def _group(self, entries: tuple, actions: dict[str, QAction], title: str, name: str,
               tip: str) -> tuple[QMenu, QToolButton]:
        """One button per action, then the menu button holding them all (hidden until folded)."""
        menu = QMenu(title, self)
        menu.setObjectName(f"{name}Menu")
        for key, text, action_tip in entries:
            action = QAction(text, self)
            action.setObjectName(f"map{key.capitalize()}Action")
            action.setIconText(text)  # the button's text, its "…" kept (Qt drops it): a dialog follows
            action.setToolTip(action_tip)
            action.setStatusTip(action_tip)
            actions[key] = action
            menu.addAction(action)
            button = QToolButton(self)
            button.setDefaultAction(action)
            button.setObjectName(f"map{key.capitalize()}Button")
            button.setAccessibleName(action_tip)
            self.buttons[key] = button
            self.row.addWidget(button)
        button = QToolButton(self)
        button.setObjectName(f"{name}Button")
        button.setText(title)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setMenu(menu)
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        # Room for the menu's arrow, which the style draws in the corner, over the text's end.
        arrow = self.style().pixelMetric(QStyle.PixelMetric.PM_MenuButtonIndicator)
        button.setMinimumWidth(button.sizeHint().width() + arrow)
        button.hide()
        self.row.addWidget(button)
        return menu, button

    def _width(self, buttons: list[QToolButton]) -> int:
        """The row's width with `buttons` (their hints hold whether shown or hidden)."""
        margins = self.row.contentsMargins()
        spacing = max(self.row.spacing(), 0)
        return (margins.left() + margins.right() + spacing * len(buttons)  # a gap more: the stretch
                + sum(b.sizeHint().expandedTo(b.minimumSize()).width() for b in buttons))

    def width_at(self, level: int) -> int:
        tools = [self.tools_button] if level >= ALL_FOLDED else [self.buttons[k] for k, _, _ in TOOLS]
        chosen = [self.more] if level >= SELECTION_FOLDED else [self.buttons[k] for k, _, _ in SELECTION]
        return self._width(tools + chosen)

    @property
    def folded(self) -> bool:
        """The selection's actions are in the Selection menu."""
        return self.level >= SELECTION_FOLDED

    def minimumSizeHint(self) -> QSize:  # Qt's name
        return QSize(self.width_at(ALL_FOLDED), super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        return QSize(self.width_at(SHOWN), super().sizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        width = event.size().width()
        self.fold(next((level for level in (SHOWN, SELECTION_FOLDED) if self.width_at(level) <= width), ALL_FOLDED))
        super().resizeEvent(event)

    def fold(self, level: int) -> None:
        """Show the buttons of `level`: every one, the selection's in their menu, or both groups'."""
        if level == self.level:
            return
        self.level = level
        for entries, button, folded in ((TOOLS, self.tools_button, level >= ALL_FOLDED),
                                        (SELECTION, self.more, level >= SELECTION_FOLDED)):
            for key, _, _ in entries:
                self.buttons[key].setVisible(not folded)
            button.setVisible(folded)

    def set_selection_count(self, n: int) -> None:
        for action in self.selection_actions.values():
            action.setEnabled(n > 0)
        self.more.setEnabled(n > 0)
