"""Operations on highlights: add, remove, comment."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plain import input_dialog
from . import change

if TYPE_CHECKING:
    from ..main_window import MainWindow


def add_highlight(window: MainWindow, pid: str | None, start: int, end: int, color: str = "yellow",
                  comment: str = "") -> None:
    if pid:
        lib = window.library
        change(window, "Highlight", [pid], lambda: lib.add_highlight(pid, start, end, color, comment))


def _highlight_paper(window: MainWindow, highlight_id: int) -> str | None:
    """The shown paper when it holds the highlight (the pane only acts on its own highlights)."""
    paper = window.pane.paper
    if paper and any(h.id == highlight_id for h in paper.highlights):
        return paper.id
    return None


def remove_highlight(window: MainWindow, highlight_id: int) -> None:
    pid = _highlight_paper(window, highlight_id)
    if pid:
        lib = window.library
        change(window, "Remove highlight", [pid], lambda: lib.remove_highlight(highlight_id))


def set_highlight_comment(window: MainWindow, highlight_id: int, comment: str) -> None:
    pid = _highlight_paper(window, highlight_id)
    if pid:
        lib = window.library
        change(window, "Edit highlight comment", [pid],
               lambda: lib.update_highlight(highlight_id, comment=comment))


def ask_highlight_comment(window: MainWindow, highlight_id: int) -> None:
    paper = window.pane.paper
    highlights = paper.highlights if paper else []
    current = next((h.comment for h in highlights if h.id == highlight_id), "")
    text, ok = input_dialog(window, "Highlight comment", "Comment:", current)
    if ok:
        set_highlight_comment(window, highlight_id, text.strip())
