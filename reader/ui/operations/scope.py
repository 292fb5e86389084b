"""Which papers an operation covers: the selection, the shown paper, or every match of a capped search."""

from __future__ import annotations

from collections.abc import Callable

from reader.library import Library

from ..context import ListScope
from . import IdsArg


def target_ids(scope: ListScope) -> list[str]:
    """The selected papers, or the one in the pane."""
    ids = list(scope.selected)
    if not ids and scope.shown_id:
        ids = [scope.shown_id]
    return ids


def list_truncated(scope: ListScope) -> bool:
    """True when the table shows only the best SEARCH_LIMIT of a search's matches."""
    results = scope.results
    return results is not None and len(scope.listed) < int(results.total)


def all_matching_ids(lib: Library, scope: ListScope) -> Callable[[], list[str]]:
    """Every paper the current search matches (the shown ones first), computed once when called."""
    query, view, shown, typing = scope.query, scope.view, list(scope.listed), scope.as_you_type
    found: list[list[str]] = []

    def resolve() -> list[str]:
        if not found:
            every = (lib.search(query, view=view, limit=None, as_you_type=typing).ids if query
                     else lib.paper_ids(view))
            found.append(list(dict.fromkeys(shown + every)))
        return found[0]

    return resolve


def bulk_ids(lib: Library, scope: ListScope) -> IdsArg:
    """The papers a bulk action covers: the selection, or every match when all of a capped list is selected."""
    ids = target_ids(scope)
    if len(ids) > 1 and list_truncated(scope) and len(ids) == len(scope.listed):
        return all_matching_ids(lib, scope)
    return ids
