"""What assistive technology reads: every shown text field, list and table of the main window
has an accessible name (scripts/atspi_check.py checks the same through AT-SPI under Xvfb)."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLineEdit, QPlainTextEdit, QTextEdit

from reader.ui.window.main_window import MainWindow


def test_shown_fields_lists_and_tables_have_accessible_names(qtbot, window: MainWindow) -> None:
    window.show()
    qtbot.waitExposed(window)
    kinds = (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractItemView)
    widgets = [w for kind in kinds for w in window.findChildren(kind)
               if w.isVisible() and not isinstance(w, QHeaderView)  # read through its table
               and not w.objectName().startswith("qt_")]
    assert len(widgets) >= 6  # search box, table, sidebar, tag box, comment, abstract, note…
    unnamed = [f"{type(w).__name__} {w.objectName()!r}" for w in widgets if not w.accessibleName()]
    assert not unnamed, unnamed
    assert window.table.accessibleName() == "Papers"
    assert window.searchBox.accessibleName() == "Search"
