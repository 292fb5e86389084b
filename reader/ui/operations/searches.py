"""Operations on saved searches: save, rename, delete (not undoable: they hold no paper state)."""

from __future__ import annotations

from ..context import OpContext
from ..widgets.plain import input_dialog


def save_current_search(ctx: OpContext, query: str, name: str | None = None) -> None:
    if not query:
        ctx.notify("Type a search first, then save it.", 4000)
        return
    if name is None:
        name, ok = input_dialog(ctx.parent, "Save search", "Name:", query)
        if not ok or not name.strip():
            return
    lib, saved = ctx.library, name
    ctx.runner.write(lambda: lib.save_search(saved, query), None, ctx.on_error)


def rename_saved_search(ctx: OpContext, search_id: int, name: str) -> None:
    lib = ctx.library
    ctx.runner.write(lambda: lib.rename_saved_search(search_id, name), None, ctx.on_error)


def delete_saved_search(ctx: OpContext, search_id: int) -> None:
    lib = ctx.library
    ctx.runner.write(lambda: lib.delete_saved_search(search_id), None, ctx.on_error)


def ask_rename_search(ctx: OpContext, search: dict) -> None:
    name, ok = input_dialog(ctx.parent, "Rename saved search", "Name:", search["name"])
    if ok and name.strip():
        rename_saved_search(ctx, search["id"], name.strip())
