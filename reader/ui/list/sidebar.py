"""The sidebar: library views with live counts, "more like these" views, collections (imported
files and their groups), venues (filterable), tags and saved searches; sections collapse."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QPoint, QSize, Qt, Signal, SignalInstance
from PySide6.QtGui import QFontMetrics, QShowEvent
from PySide6.QtWidgets import (
    QHeaderView,
    QLineEdit,
    QMenu,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from reader.events import Change, Changes
from reader.group.views import sidebar_views
from reader.library import Counts, Library, View
from reader.models import SavedSearch, ViewKind
from reader.venues import Venue

from ..tasks import TaskRunner
from ..widgets.plain import tooltip

KEY_ROLE = Qt.ItemDataRole.UserRole + 1
HINT_ROLE = Qt.ItemDataRole.UserRole + 2
SECTION_ROLE = Qt.ItemDataRole.UserRole + 3
LIBRARY_VIEWS = (("all", "All"), ("unread", "Unread"), ("starred", "Starred"), ("notes", "With notes"),
                 ("new", "New"))
COUNT_ATTRS = {"all": "total", "unread": "unread", "starred": "starred", "notes": "with_notes", "new": "new"}
NEW_TIP = ("The newest papers of the arXiv categories you follow, not yet read, best first by your "
           "interests (Edit → Follow arXiv category…)")
LIKE_SECTION = "More like these"
LIKE_STARRED_TIP = "Papers most like your starred ones (not the starred ones themselves), best first"
LIKE_TAG_TIP = "Papers most like those tagged {tag} (not the tagged ones themselves), best first"
NO_STARS_TIP = "Star papers (S) to see the papers most like them here"
# Shown (greyed, not selectable) under a section with no entries, so every section stays visible.
GROUP_SECTION = "Reading group"
SECTIONS = ("Library", LIKE_SECTION, "Collections", "Venues", "Tags", "Saved searches", GROUP_SECTION)
VENUES = "Venues"
OPEN, CLOSED = "▾", "▸"  # a section's header shows whether it is open
GROUP_SEP = " › "  # "file › group": a group inside an imported file
HINTS = {
    # Short enough to fit a 1024 px window's sidebar whole ("Import pap…to add one" was elided).
    "Collections": ("Imports appear here", "Each imported file, and the groups inside it, appears here."),
    VENUES: ("Journals appear here", "Journals and proceedings, one name per venue, most papers first."),
    "Tags": ("Press T to tag a paper", "Select a paper and press T (or use the tag box) to add a tag."),
    "Saved searches": ("Ctrl+S saves a search", "Type a search, then press Ctrl+S (or right-click here) "
                       "to keep it in this list."),
    GROUP_SECTION: ("File → Reading group…", "Join a reading group (File → Reading group…) to triage with "
                    "others through a shared folder: who starred what, where you agree and where you split."),
}


# Changes that move no count, collection, tag or saved search.
UNCOUNTED = frozenset({Change.TITLE, Change.CITEKEY, Change.HIGHLIGHT, Change.INDEX})


def _children(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
    return [child for child in (item.child(i) for i in range(item.childCount())) if child is not None]


def view_key(view: View) -> str:
    return f"{view.kind}:{view.value or ''}"


@dataclass(frozen=True)
class SidebarData:
    """What the sidebar shows, read in one go off the GUI thread."""

    counts: Counts
    collections: list[tuple[str, int]]
    tags: list[tuple[str, int]]
    saved: list[SavedSearch]
    venues: list[Venue]
    group: list[tuple[str, int, str]] | None  # the reading group's views (reader.group.views)


@dataclass(frozen=True)
class SidebarSummary:
    """What the status bar and the tag completers take from a refresh, while the sidebar is hidden."""

    counts: Counts
    tags: list[str]


class Sidebar(QTreeWidget):
    """A two-column tree (name, count); selecting an entry emits viewSelected / searchSelected."""

    viewSelected = Signal(object)  # View
    searchSelected = Signal(dict)  # saved search {"id", "name", "query"}
    renameTagRequested = Signal(str)
    mergeTagRequested = Signal(str)
    deleteTagRequested = Signal(str)
    renameSearchRequested = Signal(dict)
    deleteSearchRequested = Signal(dict)
    saveSearchRequested = Signal()
    summaryChanged = Signal(object, list)  # the library's counts, the tag names (after each refresh)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._names_key: tuple = ()  # minimumSizeHint's cache: the section names and fonts measured
        self._names_width = 0
        self.setObjectName("sidebar")
        self.setAccessibleName("Sidebar: library, collections, tags, saved searches")
        self.setColumnCount(2)
        self.setHeaderHidden(True)
        self.setRootIsDecorated(False)
        self.setIndentation(10)
        # Not uniform: the venue filter's row is as tall as a line edit (a text row clipped it).
        self.setUniformRowHeights(False)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # long venue names keep both ends
        self.header().setStretchLastSection(False)
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.header().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._context_menu)
        self.itemSelectionChanged.connect(self._selection_changed)
        self._sections: dict[str, QTreeWidgetItem] = {}
        self._like_tags: list[str] = []  # "Like tag X" entries asked for (tag context menu), kept across starts
        self._collapsed: set[str] = set()
        for name in SECTIONS:
            item = QTreeWidgetItem(self, [f"{OPEN} {name.upper()}", ""])
            item.setData(0, Qt.ItemDataRole.AccessibleTextRole, f"{name} section")  # not "black down-pointing…"
            item.setFlags(Qt.ItemFlag.ItemIsEnabled)
            item.setData(0, SECTION_ROLE, name)
            item.setToolTip(0, tooltip(f"Click to show or hide {name}"))
            font = item.font(0)
            font.setBold(True)
            font.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
            item.setFont(0, font)
            item.setFirstColumnSpanned(True)  # a name has no count: the whole width
            item.setExpanded(True)
            self._sections[name] = item
        self.venueFilter = QLineEdit(self)
        self.venueFilter.setObjectName("venueFilter")
        self.venueFilter.setPlaceholderText("Filter venues")
        self.venueFilter.setAccessibleName("Filter venues")
        self.venueFilter.setClearButtonEnabled(True)
        self.venueFilter.textChanged.connect(self._filter_venues)
        self._venue_box = QTreeWidgetItem(self._sections[VENUES], ["", ""])
        self._venue_box.setFlags(Qt.ItemFlag.ItemIsEnabled)
        self._venue_box.setFirstColumnSpanned(True)
        self._venue_box.setSizeHint(0, QSize(-1, self.venueFilter.sizeHint().height() + 2))
        self.setItemWidget(self._venue_box, 0, self.venueFilter)
        self.itemClicked.connect(self._clicked)
        self.itemExpanded.connect(lambda item: self._expanded(item, True))
        self.itemCollapsed.connect(lambda item: self._expanded(item, False))
        for kind, label in LIBRARY_VIEWS:
            item = self._add(self._sections["Library"], label, 0, ("view", View(kind)))
            if kind == "new":
                item.setToolTip(0, tooltip(NEW_TIP))
                item.setHidden(True)  # until the counts say the library follows a feed
        self._fill_like_section(starred=0, tags=[])
        for name, (text, tip) in HINTS.items():
            self._add_hint(self._sections[name], text, tip)
        self._venue_box.setHidden(True)
        self.expandAll()
        self.current_key = view_key(View())
        self.select_key(self.current_key)
        self.counts: Any = None  # the library's counts as last shown
        self._stale = False  # a change came while a page (triage) hid the sidebar: refreshed when shown

    def minimumSizeHint(self) -> QSize:  # Qt's name
        """Wide enough for every section's name whole (and a scroll bar): a narrow window's
        splitter squeezed the sidebar to "MOR…THESE" and "SAV…RCHES"."""
        hint = super().minimumSizeHint()
        # Asked for at every relayout of the window (7 times per J/K step): the names' width is
        # measured once per set of names and fonts.
        key = tuple((item.text(0), item.font(0).key()) for item in self._sections.values())
        if key != self._names_key:
            self._names_key = key
            self._names_width = max(QFontMetrics(item.font(0)).horizontalAdvance(item.text(0))
                                    for item in self._sections.values())
        names = self._names_width
        margins = 2 * (self.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1 + self.frameWidth())
        bar = self.verticalScrollBar().sizeHint().width()
        return QSize(max(hint.width(), names + margins + bar + 4), hint.height())

    # ------------------------------------------------------------------ following the library
    def follow(self, library: Library, runner: TaskRunner, changes: SignalInstance,
               on_error: Callable[[BaseException], None]) -> None:
        """Keep the counts, collections, tags and saved searches current: refresh (off the GUI
        thread) now and after every change that can move them."""
        self._library, self._runner, self._on_error = library, runner, on_error
        changes.connect(self._changes_seen)
        self.refresh()

    def _changes_seen(self, changes: Changes) -> None:
        if changes.kinds - UNCOUNTED or not changes.kinds:
            if self.window().isVisible() and not self.isVisible():
                # Hidden by a page (triage): only what the status bar shows (at 100k 15 ms of a
                # worker, not 120 ms per decision, venues and collections read again each time).
                self._stale = True
                self._refresh_summary()
            else:
                self.refresh()

    def showEvent(self, event: QShowEvent) -> None:  # Qt's name
        super().showEvent(event)
        if self._stale:  # (set only once following the library)
            self.refresh()

    def _refresh_summary(self) -> None:
        lib = self._library

        def compute() -> SidebarSummary:
            return SidebarSummary(lib.counts(), [name for name, _ in lib.tags()])

        def done(out: SidebarSummary) -> None:
            self.summaryChanged.emit(out.counts, out.tags)

        self._runner.read("sidebar", compute, done, self._on_error)

    def refresh(self) -> None:
        self._stale = False
        lib = self._library

        def compute() -> SidebarData:
            return SidebarData(lib.counts(), lib.collections(), lib.tags(), lib.saved_searches(), lib.venues(),
                               sidebar_views(lib.read_connection()))

        self._runner.read("sidebar", compute, self._refreshed, self._on_error)

    def _refreshed(self, out: SidebarData) -> None:
        self.counts = out.counts
        self.update_data(out.counts, out.collections, out.tags, out.saved, out.venues, out.group)
        self.summaryChanged.emit(out.counts, [name for name, _ in out.tags])

    def _add(self, parent: QTreeWidgetItem | None, name: str, count: int | None, key: tuple) -> QTreeWidgetItem:
        """An entry under `parent` (None: not in the tree yet; many are added at once by
        addChildren: each change to an item in the tree has the count column, sized to its
        contents, measure every entry again: 401 venues took 7 s on the GUI thread)."""
        item = QTreeWidgetItem([name, "" if count is None else str(count)])
        item.setData(0, KEY_ROLE, key)
        item.setTextAlignment(1, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        item.setToolTip(0, tooltip(name))
        if parent is not None:
            parent.addChild(item)
        return item

    def _add_hint(self, parent: QTreeWidgetItem, text: str, tip: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem([text, ""])  # made whole, then added (see _add)
        item.setFlags(Qt.ItemFlag.NoItemFlags)  # drawn with the palette's disabled colour, never selected
        font = item.font(0)
        font.setItalic(True)
        item.setFont(0, font)
        item.setToolTip(0, tooltip(tip))
        item.setData(0, HINT_ROLE, True)
        parent.addChild(item)
        item.setFirstColumnSpanned(True)  # a view's setting: only once in the tree
        return item

    def _fill_like_section(self, starred: int, tags: list[str]) -> None:
        """"Like ★" (greyed with a hint while nothing is starred) and the "Like tag X" entries
        asked for whose tag still exists."""
        section = self._sections[LIKE_SECTION]
        section.takeChildren()
        item = self._add(section, "Like ★", None, ("view", View(ViewKind.LIKE_STARRED)))
        item.setData(0, Qt.ItemDataRole.AccessibleTextRole, "Like the starred papers")
        item.setToolTip(0, tooltip(LIKE_STARRED_TIP if starred else NO_STARS_TIP))
        if not starred:
            item.setFlags(Qt.ItemFlag.NoItemFlags)
        self._like_tags = [t for t in self._like_tags if t in tags]
        for tag in self._like_tags:
            like = self._add(section, f"Like {tag}", None, ("view", View(ViewKind.LIKE_TAG, tag)))
            like.setToolTip(0, tooltip(LIKE_TAG_TIP.format(tag=tag)))

    def like_tags(self) -> list[str]:
        return list(self._like_tags)

    def set_like_tags(self, tags: list[str]) -> None:
        """The "Like tag X" entries remembered from the last session; shown once the tags are
        known (update_data drops those whose tag is gone)."""
        self._like_tags = list(dict.fromkeys(tags))

    def show_like_tag(self, tag: str) -> None:
        """Add (once) and select the "Like tag X" view (emitting viewSelected)."""
        if tag not in self._like_tags:
            self._like_tags.append(tag)
            like = self._add(self._sections[LIKE_SECTION], f"Like {tag}", None,
                             ("view", View(ViewKind.LIKE_TAG, tag)))
            like.setToolTip(0, tooltip(LIKE_TAG_TIP.format(tag=tag)))
        self.select_key(view_key(View(ViewKind.LIKE_TAG, tag)))

    def hint(self, section: str) -> str | None:
        """The hint shown under an empty section, or None when it has entries."""
        item = self._sections[section]
        children = [c for c in _children(item) if c is not self._venue_box]
        if len(children) == 1 and children[0].data(0, HINT_ROLE):
            return children[0].text(0)
        return None

    def _items(self) -> list[QTreeWidgetItem]:
        return [child for s in self._sections.values() for child in _children(s)]

    @staticmethod
    def _key_of(item: QTreeWidgetItem) -> str | None:
        key = item.data(0, KEY_ROLE)
        if not key:
            return None
        if key[0] == "view":
            return view_key(key[1])
        if key[0] == "group":
            return f"group:{key[1]['query']}"
        return f"search:{key[1]['id']}"

    def update_data(self, counts: Any, collections: list, tags: list, searches: list[SavedSearch],
                    venues: list | None = None, group: list[tuple[str, int, str]] | None = None) -> None:
        """Rebuild the dynamic sections and the counts, keeping the selection, silently."""
        self.blockSignals(True)
        try:
            lib = self._sections["Library"]
            for item in _children(lib):
                kind = item.data(0, KEY_ROLE)[1].kind
                item.setText(1, str(getattr(counts, COUNT_ATTRS[kind], "")))
                if kind == "new":  # only in a library that follows a feed (else it is always 0)
                    item.setHidden(not (getattr(counts, "follows", False) or getattr(counts, "new", 0)))
            self._fill_like_section(int(getattr(counts, "starred", 0) or 0), [n for n, _ in tags])
            self._fill_venues(venues or [])
            for name, rows in (
                ("Collections", [(n, c, ("view", View("collection", n))) for n, c in collections]),
                ("Tags", [(n, c, ("view", View("tag", n))) for n, c in tags]),
                ("Saved searches", [(s["name"], None, ("search", s)) for s in searches]),
                (GROUP_SECTION, [(label, n, ("group", {"id": None, "name": label, "query": query}))
                                 for label, n, query in group or []]),
            ):
                section = self._sections[name]
                section.takeChildren()
                items = []
                for label, count, key in rows:
                    item = self._add(None, label, count, key)
                    if name == "Collections" and GROUP_SEP in label:  # a group: under its file
                        item.setText(0, "    " + label.rsplit(GROUP_SEP, 1)[1])
                    items.append(item)
                section.addChildren(items)
                if not rows:
                    self._add_hint(section, *HINTS[name])
            self.select_key(self.current_key)
        finally:
            self.blockSignals(False)

    # ------------------------------------------------------------------ venues and sections
    def _fill_venues(self, venues: list) -> None:
        """The Venues section: the filter box (kept, so typing in it is never interrupted),
        then each venue, most papers first, its full name in the tooltip."""
        section = self._sections[VENUES]
        while section.childCount() > 1:
            section.takeChild(1)
        self._venue_box.setHidden(not venues)
        if not venues:
            self._add_hint(section, *HINTS[VENUES])
            return
        items = []
        for venue in venues:
            item = self._add(None, venue.name, venue.count, ("view", View(ViewKind.VENUE, venue.key)))
            item.setToolTip(0, tooltip(f"{venue.name} ({venue.count:,} papers)"))
            items.append(item)
        section.addChildren(items)
        self._filter_venues(self.venueFilter.text())

    def _filter_venues(self, text: str) -> None:
        words = text.casefold().split()
        for item in _children(self._sections[VENUES]):
            if item.data(0, KEY_ROLE):
                name = item.text(0).casefold()
                item.setHidden(not all(w in name for w in words))

    def venue_names(self, *, visible: bool = False) -> list[str]:
        return [item.text(0) for item in _children(self._sections[VENUES])
                if item.data(0, KEY_ROLE) and not (visible and item.isHidden())]

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        if item.data(0, SECTION_ROLE):
            item.setExpanded(not item.isExpanded())

    def _expanded(self, item: QTreeWidgetItem, expanded: bool) -> None:
        name = item.data(0, SECTION_ROLE)
        if not name:
            return
        item.setText(0, f"{OPEN if expanded else CLOSED} {name.upper()}")
        (self._collapsed.discard if expanded else self._collapsed.add)(name)

    def collapsed_sections(self) -> list[str]:
        """The sections the user closed (kept across starts)."""
        return [name for name in SECTIONS if name in self._collapsed]

    def set_collapsed_sections(self, names: list[str]) -> None:
        for name in SECTIONS:
            self._sections[name].setExpanded(name not in names)

    def select_key(self, key: str) -> bool:
        for item in self._items():
            if self._key_of(item) == key:
                self.setCurrentItem(item)
                return True
        return False

    def show_view(self, view: View) -> None:
        """Mark `view` as the current one without emitting viewSelected (the caller re-lists)."""
        self.current_key = view_key(view)
        self.blockSignals(True)
        self.select_key(self.current_key)
        self.blockSignals(False)

    def select_view(self, view: View) -> None:
        """Select a view (emitting viewSelected), falling back to All."""
        if not self.select_key(view_key(view)):
            self.select_key(view_key(View()))

    def tag_names(self) -> list[str]:
        section = self._sections["Tags"]
        return [child.text(0) for child in _children(section) if child.data(0, KEY_ROLE)]

    def _selection_changed(self) -> None:
        items = self.selectedItems()
        if not items:
            return
        key = items[0].data(0, KEY_ROLE)
        if not key:
            return
        self.current_key = self._key_of(items[0]) or self.current_key
        if key[0] == "view":
            self.viewSelected.emit(key[1])
        else:
            self.searchSelected.emit(key[1])

    def context_menu_for(self, item: QTreeWidgetItem | None) -> QMenu:
        """The right-click menu of an entry: tag rename/merge/delete, saved search rename/delete."""
        key = item.data(0, KEY_ROLE) if item else None
        menu = QMenu(self)
        if key and key[0] == "view" and key[1].kind == "tag":
            name = key[1].value
            menu.addAction("Rename tag…", lambda: self.renameTagRequested.emit(name))
            menu.addAction("Merge into…", lambda: self.mergeTagRequested.emit(name))
            menu.addAction("Delete tag", lambda: self.deleteTagRequested.emit(name))
            menu.addSeparator()
            like = menu.addAction(f"Papers like {name}", lambda: self.show_like_tag(name))
            like.setObjectName("likeTagAction")
        elif key and key[0] == "search":
            search = key[1]
            menu.addAction("Rename saved search…", lambda: self.renameSearchRequested.emit(search))
            menu.addAction("Delete saved search", lambda: self.deleteSearchRequested.emit(search))
        menu.addAction("Save current search…", self.saveSearchRequested.emit)
        return menu

    def item_for(self, key: str) -> QTreeWidgetItem | None:
        return next((item for item in self._items() if self._key_of(item) == key), None)

    def _context_menu(self, pos: QPoint) -> None:
        menu = self.context_menu_for(self.itemAt(pos))
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self.viewport().mapToGlobal(pos))
