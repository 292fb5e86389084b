"""The Markdown vault's dialogs: choosing the folder and its query, and the last sync's report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from ..widgets.folder_sync import FolderPicker
from ..widgets.plain import plain_label

if TYPE_CHECKING:
    from reader import vault
else:  # the vault's modules (YAML) load when its dialog opens, not at the window's start
    from ..widgets.lazy import LazyModule

    vault = LazyModule("reader.vault")

INTRO = ("Reader keeps one Markdown file per paper in this folder (an Obsidian vault works) and syncs "
         "both ways while it runs: notes, tags, star and read edited on either side reach the other. "
         "A note edited on both sides keeps both texts, marked as a conflict. Files of papers deleted "
         "in Reader move to the folder's .trash/.")


class VaultDialog(QDialog):
    """File → Markdown vault…: the folder, the query choosing its papers, and Disconnect."""

    def __init__(self, parent: QWidget, folder: Path | None, query: str) -> None:
        super().__init__(parent)
        self.setObjectName("vaultDialog")
        self.setWindowTitle("Markdown vault")
        self.disconnect_requested = False
        intro = QLabel(INTRO, self)
        intro.setWordWrap(True)
        plain_label(intro)
        self.picker = FolderPicker(self, title="Markdown vault folder", edit_name="vaultFolder",
                                   button_name="vaultChoose", accessible_name="Vault folder",
                                   text=str(folder) if folder else "",
                                   placeholder="A folder, e.g. your Obsidian vault or a subfolder of it")
        self.folderEdit = self.picker.edit
        self.queryEdit = QLineEdit(query, self)
        self.queryEdit.setObjectName("vaultQuery")
        self.queryEdit.setPlaceholderText(vault.DEFAULT_QUERY)
        self.queryEdit.setToolTip("A search: the papers it finds get a file. "
                                  f"The default, the papers you touched: {vault.DEFAULT_QUERY}")
        self.errorLabel = QLabel(self)
        self.errorLabel.setObjectName("vaultError")
        self.errorLabel.setStyleSheet("color: #c0392b")
        self.errorLabel.setWordWrap(True)
        plain_label(self.errorLabel)
        self.errorLabel.hide()
        form = QFormLayout()
        form.addRow("Folder:", self.picker)
        form.addRow("Papers:", self.queryEdit)

        buttons = QDialogButtonBox(self)
        self.syncButton = buttons.addButton("Sync", QDialogButtonBox.ButtonRole.AcceptRole)
        self.syncButton.setObjectName("vaultSync")
        self.disconnectButton = buttons.addButton("Disconnect", QDialogButtonBox.ButtonRole.DestructiveRole)
        self.disconnectButton.setObjectName("vaultDisconnect")
        self.disconnectButton.setToolTip("Stop syncing; the folder and its files stay as they are")
        self.disconnectButton.setVisible(folder is not None)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.syncButton.clicked.connect(self._accept)
        self.disconnectButton.clicked.connect(self._disconnect)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.errorLabel)
        layout.addWidget(buttons)
        self.resize(560, self.sizeHint().height())

    def chosen_folder(self) -> Path:
        return self.picker.folder()

    def chosen_query(self) -> str:
        return self.queryEdit.text().strip() or vault.DEFAULT_QUERY

    def problem(self) -> str | None:
        """Why the typed folder can't be a vault (None when it can; a missing last folder is created)."""
        text = self.folderEdit.text().strip()
        if not text:
            return "Choose a folder."
        path = self.chosen_folder()
        if not path.is_absolute():
            return f"{text}: give the folder's full path."
        if path.exists() and not path.is_dir():
            return f"{path} is a file, not a folder."
        if not path.exists() and not path.parent.is_dir():
            return f"{path.parent}: no such folder."
        return None

    def _accept(self) -> None:
        problem = self.problem()
        if problem:
            self.errorLabel.setText(problem)
            self.errorLabel.show()
            return
        self.accept()

    def _disconnect(self) -> None:
        self.disconnect_requested = True
        self.reject()


class VaultReportDialog(QDialog):
    """What the last sync did: conflicts and damaged files by path, or the error that stopped it."""

    syncRequested = Signal()
    openRequested = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("vaultReport")
        self.setWindowTitle("Markdown vault — last sync")
        self.heading = QLabel(self)
        self.heading.setObjectName("vaultReportHeading")
        plain_label(self.heading)
        self.text = QPlainTextEdit(self)
        self.text.setObjectName("vaultReportText")
        self.text.setReadOnly(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        sync = buttons.addButton("Sync now", QDialogButtonBox.ButtonRole.ActionRole)
        sync.clicked.connect(self.syncRequested)
        folder = buttons.addButton("Open folder", QDialogButtonBox.ButtonRole.ActionRole)
        folder.clicked.connect(self.openRequested)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)
        self.resize(720, 360)

    def show_state(self, heading: str, report: vault.SyncReport | None, error: str | None) -> None:
        self.heading.setText(heading)
        lines: list[str] = []
        if error:
            lines.append(f"The last sync failed: {error}")
        if report is not None:
            lines.append(report.describe())
            if report.conflicts:
                lines.append("\nA conflict keeps both texts in the note, in Reader and in the file: keep "
                             "what you want and delete the lines that start with ⚠️.")
        elif not error:
            lines.append("No sync has run yet.")
        self.text.setPlainText("\n".join(lines))
