"""Table model over paper ids; rows are fetched lazily from the library in cached pages, and
the ids of a long search lazily too, a page at a time as the user scrolls (fetchMore).

At 100k papers a new listing must cost the GUI thread what the screen shows, not what the query
matched: the worker that lists also prepares (`prepare_listing`): it drops repeated ids, builds
the id → row map, reads the rows of the first page (and of the page holding the paper to keep
selected) and finds that paper's row (prepared.py). `set_listing` then only swaps references,
and a typed key's short listing is swapped in without a reset: only rows whose paper changed
are repainted."""

from __future__ import annotations

import sys
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QFont

from reader.group.records import initials
from reader.listing import Listing, PageFetch
from reader.plural import count_noun
from reader.text import title_plain

from ..widgets.plain import tooltip
from .prepared import PAGE_SIZE, PreparedListing
from .prepared import RowCache as RowCache
from .prepared import prepare_listing as prepare_listing

COL_STAR, COL_TITLE, COL_METHOD, COL_VENUE, COL_YEAR, COL_TAGS, COL_NOTE, COL_ADDED, COL_AUTHORS, COL_GROUP = range(10)
# Authors came last: its logical index is the last one (saved column states stay valid); the
# table shows it after the title (paper_table.DEFAULT_ORDER).
COLUMNS = ("★", "Title", "Method", "Venue", "Year", "Tags", "✎", "Added", "Authors", "Group ★")
# The reading group's column (reader.group) came after the authors, for the same reason.
COLUMN_NAMES = {COL_STAR: "Starred", COL_NOTE: "Has a note", COL_GROUP: "Starred by the group"}  # the symbols' names (tooltips, menus)
SORT_KEYS = {
    COL_STAR: "starred",
    COL_TITLE: "title",
    COL_METHOD: "method",
    COL_VENUE: "venue",
    COL_YEAR: "year",
    COL_TAGS: "tags",
    COL_NOTE: "note",
    COL_ADDED: "added",
}
ID_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
READ_ROLE = Qt.ItemDataRole.UserRole + 3
_ID, _READ, _SORT = int(ID_ROLE), int(READ_ROLE), int(SORT_ROLE)
_DISPLAY, _FONT = int(Qt.ItemDataRole.DisplayRole), int(Qt.ItemDataRole.FontRole)
_TOOLTIP, _ALIGN = int(Qt.ItemDataRole.ToolTipRole), int(Qt.ItemDataRole.TextAlignmentRole)
_SPOKEN = int(Qt.ItemDataRole.AccessibleTextRole)  # asked by assistive technology only
_ROLES = frozenset((_ID, _READ, _SORT, _DISPLAY, _FONT, _TOOLTIP, _ALIGN, _SPOKEN))
_CENTER = int(Qt.AlignmentFlag.AlignCenter)
MAX_PAGES = 64  # ~12,800 rows of cache; a screen shows ~40
FETCH_IDS = 200  # ids of a paged search fetched per scroll to the bottom
NEAR_EDGE = 40  # rows (a screen) from a page's edge where painting asks for the page beyond
REPLACE_MOST = 2 * PAGE_SIZE  # a new listing this short is compared row by row with the shown one
MAX_RUNS = 8  # changed rows signalled in this many ranges at most (else one range over them all)
ASK_MOST = 6  # pages of rows asked of the worker at once (painted last: the screen and its neighbours)

# What a new listing is to the shown one (PaperModel.set_listing); the window keeps the
# selection for KEPT/RELISTED, keeps the selected paper for SORTED, starts at the top for NEW.
KEPT, RELISTED, SORTED, NEW = "kept", "relisted", "sorted", "new"
QUERY_PART = 2  # a listing key starts with (query, view), then how it is ordered

# run_read(job, on_done, on_error): runs job() off the GUI thread, the callbacks back on it.
ReadRunner = Callable[[Callable[[], Any], Callable[[Any], None], Callable[[BaseException], None]], Any]

_Index = QModelIndex | QPersistentModelIndex


def _runs(rows: list[int]) -> list[tuple[int, int]]:
    """Sorted row numbers as (first, last) ranges of consecutive rows."""
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][1] == row - 1:
            runs[-1] = (runs[-1][0], row)
        else:
            runs.append((row, row))
    return runs


def listing_change(old: tuple | None, new: tuple | None) -> str:
    """RELISTED for the same key, SORTED when only the order differs, else NEW."""
    if old is None or new is None:
        return NEW
    if old == new:
        return RELISTED
    return SORTED if old[:QUERY_PART] == new[:QUERY_PART] else NEW


