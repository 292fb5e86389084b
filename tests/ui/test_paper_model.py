"""The lazy table model: pages fetched on demand, sorting asks the window."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt

from reader.ui.list.model import COL_STAR, COL_TITLE, COL_YEAR, KEPT, NEW, PAGE_SIZE, PaperModel


@dataclass(frozen=True)


class Row:
    id: str
    title: str
    method: str = ""
    venue: str = "V"
    year: int | None = 2020
    starred: bool = False
    read: bool = False
    has_note: bool = False
    tags: tuple[str, ...] = ()
    added_at: str = "2025-01-01T00:00:00"
    first_author: str = "Ada Lovelace"
    author_count: int = 2
    group_stars: tuple[str, ...] = ()


class FakeLibrary:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def rows(self, ids: list[str]) -> dict[str, Row]:
        self.calls.append(len(ids))
        return {i: Row(i, f"title {i}", starred=i.endswith("7"), read=int(i) % 2 == 0) for i in ids}


def test_model_fetches_lazily_in_pages(qapp) -> None:
    lib = FakeLibrary()
    model = PaperModel(lib)
    model.set_ids([str(i) for i in range(100_000)])
    assert model.rowCount() == 100_000 and lib.calls == []
    assert model.data(model.index(99_999, COL_TITLE)) == "title 99999"
    assert lib.calls == [PAGE_SIZE]
    model.data(model.index(99_998, COL_YEAR))
    assert lib.calls == [PAGE_SIZE]  # same page: cached
    assert model.data(model.index(7, COL_STAR)) == "★"
    assert model.data(model.index(6, COL_STAR)) == ""
    assert model.data(model.index(1, COL_TITLE), Qt.ItemDataRole.FontRole).bold()  # unread
    assert model.data(model.index(2, COL_TITLE), Qt.ItemDataRole.FontRole) is None  # read
    assert model.row_of("12345") == 12345 and model.row_of("nope") == -1
    model.invalidate()
    model.data(model.index(7, COL_TITLE))
    assert len(lib.calls) == 3


def test_model_sort_asks_the_window(qtbot) -> None:
    model = PaperModel(FakeLibrary())
    with qtbot.waitSignal(model.sortRequested) as sig:
        model.sort(COL_YEAR, Qt.SortOrder.AscendingOrder)
    assert sig.args == [COL_YEAR, Qt.SortOrder.AscendingOrder]


def test_a_paged_listing_fetches_later_ids_off_the_gui_thread(qapp) -> None:
    from reader.listing import Listing

    every = [str(i) for i in range(1000)]
    asked: list[tuple[int, int]] = []

    def more(start: int, n: int) -> list[str]:
        asked.append((start, n))
        return every[start:start + n]

    jobs: list[tuple] = []
    model = PaperModel(FakeLibrary())
    model.run_read = lambda job, done, failed: jobs.append((job, done))
    assert model.set_listing(Listing("q", None, every[:200], 1000, more), ("q",)) == NEW
    assert model.rowCount() == 200 and model.total() == 1000 and model.canFetchMore()
    model.fetchMore()
    assert not model.canFetchMore() and len(jobs) == 1 and not asked  # queued, not run here
    job, done = jobs.pop()
    done(job())
    assert asked == [(200, 200)] and model.ids() == every[:400] and model.canFetchMore()

    # A page of a list that was replaced meanwhile is dropped.
    model.fetchMore()
    job, done = jobs.pop()
    assert model.set_listing(Listing("r", None, ["a", "b"]), ("r",)) == NEW
    done(job())
    assert model.ids() == ["a", "b"] and not model.canFetchMore()

    # Re-listing the same list (after a write) keeps the fetched rows; an empty page ends it.
    assert model.set_listing(Listing("q", None, every[:200], 1000, more), ("q",)) == NEW
    model.fetchMore()
    job, done = jobs.pop()
    done(job())
    assert model.set_listing(Listing("q", None, every[:400], 1000, more), ("q",)) == KEPT
    assert model.rowCount() == 400
    model.fetchMore()
    _job, done = jobs.pop()
    done(["1", "2"])  # only ids already listed: the search had no more
    assert model.rowCount() == 400 and not model.canFetchMore() and model.total() == 400


class Touched(list):
    """A list of ids that counts the ids a pass over it (or a slice of it) touches."""

    touched = 0

    def __iter__(self):
        Touched.touched += len(self)
        return super().__iter__()

    def __getitem__(self, item):
        got = super().__getitem__(item)
        Touched.touched += len(got) if isinstance(item, slice) else 1
        return got


def _gui_cost_of_a_listing(qtbot, matches: int) -> tuple[int, list[int], int]:
    """(ids touched, library reads, rows materialised) on the GUI thread to show a listing of
    `matches` ids that the worker prepared: the table's reset, columns, paint and reselect."""
    from dataclasses import replace

    from PySide6.QtWidgets import QWidget

    from reader.listing import Listing
    from reader.ui.list.model import prepare_listing
    from reader.ui.list.table import PaperTable

    lib = FakeLibrary()
    parent = QWidget()
    qtbot.addWidget(parent)
    model = PaperModel(lib)
    table = PaperTable(model, parent, COL_TITLE, Qt.SortOrder.AscendingOrder)
    table.resize(900, 600)
    parent.show()
    ids = [str(i) for i in range(matches)]
    prepared = prepare_listing(lib, Listing("q", None, ids), [ids[-1]])  # the worker's part
    prepared = replace(prepared, ids=Touched(prepared.ids))
    lib.calls.clear()
    Touched.touched = 0
    assert model.set_listing(prepared, ("q",)) == NEW
    table.reselect(ids[-1], [ids[-1]], 0)  # the kept paper: its row from the worker's map
    table.scrollToTop()
    table.viewport().repaint()
    return Touched.touched, lib.calls, model.pages_read()


def test_a_listings_gui_thread_cost_does_not_grow_with_its_matches(qtbot) -> None:
    """At 100k the table's reset, column widths and reselect read every id on the GUI thread
    (deduplicating, mapping, measuring 120 rows it read from the library there); now the list
    worker prepares them and the GUI thread touches what the screen shows."""
    small = _gui_cost_of_a_listing(qtbot, 1_000)
    big = _gui_cost_of_a_listing(qtbot, 100_000)
    assert small == big
    touched, reads, pages = big
    assert reads == []  # no library read on the GUI thread: the first page and the kept one came along
    assert touched <= 2 * PAGE_SIZE and pages == 2


def test_the_worker_prepares_unique_ids_their_rows_and_the_kept_papers_page() -> None:
    from reader.listing import Listing
    from reader.ui.list.model import prepare_listing

    lib = FakeLibrary()
    ids = [str(i) for i in range(1000)] + ["5", "7"]  # repeated ids are listed once
    prepared = prepare_listing(lib, Listing("", None, ids), [None, "650", "nope"])
    assert prepared.ids == [str(i) for i in range(1000)] and prepared.row_of["999"] == 999
    assert prepared.rows_of == {"650": 650}
    assert sorted(prepared.pages) == [0, 650 // PAGE_SIZE] and lib.calls == [PAGE_SIZE, PAGE_SIZE]
    assert prepared.pages[3][50].id == "650"
