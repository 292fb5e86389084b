"""The lazy table model: pages fetched on demand, sorting asks the window."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt

from reader.ui.paper_model import COL_STAR, COL_TITLE, COL_YEAR, PAGE_SIZE, PaperModel


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
