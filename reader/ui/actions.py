"""The menu bar and its keyboard shortcuts (single letters act only outside text fields)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from . import import_export, libraries
from . import theme as themes
from .about import show_about
from .dialogs import ShortcutsDialog, ask_rebuild
from .operations import papers, searches
from .preferences import show_preferences

if TYPE_CHECKING:
    from .main_window import MainWindow


def is_text_field(widget: QWidget | None) -> bool:
    """True when typed letters belong to the widget (single-letter shortcuts must not fire)."""
    if isinstance(widget, QLineEdit):
        return not widget.isReadOnly()
    if isinstance(widget, QPlainTextEdit | QTextEdit):
        return not widget.isReadOnly()
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return isinstance(widget, QAbstractSpinBox)


def make_action(window: MainWindow, text: str, slot: Callable[[], Any], keys: Sequence[str] = (), *,
                letter: bool = False, name: str | None = None) -> QAction:
    """An action on the window (so its shortcut works anywhere in it), listed in the shortcuts dialog."""
    action = QAction(text, window)
    if name:
        action.setObjectName(name)
    if keys:
        action.setShortcuts([QKeySequence(k) for k in keys])
    if letter:
        # Single-letter keys only act outside text fields (the field normally eats them first).
        action.triggered.connect(lambda: None if is_text_field(QApplication.focusWidget()) else slot())
    else:
        action.triggered.connect(lambda: slot())
    window.addAction(action)
    window.shortcut_actions.append(action)
    return action


def build_actions(w: MainWindow) -> None:
    """Fill the menu bar; sets w.shortcut_actions, undo/redo, relevance and theme actions."""
    w.shortcut_actions = []

    def act(text: str, slot: Callable[[], Any], keys: Sequence[str] = (), *, letter: bool = False,
            name: str | None = None) -> QAction:
        return make_action(w, text, slot, keys, letter=letter, name=name)

    mb = w.menuBar()
    file_menu = mb.addMenu("&File")
    import_action = act("&Import…", lambda: import_export.ask_import(w), ["Ctrl+I"], name="importAction")
    file_menu.addAction(import_action)
    file_menu.addAction(act("&Export…", lambda: import_export.ask_export(w), ["Ctrl+E"], name="exportAction"))
    file_menu.addAction(act("Markdown &vault…", w.vault_sync.ask, name="vaultAction"))
    file_menu.addSeparator()
    file_menu.addAction(act("Rebuild search index…", lambda: ask_rebuild(w), name="rebuildIndexAction"))
    file_menu.addSeparator()
    libraries.install(w, file_menu, import_action)  # Open library…, Open recent
    file_menu.addAction(act("&Quit", w.close, ["Ctrl+Q"], name="quitAction"))

    edit = mb.addMenu("&Edit")
    w.undoAction = w.undo_stack.createUndoAction(w, "&Undo")
    w.undoAction.setShortcuts([QKeySequence("Ctrl+Z")])
    w.redoAction = w.undo_stack.createRedoAction(w, "&Redo")
    w.redoAction.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    for a in (w.undoAction, w.redoAction):
        w.addAction(a)
        w.shortcut_actions.append(a)
        edit.addAction(a)
    edit.addSeparator()
    edit.addAction(act("Copy as &Markdown", lambda: import_export.copy_markdown(w), ["Ctrl+Shift+C"]))
    edit.addAction(act("&Delete papers", lambda: papers.delete_selected(w), ["Delete"], name="deleteAction"))
    edit.addSeparator()
    edit.addAction(act("&Save current search…", lambda: searches.save_current_search(w), ["Ctrl+S"],
                       name="saveSearchAction"))
    edit.addSeparator()
    edit.addAction(act("Pr&eferences…", lambda: show_preferences(w), ["Ctrl+,"], name="preferencesAction"))

    paper = mb.addMenu("&Paper")
    paper.addAction(act("Toggle &star", lambda: papers.toggle_star(w), ["S"], letter=True))
    paper.addAction(act("Toggle &read", lambda: papers.toggle_read(w), ["R"], letter=True))
    paper.addAction(act("Add &tag", w.focus_tag_input, ["T"], letter=True))
    paper.addAction(act("Edit &note", w.focus_note, ["N"], letter=True))
    paper.addAction(act("Highlight selection", lambda: w.pane.request_highlight("yellow"), ["H"], letter=True))
    paper.addSeparator()
    paper.addAction(act("&Next paper", lambda: w.move_current(1), ["J"], letter=True))
    paper.addAction(act("&Previous paper", lambda: w.move_current(-1), ["K"], letter=True))

    view = mb.addMenu("&View")
    view.addAction(act("&Find", w.focus_search, ["Ctrl+F"]))
    view.addAction(act("Find (/)", w.focus_search, ["/"], letter=True))
    view.addAction(act("Back to the list", w.focus_table, ["Esc"]))
    w.relevanceAction = act("Sort search results by &relevance", w.searchBar.sort_by_relevance,
                            name="relevanceAction")
    w.relevanceAction.setEnabled(False)
    view.addAction(w.relevanceAction)
    theme_menu = view.addMenu("&Theme")
    group = QActionGroup(w)
    w.theme_actions = {}
    for key in themes.THEMES:
        a = QAction(key.capitalize(), w, checkable=True)
        a.triggered.connect(lambda _=False, k=key: w.apply_theme(k))
        group.addAction(a)
        theme_menu.addAction(a)
        w.theme_actions[key] = a

    help_menu = mb.addMenu("&Help")
    help_menu.addAction(act("&Keyboard Shortcuts", lambda: show_shortcuts(w), ["F1"]))
    help_menu.addAction(act("&About Reader", lambda: show_about(w), name="aboutAction"))


def show_shortcuts(w: MainWindow) -> None:
    w.shortcuts_dialog = ShortcutsDialog(w, w.shortcut_actions)
    w.shortcuts_dialog.show()
