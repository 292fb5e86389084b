"""Edit → Preferences: what the settings hold today, in one dialog: the theme, marking papers
read when moving on in triage, the Markdown vault, and the library's backups."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from reader.plural import count_noun
from reader.store.backups import KEEP_DAILY, daily_backups

from . import settings
from . import theme as themes
from .plain import plain_label

if TYPE_CHECKING:
    from .main_window import MainWindow


def mark_read_on_move(w: MainWindow) -> bool:
    return w.app_settings.value(settings.MARK_READ_KEY, True) not in (False, "false", "0", 0)


class PreferencesDialog(QDialog):
    """Changes apply on OK; Cancel leaves everything as it was."""

    def __init__(self, w: MainWindow) -> None:
        super().__init__(w)
        self.setObjectName("preferencesDialog")
        self.setWindowTitle("Preferences")
        self._main = w
        form = QFormLayout()
        self.themeCombo = QComboBox(self)
        self.themeCombo.setObjectName("themeCombo")
        self.themeCombo.setAccessibleName("Theme")
        for key in themes.THEMES:
            self.themeCombo.addItem(key.capitalize(), key)
        self.themeCombo.setCurrentIndex(max(0, self.themeCombo.findData(w.theme)))
        form.addRow("&Theme", self.themeCombo)
        self.markReadCheck = QCheckBox("Mark papers read when moving on in triage", self)
        self.markReadCheck.setObjectName("markReadCheck")
        self.markReadCheck.setChecked(mark_read_on_move(w))
        form.addRow("Triage", self.markReadCheck)
        form.addRow("Markdown vault", self._vault_row(w))
        form.addRow("Backups", self._backups_row(w))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def _vault_row(self, w: MainWindow) -> QWidget:
        row = QWidget(self)
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        folder = w.vault_sync.folder
        self.vaultLabel = plain_label(QLabel(str(folder) if folder else "Not connected", row))
        self.vaultLabel.setObjectName("vaultLabel")
        button = QPushButton("Change…" if folder else "Connect…", row)
        button.setObjectName("vaultButton")
        button.clicked.connect(self._change_vault)
        box.addWidget(self.vaultLabel, 1)
        box.addWidget(button)
        return row

    def _change_vault(self) -> None:
        self.reject()
        self._main.vault_sync.ask()  # the vault has its own dialog

    def _backups_row(self, w: MainWindow) -> QWidget:
        row = QWidget(self)
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        folder = w.library.paths.backups_dir
        kept = len(daily_backups(folder)) if folder.is_dir() else 0
        self.backupsLabel = plain_label(QLabel(
            f"A copy of the library each day, the newest {KEEP_DAILY} kept ({count_noun(kept, 'backup')} now)", row))
        self.backupsLabel.setObjectName("backupsLabel")
        self.backupsLabel.setWordWrap(True)
        button = QPushButton("Show folder", row)
        button.setObjectName("backupsButton")
        button.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))))
        box.addWidget(self.backupsLabel, 1)
        box.addWidget(button)
        return row

    def apply(self) -> None:
        w = self._main
        w.app_settings.setValue(settings.MARK_READ_KEY, self.markReadCheck.isChecked())
        theme = str(self.themeCombo.currentData())
        if theme != w.theme:
            w.apply_theme(theme)
        w.app_settings.setValue("theme", w.theme)
        w.app_settings.sync()
        triage = getattr(w, "triage", None)
        check = getattr(getattr(triage, "view", None), "markReadCheck", None)
        if isinstance(check, QCheckBox):
            check.setChecked(self.markReadCheck.isChecked())  # the triage view's own box agrees


def show_preferences(w: MainWindow) -> PreferencesDialog:
    dialog = PreferencesDialog(w)
    dialog.accepted.connect(dialog.apply)
    dialog.open()
    return dialog
