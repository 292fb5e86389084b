"""Operations on papers: star, read, tags, title, delete."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from reader.plural import count_noun

from . import IdsArg, change, ids_getter, scope

if TYPE_CHECKING:
    from ..main_window import MainWindow


def set_starred(window: MainWindow, ids: IdsArg, value: bool) -> None:
    if ids:
        lib, get = window.library, ids_getter(ids)
        change(window, "Star" if value else "Unstar", get, lambda: lib.set_starred(get(), value))


def set_read(window: MainWindow, ids: IdsArg, value: bool) -> None:
    if ids:
        lib, get = window.library, ids_getter(ids)
        change(window, "Mark read" if value else "Mark unread", get, lambda: lib.set_read(get(), value))


def toggle_star(window: MainWindow) -> None:
    """S: star the papers unless the one shown is starred."""
    ids = scope.bulk_ids(window)
    if ids:
        paper = window.pane.paper
        set_starred(window, ids, not (paper and paper.starred))


def toggle_read(window: MainWindow) -> None:
    """R: mark the papers read unless the one shown is read."""
    ids = scope.bulk_ids(window)
    if ids:
        paper = window.pane.paper
        set_read(window, ids, not (paper and paper.read))


def add_tags(window: MainWindow, ids: IdsArg, tags: list[str]) -> None:
    if ids and tags:
        lib, get = window.library, ids_getter(ids)
        change(window, f"Tag {', '.join(tags)}", get, lambda: lib.add_tags(get(), tags))


def remove_tags(window: MainWindow, ids: Sequence[str], tags: list[str]) -> None:
    if ids and tags:
        lib = window.library
        change(window, f"Remove tag {', '.join(tags)}", ids, lambda: lib.remove_tags(ids, tags))


def set_title(window: MainWindow, pid: str | None, title: str) -> None:
    if pid:
        lib = window.library
        change(window, "Edit title", [pid], lambda: lib.set_title(pid, title))


def delete_selected(window: MainWindow) -> None:
    """Delete: the selected highlight when the highlight list has focus, else the selected papers."""
    pane = window.pane
    if pane.highlightList.hasFocus():
        pane.remove_selected_highlight()
        return
    selected = window.selected_ids()
    if not selected:
        return
    ids = scope.bulk_ids(window) if len(selected) > 1 else selected
    pane.flush_note()
    lib, get = window.library, ids_getter(ids)
    results = window.search_results
    if callable(ids):  # every match of a capped search (see scope.bulk_ids)
        count = int(results.total) if results is not None else 0
    else:
        count = len(ids)
    noun = count_noun(count, "paper")
    change(window, f"Delete {noun}", get, lambda: lib.delete_papers(get()))
    window.statusBar().showMessage(f"Deleted {noun} — Ctrl+Z to undo", 5000)
