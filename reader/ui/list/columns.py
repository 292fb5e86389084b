"""The paper table's columns: the title takes the free width, the others size to their content
(within caps) and give way first when the window is narrow; the user's widths, order and hidden
columns are remembered; a menu on the header shows/hides columns and resets them."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, Qt
from PySide6.QtGui import QAction, QFont, QFontMetrics
from PySide6.QtWidgets import QHeaderView, QMenu, QTableView

from .model import (
    COL_ADDED,
    COL_AUTHORS,
    COL_GROUP,
    COL_METHOD,
    COL_NOTE,
    COL_STAR,
    COL_TAGS,
    COL_TITLE,
    COL_VENUE,
    COL_YEAR,
    COLUMN_NAMES,
    COLUMNS,
    PaperModel,
    _display,
)

DEFAULT_ORDER = (COL_STAR, COL_TITLE, COL_AUTHORS, COL_METHOD, COL_VENUE, COL_YEAR, COL_TAGS, COL_NOTE,
                 COL_GROUP, COL_ADDED)
FIXED = {COL_STAR: 26, COL_NOTE: 26}  # one-symbol columns
CAPS = {COL_AUTHORS: 150, COL_METHOD: 130, COL_VENUE: 120, COL_TAGS: 130, COL_ADDED: 130, COL_YEAR: 60,
        COL_GROUP: 110}
# Samples a column is never narrower than (before giving way), so a new list's content never
# makes the columns jump narrower.
SAMPLES = {COL_AUTHORS: "Vaswani et al.", COL_METHOD: "FlashAttn", COL_VENUE: "NeurIPS", COL_YEAR: "2025",
           COL_TAGS: "to-read, rl", COL_ADDED: "Today 10:26", COL_GROUP: "AL BO CY"}
# First to shrink first. The method (few papers have one) gives way before the authors (all of
# a real library's papers have them).
GIVE_WAY = (COL_TAGS, COL_VENUE, COL_METHOD, COL_AUTHORS, COL_GROUP, COL_YEAR, COL_ADDED)
# A shrunk column still says something; narrower than this it is left out until there is room.
# 0: never shrunk (a clipped time says nothing), only left out. A method cut to three letters
# ("MoC…") says nothing either: it keeps about seven, and an author "Wang et al.".
MIN_WIDTH = {COL_TAGS: 50, COL_VENUE: 50, COL_AUTHORS: 84, COL_METHOD: 72, COL_YEAR: 40, COL_ADDED: 0,
             COL_GROUP: 60}
# Columns shown only once some paper of a list has content for them (an empty column is
# noise), or once the user asks for them.
BY_CONTENT = (COL_AUTHORS, COL_TAGS, COL_GROUP)  # the group's: once a member starred a listed paper
TITLE_SHARE = 0.45  # of the table's width, kept for the title before the other columns' wishes
TITLE_FLOOR = 0.30  # what the title gives way down to before the group's column is left out
PADDING = 18  # cell margins plus room for the header's sort arrow
SAMPLE_ROWS = 120


class ColumnFitter(QObject):
    """Keeps the columns fitted to the table's width (see the module docstring)."""

    def __init__(self, table: QTableView, model: PaperModel) -> None:
        super().__init__(table)
        self.table, self.model = table, model
        self.header: QHeaderView = table.horizontalHeader()
        self.user_widths: dict[int, int] = {}  # columns the user sized by hand
        self._natural: dict[int, int] = {}
        self.auto_hidden: set[int] = set()  # left out for want of room, or (authors) of content
        self._known: set[int] = set()  # BY_CONTENT columns that had content (they then stay)
        self._fitting = False
        self._widths: dict[str, int] = {}  # text -> its width in the (bold) row font
        bold = QFont(table.font())
        bold.setBold(True)
        self._metrics = QFontMetrics(bold)
        self.header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.header.setSectionResizeMode(COL_TITLE, QHeaderView.ResizeMode.Stretch)
        self.header.setSectionsMovable(True)
        self.header.setMinimumSectionSize(24)
        self.header.sectionResized.connect(self._resized)
        table.viewport().installEventFilter(self)
        self.header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.header.customContextMenuRequested.connect(self.show_menu)
        model.modelReset.connect(self._content_changed)
        model.listingReplaced.connect(self._listing_replaced)
        model.dataChanged.connect(self._rows_changed)
        # Rows read for painting after an invalidation (a write, a group sync): measured once the
        # paint is over, so a first member's star or tag brings its column in.
        model.pageRead.connect(self._rows_changed, Qt.ConnectionType.QueuedConnection)
        self.apply_order(DEFAULT_ORDER)
        self._measure()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    # -- widths -----------------------------------------------------------------------------
    def _measure(self) -> None:
        """Natural widths: the widest of the header, a sample and the rows on screen, capped.

        Only rows already read are measured (never a read of the library here), each text's
        width measured once: a new listing costs what the screen shows, whatever it matched.
        Widths only grow, so a column at its cap is not measured again."""
        header_metrics = QFontMetrics(self.header.font())
        rows = [r for r in (self.model.cached_row(i) for i in self._rows_on_screen()) if r is not None]
        for col, cap in CAPS.items():
            if col not in self._natural:
                head = header_metrics.horizontalAdvance(COLUMNS[col])
                self._natural[col] = min(cap, max(head, self._width(SAMPLES.get(col, ""))) + PADDING)
            capped = self._natural[col] >= cap
            if capped and (col not in BY_CONTENT or col in self._known):
                continue
            texts = [_display(row, col) for row in rows]
            if col in BY_CONTENT and any(texts):
                self._known.add(col)  # once known, the column stays
            if not capped and texts:
                widest = max(self._width(t) for t in texts)
                self._natural[col] = max(self._natural[col], min(cap, widest + PADDING))

    def _rows_on_screen(self) -> range:
        """The rows the viewport shows (at most SAMPLE_ROWS)."""
        count = self.model.rowCount()
        if not count:
            return range(0)
        top = max(self.table.rowAt(0), 0)
        height = max(self.table.verticalHeader().defaultSectionSize(), 1)
        shown = self.table.viewport().height() // height + 2
        return range(top, min(count, top + min(shown, SAMPLE_ROWS)))

    def _width(self, text: str) -> int:
        width = self._widths.get(text)
        if width is None:
            if len(self._widths) > 4096:
                self._widths.clear()
            width = self._widths[text] = self._metrics.horizontalAdvance(text)
        return width

    def _rows_changed(self, *_args: object) -> None:
        # A first tag (or authors) given to a shown paper brings its column in. (A listing
        # swapped in signals its changed rows one range at a time: measured once, after.)
        if not self._fitting and not self.model.replacing and not set(BY_CONTENT) <= self._known:
            self._content_changed()

    def _listing_replaced(self, rows_changed: bool) -> None:
        """A typed key's listing swapped in without a reset: other rows measured, if any, and
        the columns fitted again only if a width or a column's content changed."""
        if rows_changed:
            before = (dict(self._natural), set(self._known))
            self._measure()
            if (self._natural, self._known) != before:
                self.fit()

    def _content_changed(self) -> None:
        self._measure()
        self.fit()

    def widths_for(self, available: int) -> dict[int, int]:
        """The width of every column to show but the title's for a table `available` px wide
        (columns left out are not in it): the title keeps TITLE_SHARE; the others shrink in
        GIVE_WAY order down to MIN_WIDTH, then the first of them are left out."""
        shown = [c for c in range(len(COLUMNS)) if c != COL_TITLE and c not in self.user_hidden]
        shown = [c for c in shown if c not in BY_CONTENT or c in self._known or c in self.user_widths]
        widths = {c: self.user_widths.get(c) or FIXED.get(c) or self._natural.get(c, 60) for c in shown}
        excess = sum(widths.values()) + int(available * TITLE_SHARE) - available
        for col in GIVE_WAY:
            if excess > 0 and col in widths and col not in self.user_widths:
                give = min(excess, max(0, widths[col] - (MIN_WIDTH[col] or widths[col])))
                widths[col] -= give
                excess -= give
        # Left out in GIVE_WAY order, but the group's column (who starred) is left out last,
        # and only once the title gave way down to TITLE_FLOOR: at 1024 px it went first.
        kept = COL_GROUP in widths and COL_GROUP not in self.user_widths
        for col in [c for c in GIVE_WAY if c != COL_GROUP] + [COL_GROUP]:
            if kept and col in (COL_YEAR, COL_GROUP) and excess > 0:
                excess -= min(excess, int(available * (TITLE_SHARE - TITLE_FLOOR)))
                kept = False  # the title gives once
            if excess > 0 and col in widths and col not in self.user_widths:
                excess -= widths.pop(col)
        return widths

    @property
    def user_hidden(self) -> set[int]:
        return {c for c in range(len(COLUMNS)) if self.header.isSectionHidden(c)} - self.auto_hidden

    def fit(self) -> None:
        if self._fitting:
            return
        self._fitting = True
        try:
            user_hidden = self.user_hidden
            widths = self.widths_for(self.table.viewport().width())
            for col in range(len(COLUMNS)):
                left_out = col != COL_TITLE and col not in widths and col not in user_hidden
                if left_out != (col in self.auto_hidden):
                    self.header.setSectionHidden(col, left_out)
                    (self.auto_hidden.add if left_out else self.auto_hidden.discard)(col)
            for col, width in widths.items():
                if self.header.sectionSize(col) != width:
                    self.header.resizeSection(col, width)
        finally:
            self._fitting = False

    def _resized(self, col: int, _old: int, new: int) -> None:
        if not self._fitting and col != COL_TITLE and new > 0:
            self.user_widths[col] = new  # a drag or a double-click on the divider

    # -- order, hiding, state ------------------------------------------------------------
    def apply_order(self, order: tuple[int, ...] | list[int]) -> None:
        """Put the logical columns in `order` (unknown or missing ones keep their place)."""
        for visual, col in enumerate(c for c in order if 0 <= c < len(COLUMNS)):
            current = self.header.visualIndex(col)
            if current != visual:
                self.header.moveSection(current, visual)

    def order(self) -> list[int]:
        return [self.header.logicalIndex(v) for v in range(self.header.count())]

    def set_hidden(self, col: int, hidden: bool) -> None:
        if col != COL_TITLE:  # the title is what the table is for
            self.auto_hidden.discard(col)
            if not hidden and col in BY_CONTENT:
                self._known.add(col)  # asked for: shown even before any paper has content
            self.header.setSectionHidden(col, hidden)
            self.fit()

    def hidden(self) -> list[int]:
        """The columns the user hid (not those left out for want of room)."""
        return sorted(self.user_hidden)

    def state(self) -> str:
        """The user's columns as JSON (settings.py stores it)."""
        return json.dumps({"order": self.order(), "hidden": self.hidden(),
                           "widths": {str(c): w for c, w in sorted(self.user_widths.items())}})

    def restore(self, text: object) -> bool:
        """Columns from state(); False (defaults kept) for anything unreadable."""
        try:
            data = json.loads(str(text))
            order = [int(c) for c in data.get("order", [])]
            hidden = {int(c) for c in data.get("hidden", [])}
            widths = {int(c): int(w) for c, w in dict(data.get("widths", {})).items()}
        except (TypeError, ValueError, AttributeError):
            return False
        self.apply_order(order)
        self.auto_hidden.clear()
        for col in range(len(COLUMNS)):
            self.header.setSectionHidden(col, col in hidden and col != COL_TITLE)
        self.user_widths = {c: w for c, w in widths.items() if 0 <= c < len(COLUMNS) and c != COL_TITLE and w > 0}
        self.fit()
        return True

    def reset(self) -> None:
        """The header menu's Reset: default order, every column shown, widths to content."""
        self.user_widths.clear()
        self.auto_hidden.clear()
        self.apply_order(DEFAULT_ORDER)
        for col in range(len(COLUMNS)):
            self.header.setSectionHidden(col, False)
        self.fit()

    # -- the header's menu ------------------------------------------------------------------
    def menu(self) -> QMenu:
        menu = QMenu(self.table)
        menu.setObjectName("columnMenu")
        menu.setAccessibleName("Columns")
        for col in self.order():
            name = COLUMN_NAMES.get(col, COLUMNS[col])
            action = QAction(name, menu, checkable=True)
            action.setObjectName(f"column{COLUMNS[col] if col not in COLUMN_NAMES else name.replace(' ', '')}Action")
            action.setChecked(col not in self.user_hidden)
            action.setEnabled(col != COL_TITLE)
            action.toggled.connect(lambda on, c=col: self.set_hidden(c, not on))
            menu.addAction(action)
        menu.addSeparator()
        reset = menu.addAction("Reset columns")
        reset.setObjectName("resetColumnsAction")
        reset.triggered.connect(self.reset)
        return menu

    def show_menu(self, pos: QPoint) -> Any:
        menu = self.menu()
        menu.popup(self.header.viewport().mapToGlobal(pos))
        return menu
