"""Dialogs: export options, keyboard shortcuts, import summary text, the rebuild question."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHeaderView,
    QLineEdit,
    QMessageBox,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from reader.import_report import file_lines
from reader.models import ExportKind, ImportSummary
from reader.plural import count_noun

if TYPE_CHECKING:  # the exporters load with an export, not at the window's start
    from reader.exporters.markdown import GroupBy

SCOPES = (("selection", "Selected papers"), ("view", "Current list (search / filter)"),
          ("starred", "Starred papers"), ("tag", "Papers with the tag"))
KINDS = ((ExportKind.READING_LIST, "Reading list (one Markdown file)"),
         (ExportKind.PER_PAPER, "One Markdown file per paper (folder)"),
         (ExportKind.JSON, "JSON backup of the whole library"),
         (ExportKind.BIBTEX, "BibTeX (.bib) for LaTeX"),
         (ExportKind.CSLJSON, "CSL-JSON for pandoc, citeproc, Zotero"),
         (ExportKind.RIS, "RIS for EndNote, Mendeley, RefWorks"))
GROUPS = (("", "No grouping"), ("venue", "By venue"), ("tag", "By tag"))


@dataclass
class ExportOptions:
    """What the export dialog asked for."""

    kind: ExportKind = ExportKind.READING_LIST
    scope: str = "selection"  # selection | view | starred | tag
    tag: str | None = None
    with_abstracts: bool = False
    title: str = "Reading list"
    group_by: GroupBy = None
    with_notes: bool = False  # citing formats: the notes as annote / note / N1

    def __post_init__(self) -> None:
        # Callers (scripts, tests, saved settings) may name the kind by its string value.
        self.kind = ExportKind(self.kind)


class ExportDialog(QDialog):
    """Choose the scope and kind of an export; the window then asks for the file or folder."""

    def __init__(self, parent: QWidget | None, tags: Sequence[str], selected: int, options: ExportOptions):
        super().__init__(parent)
        self.setObjectName("exportDialog")
        self.setWindowTitle("Export")
        layout = QVBoxLayout(self)

        kind_box = QGroupBox("Export as", self)
        kind_layout = QVBoxLayout(kind_box)
        self._kinds = QButtonGroup(self)
        for i, (kind, label) in enumerate(KINDS):
            b = QRadioButton(label, kind_box)
            b.setProperty("key", str(kind))
            b.setChecked(kind == options.kind)
            self._kinds.addButton(b, i)
            kind_layout.addWidget(b)
        layout.addWidget(kind_box)

        scope_box = QGroupBox("Papers", self)
        scope_layout = QVBoxLayout(scope_box)
        self._scopes = QButtonGroup(self)
        for i, (key, label) in enumerate(SCOPES):
            text = f"{label} ({selected})" if key == "selection" else label
            b = QRadioButton(text, scope_box)
            b.setProperty("key", key)
            b.setChecked(key == options.scope)
            self._scopes.addButton(b, i)
            scope_layout.addWidget(b)
            if key == "selection" and not selected:
                b.setEnabled(False)
        self.tagCombo = QComboBox(scope_box)
        self.tagCombo.addItems(list(tags))
        if options.tag is not None and options.tag in tags:
            self.tagCombo.setCurrentText(options.tag)
        scope_layout.addWidget(self.tagCombo)
        layout.addWidget(scope_box)
        self._scope_box = scope_box

        form = QFormLayout()
        self.titleEdit = QLineEdit(options.title, self)
        form.addRow("Title", self.titleEdit)
        self.groupCombo = QComboBox(self)
        for key, label in GROUPS:
            self.groupCombo.addItem(label, key)
        self.groupCombo.setCurrentIndex(max(0, [k for k, _ in GROUPS].index(options.group_by or "")))
        form.addRow("Group", self.groupCombo)
        self.abstractsCheck = QCheckBox("Include the abstracts", self)
        self.abstractsCheck.setChecked(options.with_abstracts)
        form.addRow("", self.abstractsCheck)
        self.notesCheck = QCheckBox("Include my notes", self)
        self.notesCheck.setObjectName("exportNotesCheck")
        self.notesCheck.setAccessibleName("Include my notes in the bibliography")
        self.notesCheck.setChecked(options.with_notes)
        form.addRow("", self.notesCheck)
        layout.addLayout(form)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export…")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._kinds.buttonToggled.connect(self._update)
        self._scopes.buttonToggled.connect(self._update)
        if not selected and options.scope == "selection":
            self._scopes.button(1).setChecked(True)
        self._update()

    def _checked(self, group: QButtonGroup, default: str) -> str:
        button = group.checkedButton()
        return str(button.property("key")) if button is not None else default

    def _update(self, *_: object) -> None:
        kind = ExportKind(self._checked(self._kinds, ExportKind.READING_LIST))
        json_backup = kind == ExportKind.JSON
        self._scope_box.setEnabled(not json_backup)  # a backup is always the whole library
        self.titleEdit.setEnabled(kind == ExportKind.READING_LIST)
        self.groupCombo.setEnabled(kind == ExportKind.READING_LIST)
        self.abstractsCheck.setEnabled(not json_backup and not kind.citing)  # citations always have them
        self.notesCheck.setEnabled(kind.citing)
        scope = self._checked(self._scopes, "view")
        self.tagCombo.setEnabled(scope == "tag" and self.tagCombo.count() > 0)

    def options(self) -> ExportOptions:
        scope = self._checked(self._scopes, "view")
        return ExportOptions(
            kind=ExportKind(self._checked(self._kinds, ExportKind.READING_LIST)),
            scope=scope,
            tag=self.tagCombo.currentText() or None,
            with_abstracts=self.abstractsCheck.isChecked(),
            title=self.titleEdit.text().strip() or "Reading list",
            group_by=_group_by(self.groupCombo.currentData()),
            with_notes=self.notesCheck.isChecked(),
        )


def _group_by(data: object) -> GroupBy:
    return "tag" if data == "tag" else "venue" if data == "venue" else None


class ShortcutsDialog(QDialog):
    """Help → Keyboard Shortcuts: every action that has a shortcut."""

    def __init__(self, parent: QWidget | None, actions: Sequence[QAction]):
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard Shortcuts")
        rows = [(a.text().replace("&", "").rstrip("…"), ", ".join(k.toString() for k in a.shortcuts()))
                for a in actions if a.shortcuts()]
        table = QTableWidget(len(rows), 2, self)
        table.setObjectName("shortcutsTable")
        table.setHorizontalHeaderLabels(["Action", "Keys"])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, (name, keys) in enumerate(rows):
            table.setItem(r, 0, QTableWidgetItem(name))
            table.setItem(r, 1, QTableWidgetItem(keys))
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.addWidget(table)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        layout.addWidget(close)
        self.resize(460, 520)


def import_summary_text(summaries: Sequence[ImportSummary], max_problems: int = 20) -> str:
    """One paragraph per file: counts, then a rejected file's reason or the skipped lines,
    then the values ignored in imported records (impossible years…), up to `max_problems`
    of each."""
    new = sum(s.new for s in summaries)
    dup = sum(s.duplicates for s in summaries)
    lines = [f"Imported {count_noun(new, 'new paper')} ({count_noun(dup, 'duplicate')}) "
             f"from {count_noun(sum(s.passed_over is None for s in summaries), 'file')}."]
    for s in summaries:
        if s.error:
            lines.append(f"✗ {s.error}")
            continue
        # One line for the file, then its problems by cause, a few places each (Details… lists all).
        # The cause lines come indented under the file's line; the values ignored are among them
        # (a further "Imported with N values ignored" said the file line's count a third time).
        first, *rest = file_lines(s)
        lines.append(f"• {first}")
        lines.extend(rest)
    return "\n".join(lines)


def ask_rebuild(parent: QWidget, total: int, reindex: Callable[[], None]) -> QMessageBox:
    """File → Rebuild search index: ask first (it takes minutes on a big library, of `total`
    papers); on Rebuild, `reindex` starts it in the background, with a Cancel button in the
    status bar."""
    box = QMessageBox(QMessageBox.Icon.Question, "Rebuild search index",
                      f"Rebuild the search index from the library's {count_noun(total, 'paper')}?\n\n"
                      "On a big library this takes a few minutes; until it finishes, searches may miss "
                      "papers. It runs in the background and can be cancelled from the status bar.",
                      QMessageBox.StandardButton.NoButton, parent)
    box.setObjectName("rebuildIndexQuestion")
    box.setTextFormat(Qt.TextFormat.PlainText)
    rebuild = box.addButton("Rebuild", QMessageBox.ButtonRole.AcceptRole)
    rebuild.setObjectName("rebuildButton")
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(rebuild)
    box.finished.connect(lambda _=0: reindex() if box.clickedButton() is rebuild else None)
    box.open()
    return box
