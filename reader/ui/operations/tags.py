"""Operations on tags across the library: rename, merge, delete."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reader.services import View

from ..plain import input_dialog
from . import change

if TYPE_CHECKING:
    from ..main_window import MainWindow


def rename_tag(window: MainWindow, old: str, new: str) -> None:
    """Rename (or merge, when `new` exists) a tag; one undo step over every tagged paper."""
    lib = window.library
    change(window, f"Rename tag {old}", lambda: lib.paper_ids(View("tag", old)), lambda: lib.rename_tag(old, new))
    if window.view == View("tag", old):
        window.set_view(View("tag", new))


def delete_tag(window: MainWindow, name: str) -> None:
    lib = window.library
    change(window, f"Delete tag {name}", lambda: lib.paper_ids(View("tag", name)), lambda: lib.delete_tag(name))
    if window.view == View("tag", name):
        window.sidebar.select_view(View())


def ask_rename_tag(window: MainWindow, old: str) -> None:
    new, ok = input_dialog(window, "Rename tag", f"New name for “{old}”:", old)
    if ok and new.strip() and new.strip() != old:
        rename_tag(window, old, new.strip())


def ask_merge_tag(window: MainWindow, old: str) -> None:
    others = [t for t in window.sidebar.tag_names() if t != old]
    if not others:
        return
    new, ok = input_dialog(window, "Merge tag", f"Merge “{old}” into:", items=others)
    if ok and new:
        rename_tag(window, old, new)
