"""Operations on tags across the library: rename, merge, delete.

The caller follows a renamed or deleted tag's view (the list shows views; operations don't)."""

from __future__ import annotations

from reader.library import View

from ..context import OpContext
from ..widgets.plain import input_dialog
from . import change


def rename_tag(ctx: OpContext, old: str, new: str) -> None:
    """Rename (or merge, when `new` exists) a tag; one undo step over every tagged paper."""
    lib = ctx.library
    change(ctx, f"Rename tag {old}", lambda: lib.paper_ids(View("tag", old)), lambda: lib.rename_tag(old, new))


def delete_tag(ctx: OpContext, name: str) -> None:
    lib = ctx.library
    change(ctx, f"Delete tag {name}", lambda: lib.paper_ids(View("tag", name)), lambda: lib.delete_tag(name))


def ask_rename_tag(ctx: OpContext, old: str) -> str | None:
    """The new name the user chose (the rename is queued), or None."""
    new, ok = input_dialog(ctx.parent, "Rename tag", f"New name for “{old}”:", old)
    if ok and new.strip() and new.strip() != old:
        rename_tag(ctx, old, new.strip())
        return new.strip()
    return None


def ask_merge_tag(ctx: OpContext, old: str, known: list[str]) -> str | None:
    """The tag the user merged `old` into (the merge is queued), or None."""
    others = [t for t in known if t != old]
    if not others:
        return None
    new, ok = input_dialog(ctx.parent, "Merge tag", f"Merge “{old}” into:", items=others)
    if ok and new:
        rename_tag(ctx, old, new)
        return new
    return None
