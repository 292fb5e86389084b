"""Dialogs: keyboard shortcuts and export options."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget

from reader.ui.dialogs.common import ExportDialog, ExportOptions, ShortcutsDialog
from reader.ui.window.main_window import MainWindow


def test_shortcuts_dialog_lists_the_keys(qtbot, window: MainWindow) -> None:
    dialog = ShortcutsDialog(window, window.shortcut_actions)
    qtbot.addWidget(dialog)
    table = dialog.findChild(QTableWidget, "shortcutsTable")
    keys = {table.item(r, 1).text() for r in range(table.rowCount())}
    for expected in ("Ctrl+F", "/", "Esc", "J", "K", "S", "R", "T", "N", "Ctrl+Z", "Ctrl+Shift+Z, Ctrl+Y",
                     "Del", "Ctrl+I", "Ctrl+E", "Ctrl+Q"):
        assert expected in keys, expected


def test_export_dialog_options(qtbot, window: MainWindow) -> None:
    dialog = ExportDialog(window, ["rl", "vision"], 2, ExportOptions(kind="per_paper", scope="tag", tag="vision"))
    qtbot.addWidget(dialog)
    opts = dialog.options()
    assert (opts.kind, opts.scope, opts.tag) == ("per_paper", "tag", "vision")
    dialog.abstractsCheck.setChecked(True)
    assert dialog.options().with_abstracts
    empty = ExportDialog(window, [], 0, ExportOptions(scope="selection"))
    qtbot.addWidget(empty)
    assert empty.options().scope == "view"  # nothing selected: the current list
