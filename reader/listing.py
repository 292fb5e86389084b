"""What a list shows: the paper ids for a query, a sidebar view and a sort (shared by the GUI and the CLI)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from .models import ViewKind
from .store.views import View

if TYPE_CHECKING:  # a type only: importing reader.search loads Whoosh, which `reader list` never needs
    from .search.results import SearchResults

SEARCH_LIMIT = 1000  # a word search lists its best matches; filters-only queries list every match
LIKE_LIMIT = 200  # a "more like these" view lists the papers most like its seeds, best first
LIKE_SEEDS = 500  # the seeds are the view's newest papers up to this many (bounds more_like's work)

PageFetch = Callable[[int, int], list[str]]


class Catalog(Protocol):
    """The reads a listing is made of (the Library is one; listing never imports it)."""

    def paper_ids(self, view: View = ..., sort: str = ..., descending: bool = ...) -> list[str]:
        """A view's ids in (sort, descending) order."""

    def search(self, query: str, *, view: View | None = None, limit: int | None = ...,
               as_you_type: bool = False) -> SearchResults:
        """The query's hits within the view."""

    def more_like(self, ids: Iterable[str], limit: int = ..., *,
                  exclude: Iterable[str] = ()) -> list[tuple[str, float]]:
        """Papers most like `ids`, best first, `ids` and `exclude` left out."""


@dataclass(frozen=True)
class Listing:
    """The ids to show, in order, and the search results when a query was given.

    A paged listing (`page_size`) holds the first page in `ids`; `page(start, n)` fetches
    later ones (on a worker thread: it may re-run the search) up to `total`."""

    query: str
    results: SearchResults | None
    ids: list[str]
    total: int = -1  # every id the list holds (-1: len(ids))
    more: PageFetch | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.total < len(self.ids) or self.more is None:
            object.__setattr__(self, "total", len(self.ids))

    @property
    def complete(self) -> bool:
        return self.more is None or len(self.ids) >= self.total

    def page(self, start: int, n: int) -> list[str]:
        """Ids start..start+n (fewer, or none, at the end)."""
        if start + n <= len(self.ids) or self.more is None:
            return self.ids[start:start + n]
        return self.more(start, n)


def is_filter_query(results: SearchResults) -> bool:
    """A query of filters only (is:, has:, tag:, year:, venue:…): it has no words to rank by."""
    return bool(results.filters_only or not results.terms)


def like_seeds(lib: Catalog, view: View) -> list[str]:
    """The papers a "more like these" view ranks by: the starred ones, or a tag's."""
    if view.kind == ViewKind.LIKE_STARRED:
        seeds = lib.paper_ids(View(ViewKind.STARRED))
    elif view.kind == ViewKind.LIKE_TAG:
        seeds = lib.paper_ids(View(ViewKind.TAG, view.value))
    else:
        raise ValueError(f"{view.kind.value} is not a more-like-these view")
    return seeds[:LIKE_SEEDS]


def like_ids(lib: Catalog, view: View, limit: int = LIKE_LIMIT) -> list[str]:
    """The papers most like the view's seeds, best first; the seeds themselves are left out
    (a reader asking for more like their starred papers wants the ones not yet starred)."""
    seeds = like_seeds(lib, view)
    return [pid for pid, _ in lib.more_like(seeds, limit=limit)] if seeds else []


def _sorted(lib: Catalog, view: View, ids: list[str], order: tuple[str, bool]) -> list[str]:
    wanted = set(ids)
    # A ranked view lists in similarity order: the column order comes from the whole library.
    source = View() if view.ranked else view
    return [i for i in lib.paper_ids(source, *order) if i in wanted]


def list_papers(lib: Catalog, query: str, view: View, sort: str = "added", descending: bool = True,
                search_sort: tuple[str, bool] | None = None, limit: int | None = SEARCH_LIMIT, *,
                as_you_type: bool = False, page_size: int | None = None) -> Listing:
    """The ids for `query` in `view`: by relevance, or by `search_sort` when given.

    No query: the view in (sort, descending) order (a "more like these" view: by similarity,
    or by `search_sort`). A query of filters only has no relevance to cut at, so it lists
    every match, in the (sort, descending) order. `as_you_type`: the last word is unfinished.

    `page_size` (the GUI): a relevance-ordered search lists every match, the first
    `page_size` at once and the rest through `Listing.page`; without it (the CLI) the best
    `limit`."""
    query = query.strip()
    if not query:
        ids = lib.paper_ids(view, sort, descending)
        if view.ranked and search_sort is not None:
            ids = _sorted(lib, view, ids, search_sort)
        return Listing(query, None, ids)
    first = page_size if page_size is not None else limit
    results = lib.search(query, view=view, limit=first, as_you_type=as_you_type)
    ids = [h.id for h in results.hits]
    if is_filter_query(results) or search_sort is not None:
        # Sorted by a column: every match is needed before the first row is known.
        # limit=None (`reader map --query`) asked for every match at once: nothing more to fetch.
        if first is not None and (page_size is not None or is_filter_query(results)) and len(ids) >= first:
            if results.fetch is not None:
                ids = results.all_ids()
            else:  # a strict query: run it again for every match (the CLI reads these hits)
                results = lib.search(query, view=view, limit=None, as_you_type=as_you_type)
                ids = results.ids
        order = search_sort if search_sort is not None else (sort, descending)
        return Listing(query, results, _sorted(lib, view, ids, order) if ids else ids)
    if page_size is None:
        return Listing(query, results, ids)
    return Listing(query, results, ids, results.total, _pager(lib, query, view, results, as_you_type))


def _pager(lib: Catalog, query: str, view: View, results: SearchResults, as_you_type: bool) -> PageFetch:
    """Later pages of a relevance-ordered search: from the results while the index is
    unchanged (the index re-runs the query otherwise), or by re-running a strict query."""

    def page(start: int, n: int) -> list[str]:
        if results.fetch is not None:
            return [h.id for h in results.page(start, n)]
        again = lib.search(query, view=view, limit=start + n, as_you_type=as_you_type)
        return again.ids[start:start + n]

    return page
