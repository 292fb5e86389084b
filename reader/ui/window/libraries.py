"""File → Open library… and File → Open recent: switch the window to another library folder.

A switch opens the other library in a new window that takes this one's place (same geometry,
theme and columns: they are global settings) and then closes this one the usual way (pending
writes drained, notes saved, settings written, its library closed). The new window is made by
the `open_window` factory the window passes in (this module does not know the window's class).

A new library made here starts empty: the bundled sample fills only the default library on
the very first start (an HCI library got 56 ML abstracts mixed with its own import); its empty
state offers the sample instead (list/empty_state.py)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox, QWidget

from reader.errors import ReaderError
from reader.library import Library
from reader.paths import LibraryPaths

from ..dialogs.upgrade import open_library
from ..list.model import PaperModel
from ..widgets.theme import file_dialog_options
from . import settings


class LibraryWindow(settings.SettingsHost, Protocol):
    """A window showing one library: what a switch reads, saves, closes and lets go of."""

    @property
    def library(self) -> Library: ...
    @property
    def model(self) -> PaperModel: ...
    def window(self) -> QWidget: ...  # Qt's: the top-level widget, the window itself
    def show_message(self, title: str, text: str, icon: QMessageBox.Icon, name: str) -> QMessageBox | None: ...
    def flush(self) -> None: ...


OpenWindow = Callable[[Library], LibraryWindow]  # a new window on a library (the window's class)

_open_windows: list[LibraryWindow] = []  # windows opened by a switch (Qt alone would not keep them)


def library_problem(folder: Path) -> str | None:
    """Why `folder` can't be opened as a library (None: it can: a library, or empty/new)."""
    if folder.exists() and not folder.is_dir():
        return f"{folder} is a file, not a folder."
    if folder.is_dir() and not LibraryPaths(folder).database.exists() and any(folder.iterdir()):
        return (f"{folder} is not a Reader library (it has no {LibraryPaths(folder).database.name}).\n"
                "Choose a library folder, or an empty folder to start a new library.")
    return None


def ask_open(w: LibraryWindow, open_window: OpenWindow) -> None:
    """File → Open library…: pick a folder, then switch to it."""
    start = str(w.library.paths.root.parent)
    folder = QFileDialog.getExistingDirectory(w.window(), "Open library", start,
                                              QFileDialog.Option.ShowDirsOnly | file_dialog_options())
    w.window().activateWindow()  # without a window manager, nothing gave the keys back to the window
    if folder:
        switch_library(w, Path(folder), open_window)


def switch_library(w: LibraryWindow, folder: Path, open_window: OpenWindow) -> LibraryWindow | None:
    """Open the library in `folder` in a window (made by `open_window`) that replaces `w`; None
    if it can't be opened (the user is told why and `w` stays)."""
    folder = Path(folder).expanduser().resolve()
    if folder == w.library.paths.root.resolve():
        return w
    problem = library_problem(folder)
    if problem is None:
        try:
            library = open_library(folder, seed_if_empty=False, parent=w.window())
        except ReaderError as exc:
            problem = f"The library in {folder} cannot be opened.\n\n{exc}"
    if problem is not None:
        w.show_message("Open library", problem, QMessageBox.Icon.Warning, "openLibraryProblem")
        return None
    w.flush()
    settings.save_settings(w)  # the new window opens as this one is now
    new = open_window(library)
    _open_windows.append(new)
    app = QApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(partial(library.close, finish_backup=False))
    new.window().show()
    w.window().close()
    # Not deleted: late deliveries of its worker threads still find their receivers; what it
    # holds is let go (the rows' cache, the ids) and its library closed.
    w.model.set_ids([])
    if w in _open_windows:
        _open_windows.remove(w)
    w.library.close(finish_backup=False)
    return new


def fill_recent_menu(w: LibraryWindow, menu: QMenu, open_window: OpenWindow) -> None:
    """File → Open recent: the other libraries opened lately, newest first."""
    menu.clear()
    here = w.library.paths.root.resolve()
    others = [p for p in settings.recent_libraries(w.app_settings) if p.resolve() != here]
    for i, folder in enumerate(others):
        action = QAction(f"&{i + 1} {folder}" if i < 9 else str(folder), menu)
        action.setObjectName(f"recentLibrary{i}")
        action.triggered.connect(lambda _=False, f=folder: switch_library(w, f, open_window))
        menu.addAction(action)
    if not others:
        none = menu.addAction("No other libraries yet")
        none.setEnabled(False)


def install(w: LibraryWindow, file_menu: QMenu, before: QAction, open_window: OpenWindow) -> QAction:
    """Add Open library… and Open recent to the File menu (before `before`); returns the
    Open library… action (a shortcut the window lists). A switch opens its window with
    `open_window`."""
    open_action = QAction("&Open library…", w.window())
    open_action.setObjectName("openLibraryAction")
    open_action.setShortcut("Ctrl+O")
    open_action.triggered.connect(lambda: ask_open(w, open_window))
    w.window().addAction(open_action)
    recent = QMenu("Open &recent", file_menu)
    recent.setObjectName("recentLibrariesMenu")
    recent.aboutToShow.connect(lambda: fill_recent_menu(w, recent, open_window))
    fill_recent_menu(w, recent, open_window)
    file_menu.insertAction(before, open_action)
    file_menu.insertMenu(before, recent)
    file_menu.insertSeparator(before)
    return open_action
