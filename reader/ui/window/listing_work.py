"""What a listing's worker does for the library screen (refresh_list): the ids found, the rows
it can read ahead of the GUI thread, and the new list's first hit read and rendered."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reader.library import Library

from ..list.model import PAGE_SIZE, PreparedListing, RowCache, prepare_listing
from ..paper.abstract_html import ReadAhead, read_ahead


def screen_pages(table: Any, row_count: int) -> list[int]:
    """The pages of rows the table shows now. A listing catching up after triage (_relist_stale,
    _relisted) reads them again, so that the changes seen meanwhile (which keep the rows) leave
    no page to read on the GUI thread when it lands (~50 ms a page at 100k)."""
    top, height = table.rowAt(0), table.viewport().height()
    bottom = table.rowAt(height - 1) if height > 0 else -1
    top = max(top, 0)
    bottom = bottom if bottom >= 0 else min(top + 100, row_count - 1)
    return list(range(top // PAGE_SIZE, bottom // PAGE_SIZE + 1))


@dataclass(frozen=True)
class ListingWork:
    """One listing's job, as the GUI thread saw things when it was asked (all read there)."""

    lib: Library
    job: Callable[[], Any]  # the search bar's list_job: the ids found
    current: Callable[[], bool]  # still the newest listing asked?
    wanted: list[str | None]  # the papers to keep selected
    rows: RowCache
    epoch: int  # changes seen when asked: rows read before a later one are not reused
    screen: list[int]  # pages to read with it (catching up after triage), else []
    first: bool  # a new list: its first hit (or target) is read and rendered too
    target: str | None
    shown: str | None  # the paper the pane shows: not read again
    dark: bool
    cache: Any
    marks: Any

    def __call__(self) -> tuple[PreparedListing, ReadAhead | None] | None:
        found = self.job()
        if not self.current():
            return None  # a newer key was typed meanwhile: this listing is never shown
        prepared = prepare_listing(self.lib, found, self.wanted, self.rows, self.epoch)
        for page in self.screen:
            page_ids = prepared.ids[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]
            if page not in prepared.pages and page_ids:
                got = self.rows.rows(self.lib, page_ids, self.epoch)  # (as the first page: cached)
                prepared.pages[page] = [got.get(pid) for pid in page_ids]
        ahead = None
        if self.first and prepared.ids and self.cache is not None:
            target = self.target
            pid = target if target is not None and target in prepared.row_of else prepared.ids[0]
            if pid != self.shown:  # (the same first hit as the last key's: the pane keeps it)
                terms = list(found.results.terms) if found.results else []
                ahead = read_ahead(self.lib, [pid], terms, self.dark, self.cache, self.marks)
        return prepared, ahead
