"""A listing's worker (ListingWork) reads the pages on screen through the rows cache, as it reads
the first page: a catch-up listing after triage re-lists once per change seen, and the rows of
pages read under the same count of changes are not read again."""

from __future__ import annotations

from reader.listing import Listing
from reader.ui.list.prepared import PAGE_SIZE, RowCache
from reader.ui.window.listing_work import ListingWork


class _Library:
    def __init__(self, n: int) -> None:
        self.ids = [f"p{i:05d}" for i in range(n)]
        self.asked: list[str] = []

    def rows(self, ids: list[str]) -> dict[str, str]:
        self.asked += ids
        return {pid: f"row of {pid}" for pid in ids}


def _work(lib: _Library, cache: RowCache, epoch: int, screen: list[int]) -> ListingWork:
    found = Listing("", None, list(lib.ids))
    return ListingWork(lib, lambda: found, lambda: True, [], cache, epoch, screen, False, None, None,  # type: ignore[arg-type]
                       False, None, None)


def test_pages_on_screen_are_read_once_per_count_of_changes() -> None:
    lib, cache = _Library(5 * PAGE_SIZE), RowCache()
    got = _work(lib, cache, 1, [2, 3])()
    assert got is not None
    prepared, ahead = got
    assert ahead is None and sorted(prepared.pages) == [0, 2, 3]
    assert prepared.pages[3][0] == f"row of {lib.ids[3 * PAGE_SIZE]}"
    assert len(lib.asked) == 3 * PAGE_SIZE
    again, _ = _work(lib, cache, 1, [2, 3])()  # type: ignore[misc]
    assert len(lib.asked) == 3 * PAGE_SIZE  # the old code read pages 2 and 3 again
    assert again.pages == prepared.pages
    _work(lib, cache, 2, [2, 3])()  # a change seen since: every page read anew
    assert len(lib.asked) == 6 * PAGE_SIZE
