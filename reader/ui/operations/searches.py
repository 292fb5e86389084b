"""Operations on saved searches: save, rename, delete (not undoable: they hold no paper state)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..plain import input_dialog

if TYPE_CHECKING:
    from ..main_window import MainWindow


def save_current_search(window: MainWindow, name: str | None = None) -> None:
    query = window.searchBar.query()
    if not query:
        window.statusBar().showMessage("Type a search first, then save it.", 4000)
        return
    if name is None:
        name, ok = input_dialog(window, "Save search", "Name:", query)
        if not ok or not name.strip():
            return
    lib, saved = window.library, name
    window.runner.write(lambda: lib.save_search(saved, query), lambda _: window.refresh_sidebar(),
                        window.handle_error)


def rename_saved_search(window: MainWindow, search_id: int, name: str) -> None:
    lib = window.library
    window.runner.write(lambda: lib.rename_saved_search(search_id, name), lambda _: window.refresh_sidebar(),
                        window.handle_error)


def delete_saved_search(window: MainWindow, search_id: int) -> None:
    lib = window.library
    window.runner.write(lambda: lib.delete_saved_search(search_id), lambda _: window.refresh_sidebar(),
                        window.handle_error)


def ask_rename_search(window: MainWindow, search: dict) -> None:
    name, ok = input_dialog(window, "Rename saved search", "Name:", search["name"])
    if ok and name.strip():
        rename_saved_search(window, search["id"], name.strip())
