"""The menu bar and its keyboard shortcuts (single letters act only outside text fields)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from ..dialogs.common import ShortcutsDialog
from ..widgets import theme as themes


@dataclass(frozen=True)
class MenuSlots:
    """What each menu entry does: the window's own methods and the operations it wires."""

    import_: Callable[[], Any]
    export: Callable[[], Any]
    vault: Callable[[], Any]
    reindex: Callable[[], Any]
    copy_markdown: Callable[[], Any]
    copy_bibtex: Callable[[], Any]
    delete: Callable[[], Any]
    save_search: Callable[[], Any]
    toggle_star: Callable[[], Any]
    toggle_read: Callable[[], Any]
    add_tag: Callable[[], Any]
    edit_note: Callable[[], Any]
    highlight: Callable[[], Any]
    move: Callable[[int], Any]
    find: Callable[[], Any]
    back: Callable[[], Any]
    sort_by_relevance: Callable[[], Any]
    apply_theme: Callable[[str], Any]
    about: Callable[[], Any]
    preferences: Callable[[], Any]
    library_menu: Callable[[QMenu, QAction], QAction]  # adds Open library…/Open recent before the action
    add_venue: Callable[[], Any] | None = None  # File → Add a conference… (ui/sources/add_venue.py)
    group: Callable[[], Any] | None = None  # File → Reading group… (reader/ui/group)
    divide: Callable[[], Any] | None = None  # Edit → Divide among the group


@dataclass
class Menus:
    """The actions the window keeps a hand on (the shortcuts dialog lists `shortcut_actions`)."""

    shortcut_actions: list[QAction]
    undo: QAction
    redo: QAction
    relevance: QAction
    theme_actions: dict[str, QAction]
    shortcuts_dialog: ShortcutsDialog | None = None


def is_text_field(widget: QWidget | None) -> bool:
    """True when typed letters belong to the widget (single-letter shortcuts must not fire)."""
    if isinstance(widget, QLineEdit):
        return not widget.isReadOnly()
    if isinstance(widget, QPlainTextEdit | QTextEdit):
        return not widget.isReadOnly()
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return isinstance(widget, QAbstractSpinBox)


def make_action(window: QMainWindow, text: str, slot: Callable[[], Any], keys: Sequence[str] = (), *,
                letter: bool = False, name: str | None = None,
                shortcuts: list[QAction] | None = None) -> QAction:
    """An action on the window (so its shortcut works anywhere in it), listed in `shortcuts`."""
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
    if shortcuts is not None:
        shortcuts.append(action)
    return action


def build_actions(w: QMainWindow, slots: MenuSlots, undo_stack: QUndoStack, shortcuts: list[QAction]) -> Menus:
    """Fill the menu bar with the slots' actions, listing them in `shortcuts` (the pages add theirs
    to the same list); returns the ones the window keeps."""

    def act(text: str, slot: Callable[[], Any], keys: Sequence[str] = (), *, letter: bool = False,
            name: str | None = None) -> QAction:
        return make_action(w, text, slot, keys, letter=letter, name=name, shortcuts=shortcuts)

    mb = w.menuBar()
    file_menu = mb.addMenu("&File")
    import_action = act("&Import…", slots.import_, ["Ctrl+I"], name="importAction")
    file_menu.addAction(import_action)
    if slots.add_venue is not None:
        file_menu.addAction(act("Add a &conference…", slots.add_venue, name="addVenueAction"))
    file_menu.addAction(act("&Export…", slots.export, ["Ctrl+E"], name="exportAction"))
    file_menu.addAction(act("Markdown &vault…", slots.vault, name="vaultAction"))
    if slots.group is not None:
        file_menu.addAction(act("Reading &group…", slots.group, name="groupAction"))
    file_menu.addSeparator()
    file_menu.addAction(act("Rebuild search index…", slots.reindex, name="rebuildIndexAction"))
    file_menu.addSeparator()
    shortcuts.append(slots.library_menu(file_menu, import_action))  # Open library…, Open recent
    file_menu.addAction(act("&Quit", w.close, ["Ctrl+Q"], name="quitAction"))

    edit = mb.addMenu("&Edit")
    undo = undo_stack.createUndoAction(w, "&Undo")
    undo.setShortcuts([QKeySequence("Ctrl+Z")])
    redo = undo_stack.createRedoAction(w, "&Redo")
    redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    for a in (undo, redo):
        w.addAction(a)
        shortcuts.append(a)
        edit.addAction(a)
    edit.addSeparator()
    edit.addAction(act("Copy as &Markdown", slots.copy_markdown, ["Ctrl+Shift+C"]))
    edit.addAction(act("Copy as &BibTeX", slots.copy_bibtex, ["Ctrl+Shift+B"], name="copyBibtexAction"))
    edit.addAction(act("&Delete papers", slots.delete, ["Delete"], name="deleteAction"))
    edit.addSeparator()
    edit.addAction(act("&Save current search…", slots.save_search, ["Ctrl+S"], name="saveSearchAction"))
    if slots.divide is not None:
        edit.addAction(act("Di&vide among the group", slots.divide, name="divideAction"))
    edit.addSeparator()
    edit.addAction(act("Pr&eferences…", slots.preferences, ["Ctrl+,"], name="preferencesAction"))

    paper = mb.addMenu("&Paper")
    paper.addAction(act("Toggle &star", slots.toggle_star, ["S"], letter=True))
    paper.addAction(act("Toggle &read", slots.toggle_read, ["R"], letter=True))
    paper.addAction(act("Add &tag", slots.add_tag, ["T"], letter=True))
    paper.addAction(act("Edit &note", slots.edit_note, ["N"], letter=True))
    paper.addAction(act("Highlight selection", slots.highlight, ["H"], letter=True))
    paper.addSeparator()
    paper.addAction(act("&Next paper", lambda: slots.move(1), ["J"], letter=True))
    paper.addAction(act("&Previous paper", lambda: slots.move(-1), ["K"], letter=True))

    view = mb.addMenu("&View")
    view.addAction(act("&Find", slots.find, ["Ctrl+F"]))
    view.addAction(act("Find (/)", slots.find, ["/"], letter=True))
    view.addAction(act("Back to the list", slots.back, ["Esc"]))
    relevance = act("Sort search results by &relevance", slots.sort_by_relevance, name="relevanceAction")
    relevance.setEnabled(False)
    view.addAction(relevance)
    theme_menu = view.addMenu("&Theme")
    group = QActionGroup(w)
    theme_actions = {}
    for key in themes.THEMES:
        a = QAction(key.capitalize(), w, checkable=True)
        a.triggered.connect(lambda _=False, k=key: slots.apply_theme(k))
        group.addAction(a)
        theme_menu.addAction(a)
        theme_actions[key] = a

    menus = Menus(shortcuts, undo, redo, relevance, theme_actions)
    help_menu = mb.addMenu("&Help")
    help_menu.addAction(act("&Keyboard Shortcuts", lambda: show_shortcuts(w, menus), ["F1"]))
    help_menu.addAction(act("&About Reader", slots.about, name="aboutAction"))
    return menus


def show_shortcuts(w: QWidget, menus: Menus) -> None:
    menus.shortcuts_dialog = ShortcutsDialog(w, menus.shortcut_actions)
    menus.shortcuts_dialog.show()
