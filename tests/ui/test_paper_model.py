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
