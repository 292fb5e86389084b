"""What a list shows: the paper ids for a query, a sidebar view and a sort (shared by the GUI and the CLI)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .search.results import SearchResults
from .store.views import View

if TYPE_CHECKING:
    from .services import Library

SEARCH_LIMIT = 1000  # a word search lists its best matches; filters-only queries list every match


@dataclass(frozen=True)
class Listing:
    """The ids to show, in order, and the search results when a query was given."""

    query: str
    results: SearchResults | None
    ids: list[str]


def is_filter_query(results: SearchResults) -> bool:
    """A query of filters only (is:, has:, tag:, year:, venue:…): it has no words to rank by."""
    return bool(results.filters_only or not results.terms)


def list_papers(lib: Library, query: str, view: View, sort: str = "added", descending: bool = True,
                search_sort: tuple[str, bool] | None = None, limit: int = SEARCH_LIMIT) -> Listing:
    """The ids for `query` in `view`: by relevance, or by `search_sort` when given.

    No query: the view in (sort, descending) order. A query of filters only has no relevance
    to cut at, so it lists every match, in the (sort, descending) order."""
    query = query.strip()
    if not query:
        return Listing(query, None, lib.paper_ids(view, sort, descending))
    results = lib.search(query, view=view, limit=limit)
    if is_filter_query(results) and len(results.hits) >= limit:
        results = lib.search(query, view=view, limit=None)
    ids = [h.id for h in results.hits]
    order = search_sort
    if order is None and is_filter_query(results):
        order = (sort, descending)
    if order is not None and ids:
        wanted = set(ids)
        ids = [i for i in lib.paper_ids(view, *order) if i in wanted]
    return Listing(query, results, ids)
