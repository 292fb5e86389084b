"""Operations on highlights: add, remove, comment."""

from __future__ import annotations

from reader.models import Paper

from ..context import OpContext
from ..widgets.plain import input_dialog
from . import change


def add_highlight(ctx: OpContext, pid: str | None, start: int, end: int, color: str = "yellow",
                  comment: str = "") -> None:
    if pid:
        lib = ctx.library
        change(ctx, "Highlight", [pid], lambda: lib.add_highlight(pid, start, end, color, comment))


def _holder(paper: Paper | None, highlight_id: int) -> str | None:
    """The shown paper when it holds the highlight (the pane only acts on its own highlights)."""
    if paper and any(h.id == highlight_id for h in paper.highlights):
        return paper.id
    return None


def remove_highlight(ctx: OpContext, shown: Paper | None, highlight_id: int) -> None:
    pid = _holder(shown, highlight_id)
    if pid:
        lib = ctx.library
        change(ctx, "Remove highlight", [pid], lambda: lib.remove_highlight(highlight_id))


def set_highlight_comment(ctx: OpContext, shown: Paper | None, highlight_id: int, comment: str) -> None:
    pid = _holder(shown, highlight_id)
    if pid:
        lib = ctx.library
        change(ctx, "Edit highlight comment", [pid], lambda: lib.update_highlight(highlight_id, comment=comment))


def ask_highlight_comment(ctx: OpContext, shown: Paper | None, highlight_id: int) -> None:
    highlights = shown.highlights if shown else []
    current = next((h.comment for h in highlights if h.id == highlight_id), "")
    text, ok = input_dialog(ctx.parent, "Highlight comment", "Comment:", current)
    if ok:
        set_highlight_comment(ctx, shown, highlight_id, text.strip())
