"""Show imported text (titles, venues, authors, tags, file names) as text, never as Qt rich text."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QLabel, QMessageBox, QWidget


def plain_label(label: QLabel) -> QLabel:
    """Qt guesses rich text from a leading tag; a label showing data must never guess."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def tooltip(text: str) -> str:
    """A tooltip that shows `text` literally (tooltips have no plain-text switch: escape it as rich text)."""
    return f"<p>{html.escape(text)}</p>" if text else ""


def message_box(icon: QMessageBox.Icon, title: str, text: str, parent: QWidget | None = None) -> QMessageBox:
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    return box


def input_dialog(parent: QWidget | None, title: str, label: str, text: str = "",
                 items: list[str] | None = None) -> tuple[str, bool]:
    """QInputDialog.getText/getItem with a plain-text label (it may name a tag or a search)."""
    dialog = QInputDialog(parent)
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    if items is not None:
        dialog.setComboBoxItems(items)
        dialog.setComboBoxEditable(False)
    else:
        dialog.setTextValue(text)
    for child in dialog.findChildren(QLabel):
        plain_label(child)
    ok = dialog.exec() == QInputDialog.DialogCode.Accepted
    value = dialog.textValue()
    dialog.deleteLater()
    return value, ok
