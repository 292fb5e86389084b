"""Which papers an operation covers: the selection, the shown paper, or every match of a capped search."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from . import IdsArg

if TYPE_CHECKING:
    from ..main_window import MainWindow


def target_ids(window: MainWindow) -> list[str]:
    """The selected papers, or the one in the pane."""
    ids = window.selected_ids()
    if not ids and window.pane.paper_id:
        ids = [window.pane.paper_id]
    return ids


def list_truncated(window: MainWindow) -> bool:
    """True when the table shows only the best SEARCH_LIMIT of a search's matches."""
    results = window.search_results
    return results is not None and window.model.rowCount() < int(results.total)


def all_matching_ids(window: MainWindow) -> Callable[[], list[str]]:
    """Every paper the current search matches (the shown ones first), computed once when called."""
    lib = window.library
    query, view, shown = window.searchBar.query(), window.view, list(window.model.ids())
    typing = window.searchBar.listed_as_you_type  # the same matches as the list shows
    found: list[list[str]] = []

    def resolve() -> list[str]:
        if not found:
            every = (lib.search(query, view=view, limit=None, as_you_type=typing).ids if query
                     else lib.paper_ids(view))
            found.append(list(dict.fromkeys(shown + every)))
        return found[0]

    return resolve


def bulk_ids(window: MainWindow) -> IdsArg:
    """The papers a bulk action covers: the selection, or every match when all of a capped list is selected."""
    ids = target_ids(window)
    if len(ids) > 1 and list_truncated(window) and len(ids) == window.model.rowCount():
        return all_matching_ids(window)
    return ids