class PaperModel(QAbstractTableModel):
    """Holds only the ordered ids of the current view; Library.rows() fills pages on demand."""

    sortRequested = Signal(int, object)  # column, Qt.SortOrder
    pageRead = Signal()  # rows read for painting: the columns measure what arrived (queued)
    # A listing swapped in without a model reset (_replace_in_place): what a reset tells a
    # follower of the list (the map's search hits), True when other rows are shown.
    listingReplaced = Signal(bool)

    def __init__(self, library: Any, parent: Any = None) -> None:
        super().__init__(parent)
        self._library = library
        self._ids: list[str] = []
        self._row_of: dict[str, int] | None = None
        self._pages: OrderedDict[int, list[Any]] = OrderedDict()
        self._bold = QFont()
        self._bold.setBold(True)
        # The rest of a paged search: ids up to _total, fetched through _more.
        self._total = 0
        self._more: PageFetch | None = None
        self._fetching = False
        self._source = 0  # bumped when the ids are replaced: a page of the old list is dropped
        self.run_read: ReadRunner | None = None  # None: pages are fetched synchronously
        # Set by the window: the rows of a page painting reaches first (scrolled past the pages
        # the listing's worker read) are read by this, off the GUI thread; the cells stay blank
        # until they arrive. Pages read before a write are read again here, as before (a write's
        # change must show at once). None: read here.
        self.run_rows: ReadRunner | None = None
        self._held: set[int] = set()  # pages read before the last invalidation
        self._asked: dict[int, None] = {}  # pages asked of run_rows, not arrived yet, oldest first
        self._asking = False
        self._rows_gen = 0  # bumped when the ids or the rows change: an older page is dropped
        self._last_page = self._last_row = -1
        self.pages_read_here = 0  # pages of rows read on the GUI thread (tests count them)
        self.listing_key: tuple | None = None  # what the shown ids were listed for
        self.replacing = False  # in _replace_in_place: its row signals are one listing's

    # -- ids ----------------------------------------------------------------------------
    def set_ids(self, ids: list[str], total: int | None = None, more: PageFetch | None = None,
                prepared: PreparedListing | None = None) -> None:
        self.beginResetModel()
        if prepared is not None:  # unique ids, their map and the first rows, made by the worker
            self._ids, self._row_of = prepared.ids, prepared.row_of
        else:
            self._ids, self._row_of = list(dict.fromkeys(ids)), None
        self._pages.clear()
        self._forget_rows(held=False)
        if prepared is not None:
            self._pages.update(prepared.pages)
        self._set_source(total, more)
        self.endResetModel()

    def set_listing(self, listed: Listing | PreparedListing, key: tuple | None = None) -> str:
        """Show a listing made for `key` (query, view, sort… see SearchBar.list_key); says what
        changed: KEPT (the same list again, rows refreshed), RELISTED (the same list, other ids:
        after a write), SORTED (the same query and view in another order) or NEW.

        Only the same list again may keep what is on screen: the same first ids with more
        already fetched (the user scrolled, then a write re-listed) keep the fetched rows. A new
        query whose first page happens to be a prefix of the shown ids (an empty one always is)
        replaces them.

        A `PreparedListing` (made on a worker) costs the GUI thread no work that grows with
        the number of matches."""
        prepared = listed if isinstance(listed, PreparedListing) else None
        found = listed.found if isinstance(listed, PreparedListing) else listed
        ids, old_key = (prepared.ids if prepared is not None else found.ids), self.listing_key
        self.listing_key = key
        change = listing_change(old_key, key)
        if (change == RELISTED and ids and ids == self._ids[:len(ids)]
                and (len(ids) == len(self._ids) or found.more is not None)):
            self._set_source(found.total, found.more)
            self.invalidate(prepared.pages if prepared is not None else None)
            return KEPT
        if change == RELISTED and self._ids and len(ids) > len(self._ids) and ids[:len(self._ids)] == self._ids:
            # The rest of the same list (the window's first page at start, then the whole list
            # from a worker): appended below the rows on screen, selection and scroll kept.
            if prepared is not None and prepared.ids[:len(self._ids)] == self._ids:
                self._append_prepared(prepared)
            else:
                self.append_ids(ids[len(self._ids):])
            self._set_source(found.total, found.more)
            return KEPT
        if prepared is None or not self._replace_in_place(prepared):
            self.set_ids(ids, found.total, found.more, prepared)
        return change

    def _replace_in_place(self, prepared: PreparedListing) -> bool:
        """Another short list (a typed key's): the ids are swapped without a model reset and only
        the rows whose paper changed are signalled, so the view repaints those rows alone, and
        nothing when the key left the list as it was (about half the keys of a typed title at
        100k). False: too long to compare here, or no list before or after (a reset then)."""
        old, new = self._ids, prepared.ids
        if not old or not new or len(old) > REPLACE_MOST or len(new) > REPLACE_MOST:
            return False
        n_old, n_new = len(old), len(new)
        changed = [row for row in range(min(n_old, n_new)) if old[row] != new[row]]
        # In the order Qt's model contract asks: rows at the end removed (the rest as they
        # were), then the shown rows' papers changed, then rows added at the end.
        if n_new < n_old:
            self.beginRemoveRows(QModelIndex(), n_new, n_old - 1)
            self._ids, self._row_of = old[:n_new], None
            self.endRemoveRows()
        self._ids, self._row_of = (new, prepared.row_of) if n_new <= n_old else (new[:n_old], None)
        self._pages.clear()
        self._forget_rows(held=False)
        self._pages.update(prepared.pages)  # (rows past a shorter list's end are never asked)
        last = len(COLUMNS) - 1
        runs = _runs(changed)
        if len(runs) > MAX_RUNS:
            runs = [(runs[0][0], runs[-1][1])]
        self.replacing = True
        try:
            for first, end in runs:
                self.dataChanged.emit(self.index(first, 0), self.index(end, last))
        finally:
            self.replacing = False
        if n_new > n_old:
            self.beginInsertRows(QModelIndex(), n_old, n_new - 1)
            self._ids, self._row_of = new, prepared.row_of
            self.endInsertRows()
        self._set_source(prepared.found.total, prepared.found.more)
        self.listingReplaced.emit(bool(changed) or n_new != n_old)
        return True

    def _append_prepared(self, prepared: PreparedListing) -> None:
        """The rest of the shown list, its map made by the worker: only references change."""
        first, last = len(self._ids), len(prepared.ids) - 1
        self._pages.pop(first // PAGE_SIZE, None)  # a cached partial last page grows
        self.beginInsertRows(QModelIndex(), first, last)
        self._ids, self._row_of = prepared.ids, prepared.row_of
        self.endInsertRows()

    def _set_source(self, total: int | None, more: PageFetch | None) -> None:
        self._source += 1
        self._fetching = False
        self._more = more
        self._total = max(total or 0, len(self._ids)) if more is not None else len(self._ids)

    def more_fetch(self) -> PageFetch | None:
        """How the rest of a paged listing is fetched (None: every id is here)."""
        return self._more

    def total(self) -> int:
        """Every id the list holds, fetched or not."""
        return self._total

    def append_ids(self, ids: list[str]) -> None:
        """Add a fetched page at the end (ids already listed are skipped)."""
        if self._row_of is None:
            self._row_of = {pid: i for i, pid in enumerate(self._ids)}
        new = [pid for pid in dict.fromkeys(ids) if pid not in self._row_of]
        if not new:
            self._more = None  # the search had no more: stop asking
            self._total = len(self._ids)
            return
        first = len(self._ids)
        self._pages.pop(first // PAGE_SIZE, None)  # a cached partial last page grows
        self.beginInsertRows(QModelIndex(), first, first + len(new) - 1)
        self._ids.extend(new)
        self._row_of.update((pid, first + i) for i, pid in enumerate(new))
        self.endInsertRows()

    def ids(self) -> list[str]:
        return self._ids

    def id_at(self, row: int) -> str | None:
        return self._ids[row] if 0 <= row < len(self._ids) else None

    def row_of(self, paper_id: str) -> int:
        """Row of a paper id, or -1; the reverse map is built once per id list."""
        if self._row_of is None:
            self._row_of = {pid: i for i, pid in enumerate(self._ids)}
        return self._row_of.get(paper_id, -1)

    def invalidate(self, fresh: dict[int, list[Any]] | None = None) -> None:
        """Forget cached rows (after a write) and repaint what is visible; `fresh`: pages read
        again after the write (by the worker that re-listed)."""
        self._forget_rows(held=True)
        self._pages.clear()
        if fresh:
            self._pages.update(fresh)
            self._held.difference_update(fresh)
        if self._ids:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._ids) - 1, len(COLUMNS) - 1))

    def cached_row(self, row: int) -> Any:
        """The PaperRow at `row` if its page is read already (never reads), else None."""
        rows = self._pages.get(row // PAGE_SIZE) if 0 <= row < len(self._ids) else None
        return rows[row % PAGE_SIZE] if rows is not None and row % PAGE_SIZE < len(rows) else None

    def pages_read(self) -> int:
        """How many pages of rows are held (a test counts the rows a listing materialised)."""
        return len(self._pages)

    def row_data(self, row: int) -> Any:
        """The PaperRow at `row` (fetching its page if needed), or None."""
        if not 0 <= row < len(self._ids):
            return None
        page = row // PAGE_SIZE
        rows = self._pages.get(page)
        if rows is None:
            rows = self._read_page(page)
        else:
            self._pages.move_to_end(page)
        return rows[row - page * PAGE_SIZE]

    def _read_page(self, page: int) -> list[Any]:
        page_ids = self._ids[page * PAGE_SIZE : (page + 1) * PAGE_SIZE]
        found = self._library.rows(page_ids)
        rows = [found.get(pid) for pid in page_ids]
        self.pages_read_here += 1
        self._keep(page, rows)
        self.pageRead.emit()
        return rows

    def _keep(self, page: int, rows: list[Any]) -> None:
        self._pages[page] = rows
        self._held.discard(page)
        while len(self._pages) > MAX_PAGES:
            self._pages.popitem(last=False)

    def _forget_rows(self, *, held: bool) -> None:
        """The rows read so far are out of date (held: their pages are read here again when
        painted, so a write shows at once) or of another list; pages asked are dropped."""
        self._held = (self._held | set(self._pages)) if held else set()
        self._asked.clear()
        self._rows_gen += 1
        self._last_page = self._last_row = -1

    def _painted_row(self, row: int) -> Any:
        """data()'s row: a page not read yet is asked of run_rows (None until it arrives), and
        so is the next (or previous) page once painting comes within a screen of it, so that
        J/K and scrolling find it read."""
        page = row // PAGE_SIZE
        rows = self._pages.get(page)
        if rows is not None:
            if row != self._last_row:  # (data() is asked for every cell and role: once a row)
                self._last_row = row
                if page != self._last_page:
                    self._last_page = page
                    self._pages.move_to_end(page)
                if self.run_rows is not None:
                    offset = row - page * PAGE_SIZE
                    near = page - 1 if offset < NEAR_EDGE else page + 1 if offset >= PAGE_SIZE - NEAR_EDGE else -1
                    if near >= 0 and near * PAGE_SIZE < len(self._ids) and near not in self._pages:
                        self._ask(near)
            return rows[row - page * PAGE_SIZE]
        if self.run_rows is None or page in self._held:
            return self.row_data(row)
        self._ask(page)
        return None

    def _ask(self, page: int) -> None:
        if page in self._asked or page in self._held:
            return
        self._asked[page] = None
        while len(self._asked) > ASK_MOST:  # scrolled past fast: the oldest are no longer painted
            del self._asked[next(iter(self._asked))]
        if not self._asking:
            self._asking = True
            QTimer.singleShot(0, self._read_asked)  # every page one paint asks for, in one job

    def _read_asked(self) -> None:
        self._asking = False
        if not self._asked or self.run_rows is None:
            return
        gen, lib = self._rows_gen, self._library
        wanted = {page: self._ids[page * PAGE_SIZE : (page + 1) * PAGE_SIZE] for page in sorted(self._asked)}

        def job() -> dict[int, list[Any]]:
            found = lib.rows([pid for ids in wanted.values() for pid in ids])
            return {page: [found.get(pid) for pid in ids] for page, ids in wanted.items()}

        def done(pages: dict[int, list[Any]]) -> None:
            if gen != self._rows_gen:
                return  # another list, or a write since: painting asks again
            columns = len(COLUMNS) - 1
            for page, rows in pages.items():
                self._asked.pop(page, None)
                first = page * PAGE_SIZE
                if wanted[page] == self._ids[first : first + PAGE_SIZE]:
                    self._keep(page, rows)
                # (else the list grew since: the page is asked again when painted)
                self.dataChanged.emit(self.index(first, 0), self.index(first + len(rows) - 1, columns))
            self.pageRead.emit()

        def failed(exc: BaseException) -> None:
            if gen == self._rows_gen:
                for page in wanted:
                    self._asked.pop(page, None)
            sys.excepthook(type(exc), exc, exc.__traceback__)  # a bug: report it

        self.run_rows(job, done, failed)

    # -- Qt model API -------------------------------------------------------------------
    def canFetchMore(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008 - Qt signature
        return (not parent.isValid() and self._more is not None and not self._fetching
                and len(self._ids) < self._total)

    def fetchMore(self, parent: _Index = QModelIndex()) -> None:  # noqa: B008 - Qt signature
        """The view scrolled to the bottom: fetch the next page of ids (off the GUI thread)."""
        if not self.canFetchMore(parent) or self._more is None:
            return
        more, start, source = self._more, len(self._ids), self._source
        self._fetching = True

        def done(ids: list[str]) -> None:
            if source == self._source:  # else the list was replaced meanwhile
                self._fetching = False
                self.append_ids(ids)

        def failed(exc: BaseException) -> None:
            if source == self._source:
                self._fetching = False
                self._more = None
                self._total = len(self._ids)
            sys.excepthook(type(exc), exc, exc.__traceback__)  # a bug: report it

        if self.run_read is None:
            done(more(start, FETCH_IDS))
        else:
            self.run_read(lambda: more(start, FETCH_IDS), done, failed)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(self._ids)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt signature
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMN_NAMES.get(section, COLUMNS[section])
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return COLUMN_NAMES.get(section, COLUMNS[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Called for every cell and role at each repaint: plain ints, no enum lookups.
        role = int(role)
        if role not in _ROLES or not index.isValid():
            return None
        if role == _ID:
            return self._ids[index.row()]
        row = self._painted_row(index.row())
        if row is None:
            return None
        col = index.column()
        if role == _DISPLAY:
            return _display(row, col)
        if role == _FONT:
            return None if row.read else self._bold  # unread rows are bold, like a mail client
        if role == _READ:
            return bool(row.read)
        if role == _ALIGN:
            return _CENTER if col in (COL_STAR, COL_NOTE, COL_YEAR) else None
        if role == _TOOLTIP:
            return _tooltip(row, col)
        if role == _SPOKEN:  # the star and note columns' signs in words ("★" was read "black star")
            return ("Starred" if row.starred else "") if col == COL_STAR else (
                ("Has a note" if row.has_note else "") if col == COL_NOTE else None)
        return _sort_value(row, col)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        # The library sorts (it sees every row); the window re-queries the ids.
        self.sortRequested.emit(column, order)


def _display(row: Any, col: int) -> str:
    if col == COL_STAR:
        return "★" if row.starred else ""
    if col == COL_TITLE:
        return title_plain(row.title or "")
    if col == COL_METHOD:
        return row.method or ""
    if col == COL_VENUE:
        return row.venue or ""
    if col == COL_YEAR:
        return str(row.year) if row.year else ""
    if col == COL_TAGS:
        return ", ".join(row.tags)
    if col == COL_NOTE:
        return "✎" if row.has_note else ""
    if col == COL_ADDED:
        return added_text(row.added_at or "", _today())
    if col == COL_AUTHORS:
        return author_text(row.first_author, row.author_count)
    if col == COL_GROUP:
        return " ".join(initials(name) for name in row.group_stars)
    return ""


def _tooltip(row: Any, col: int) -> str | None:
    if col == COL_TITLE and row.title:
        return tooltip(title_plain(row.title))
    if col == COL_ADDED and row.added_at:
        when = _local(row.added_at)
        return f"Added {when:%Y-%m-%d %H:%M}" if when else None
    if col == COL_AUTHORS and row.author_count > 1:
        return f"{row.first_author} and {count_noun(row.author_count - 1, 'other')}"
    if col == COL_GROUP and row.group_stars:
        return "Starred by " + ", ".join(row.group_stars)
    return None


def author_text(first: str, count: int) -> str:
    """ "Vaswani et al." for a paper with several authors, the family name alone for one
    (the core's short form: a suffix or a footnote mark is no family name)."""
    from reader.exporters.names import short_authors

    return short_authors(first, count)


def _local(stamp: str) -> datetime | None:
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return when.astimezone() if when.tzinfo else when


_TODAY: list[Any] = [0.0, None]  # (when asked, the day): date.today() at every painted cell cost


def _today() -> date:
    now = time.monotonic()
    if _TODAY[1] is None or now - _TODAY[0] > 1.0:
        _TODAY[:] = [now, date.today()]
    return _TODAY[1]


@lru_cache(maxsize=4096)
def added_text(stamp: str, today: date) -> str:
    """When a paper was added, as a person says it: "Today 10:26", "Yesterday 09:02",
    "3 Nov 14:10" this year, "2025-01-01" before (an import adds its papers at one time)."""
    when = _local(stamp)
    if when is None:
        return stamp[:10]
    day = when.date()
    if day == today:
        return f"Today {when:%H:%M}"
    if day == today - timedelta(days=1):
        return f"Yesterday {when:%H:%M}"
    if day.year == today.year:
        return f"{day.day} {when:%b %H:%M}"
    return f"{day:%Y-%m-%d}"


def _sort_value(row: Any, col: int) -> Any:
    if col == COL_STAR:
        return int(bool(row.starred))
    if col == COL_YEAR:
        return row.year or 0
    if col == COL_NOTE:
        return int(bool(row.has_note))
    return _display(row, col).casefold()
