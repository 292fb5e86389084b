"""A listing made ready for the table on the worker that lists (`prepare_listing`): unique ids,
their rows' map, the rows of the pages shown first; and the rows that worker read for earlier
listings (`RowCache`), kept until the window sees a change. No Qt here: it runs off the GUI
thread."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from reader.listing import Listing

PAGE_SIZE = 200  # rows read (and cached by the table model) at a time


@dataclass(frozen=True)
class PreparedListing:
    """A listing made ready for the table off the GUI thread (`prepare_listing`)."""

    found: Listing
    ids: list[str]  # the listing's ids, each once
    row_of: dict[str, int]  # id -> row
    pages: dict[int, list[Any]] = field(default_factory=dict)  # page number -> rows read already
    rows_of: dict[str, int] = field(default_factory=dict)  # the wanted ids that are listed -> row


class RowCache:
    """Rows the list's worker read for earlier listings, kept while nothing is stored: a typed
    key's listing shows mostly the rows the last key's showed (reading 200 rows cost the
    worker ~8 ms of each key at 100k). Keyed by the window's count of changes seen: rows read
    under an older count are never used once a newer one is asked for."""

    def __init__(self, most: int = 4 * PAGE_SIZE * 5) -> None:
        self._lock = threading.Lock()
        self._epoch = -1
        self._rows: dict[str, Any] = {}
        self.most = most
        self.read = 0  # ids read from the library (tests count them)

    def rows(self, library: Any, ids: list[str], epoch: int) -> dict[str, Any]:
        """`library.rows(ids)`, the rows read already under `epoch` taken from here."""
        with self._lock:
            if epoch > self._epoch:
                self._rows, self._epoch = {}, epoch
            held = self._rows if epoch == self._epoch else {}
            known = {pid: held[pid] for pid in ids if pid in held}
        missing = [pid for pid in ids if pid not in known]
        fetched = library.rows(missing) if missing else {}
        with self._lock:
            self.read += len(missing)
            if epoch == self._epoch:
                if len(self._rows) + len(fetched) > self.most:
                    self._rows = {}
                self._rows.update(fetched)
        return {**known, **fetched}


def prepare_listing(library: Any, found: Listing, wanted: Iterable[str | None] = (),
                    cache: RowCache | None = None, epoch: int = 0) -> PreparedListing:
    """The work a listing costs that grows with its length, done where it is made (a worker):
    unique ids, their rows' map, the first page's rows and the page of each `wanted` id (the
    current and selected papers, kept across a re-list), read from the library (or, for rows
    read under the same `epoch` of changes seen, from `cache`)."""
    row_of: dict[str, int] = {}
    for pid in found.ids:
        row_of.setdefault(pid, len(row_of))
    ids = list(row_of) if len(row_of) != len(found.ids) else list(found.ids)
    rows_of = {pid: row_of[pid] for pid in wanted if pid is not None and pid in row_of}
    want_pages = sorted({0, *(row // PAGE_SIZE for row in list(rows_of.values())[:1])}) if ids else []
    pages: dict[int, list[Any]] = {}
    for page in want_pages:
        page_ids = ids[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]
        fetched = library.rows(page_ids) if cache is None else cache.rows(library, page_ids, epoch)
        pages[page] = [fetched.get(pid) for pid in page_ids]
    return PreparedListing(found, ids, row_of, pages, rows_of)
