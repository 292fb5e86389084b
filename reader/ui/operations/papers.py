"""Operations on papers: star, read, tags, title, citation key, delete."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from reader.plural import count_noun

from ..context import ListScope, OpContext
from . import IdsArg, change, ids_getter, scope


def set_starred(ctx: OpContext, ids: IdsArg, value: bool) -> None:
    if ids:
        lib, get = ctx.library, ids_getter(ids)
        change(ctx, "Star" if value else "Unstar", get, lambda: lib.set_starred(get(), value))


def set_read(ctx: OpContext, ids: IdsArg, value: bool) -> None:
    if ids:
        lib, get = ctx.library, ids_getter(ids)
        change(ctx, "Mark read" if value else "Mark unread", get, lambda: lib.set_read(get(), value))


def toggle_star(ctx: OpContext, listed: ListScope) -> None:
    """S: star the papers unless the one shown (or being read for the pane) is starred."""
    ids = scope.bulk_ids(ctx.library, listed)
    if ids:
        paper, pending = listed.shown, listed.pending_flags
        set_starred(ctx, ids, not (paper.starred if paper else bool(pending and pending[0])))


def toggle_read(ctx: OpContext, listed: ListScope) -> None:
    """R: mark the papers read unless the one shown (or being read for the pane) is read."""
    ids = scope.bulk_ids(ctx.library, listed)
    if ids:
        paper, pending = listed.shown, listed.pending_flags
        set_read(ctx, ids, not (paper.read if paper else bool(pending and pending[1])))


def add_tags(ctx: OpContext, ids: IdsArg, tags: list[str]) -> None:
    if ids and tags:
        lib, get = ctx.library, ids_getter(ids)
        change(ctx, f"Tag {', '.join(tags)}", get, lambda: lib.add_tags(get(), tags))


def remove_tags(ctx: OpContext, ids: Sequence[str], tags: list[str]) -> None:
    if ids and tags:
        lib = ctx.library
        change(ctx, f"Remove tag {', '.join(tags)}", ids, lambda: lib.remove_tags(ids, tags))


def set_title(ctx: OpContext, pid: str | None, title: str) -> None:
    if pid:
        lib = ctx.library
        change(ctx, "Edit title", [pid], lambda: lib.set_title(pid, title))


def set_citation_key(ctx: OpContext, pid: str | None, key: str,
                     on_refused: Callable[[], None] | None = None) -> None:
    """Give a paper a new citation key (undoable); a refused key (taken, not allowed) is reported
    and `on_refused` puts the field back."""
    if not pid:
        return
    lib = ctx.library

    def refused(exc: BaseException) -> None:
        if on_refused is not None:
            on_refused()
        ctx.on_error(exc)

    change(ctx, "Edit citation key", [pid], lambda: lib.set_citation_key(pid, key), on_error=refused)


def delete_papers(ctx: OpContext, listed: ListScope) -> None:
    """Delete the selected papers (every match when all of a capped search is selected); undoable."""
    if not listed.selected:
        return
    ids = scope.bulk_ids(ctx.library, listed) if len(listed.selected) > 1 else list(listed.selected)
    lib, get = ctx.library, ids_getter(ids)
    results = listed.results
    if callable(ids):  # every match of a capped search (see scope.bulk_ids)
        count = int(results.total) if results is not None else 0
    else:
        count = len(ids)
    noun = count_noun(count, "paper")
    change(ctx, f"Delete {noun}", get, lambda: lib.delete_papers(get()))
    ctx.notify(f"Deleted {noun} — Ctrl+Z to undo", 5000)


def set_skipped(ctx: OpContext, ids: IdsArg, value: bool) -> None:
    """"Not for me" (triage X, which also marks read) or back; one undo step."""
    if ids:
        lib, get = ctx.library, ids_getter(ids)
        change(ctx, "Not for me" if value else "Undo not for me", get, lambda: lib.set_skipped(get(), value))
