"""Edit → Preferences: what the settings hold today, in one dialog: the theme, marking papers
read when moving on in triage, the Markdown vault, and the library's backups."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QSettings, QUrl
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
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from reader.library import KEEP_DAILY, Library
from reader.plural import count_noun

from ..triage.rank import ASK_EVERY_KEY, ask_every
from ..widgets import theme as themes
from ..widgets.plain import plain_label
from . import settings


class VaultChooser(Protocol):
    """The vault's folder and its own dialog (vault_sync.VaultSync)."""

    @property
    def folder(self) -> Path | None: ...
    def ask(self) -> None: ...


class PreferencesHost(Protocol):
    """What the dialog reads and changes in the window: the settings, the theme, the vault, the
    library's backups folder. (The triage view's checkbox, when there is one, is looked up.)"""

    app_settings: QSettings
    theme: str

    @property
    def library(self) -> Library: ...
    @property
    def vault_sync(self) -> VaultChooser: ...
    def apply_theme(self, theme: str) -> None: ...


def mark_read_on_move(app_settings: QSettings) -> bool:
    return app_settings.value(settings.MARK_READ_KEY, True) not in (False, "false", "0", 0)


ROW_GAP = 10  # pixels between the form's rows (Fusion's 6 packed them like a table)
COLUMN_GAP = 18  # between a row's name and its field
WIDTH_CHARS = 90  # the dialog's first width, in average characters, when its rows ask for less


class PreferencesDialog(QDialog):
    """Changes apply on OK; Cancel leaves everything as it was. Laid out with room: at its
    least size (430 x 186 before) the rows touched and the backups line wrapped beside its
    button."""

    def __init__(self, parent: QWidget, w: PreferencesHost) -> None:
        super().__init__(parent)
        self.setObjectName("preferencesDialog")
        self.setWindowTitle("Preferences")
        self._main = w
        form = QFormLayout()
        form.setVerticalSpacing(ROW_GAP)
        form.setHorizontalSpacing(COLUMN_GAP)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.themeCombo = QComboBox(self)
        self.themeCombo.setObjectName("themeCombo")
        self.themeCombo.setAccessibleName("Theme")
        for key in themes.THEMES:
            self.themeCombo.addItem(key.capitalize(), key)
        self.themeCombo.setCurrentIndex(max(0, self.themeCombo.findData(w.theme)))
        form.addRow("&Theme", self.themeCombo)
        self.markReadCheck = QCheckBox("Mark papers read when moving on in triage", self)
        self.markReadCheck.setObjectName("markReadCheck")
        self.markReadCheck.setChecked(mark_read_on_move(w.app_settings))
        form.addRow("Triage", self.markReadCheck)
        self.askEverySpin = QSpinBox(self)
        self.askEverySpin.setObjectName("askEverySpin")
        self.askEverySpin.setAccessibleName("Ask where unsure, every how many papers")
        self.askEverySpin.setRange(0, 100)
        self.askEverySpin.setSpecialValueText("Never")  # 0: measured not to pay, so the default
        self.askEverySpin.setPrefix("every ")
        self.askEverySpin.setSuffix(" papers")
        self.askEverySpin.setToolTip("Best first shows, this often, the paper the model is least sure about")
        self.askEverySpin.setValue(ask_every(w.app_settings))
        self.askEverySpin.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)  # a number, not a line
        form.addRow("Ask where unsure", self.askEverySpin)
        form.addRow("Markdown vault", self._vault_row(w))
        form.addRow("Backups", self._backups_row(w))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 16, 18, 14)
        layout.addLayout(form)
        layout.addSpacing(ROW_GAP)
        layout.addStretch(1)
        layout.addWidget(buttons)
        hint = self.sizeHint()  # a minimum of our own would override the layout's (it cut the rows)
        self.resize(max(hint.width(), self.fontMetrics().averageCharWidth() * WIDTH_CHARS), hint.height())

    def _vault_row(self, w: PreferencesHost) -> QWidget:
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

    def _backups_row(self, w: PreferencesHost) -> QWidget:
        row = QWidget(self)
        box = QHBoxLayout(row)
        box.setContentsMargins(0, 0, 0, 0)
        folder, kept = w.library.paths.backups_dir, len(w.library.daily_backups())
        self.backupsLabel = plain_label(QLabel(
            f"A copy of the library each day, the newest {KEEP_DAILY} kept ({count_noun(kept, 'backup')} now)", row))
        self.backupsLabel.setObjectName("backupsLabel")
        self.backupsLabel.setToolTip(str(folder))
        button = QPushButton("Show folder", row)
        button.setObjectName("backupsButton")
        button.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))))
        box.addWidget(self.backupsLabel, 1)
        box.addWidget(button)
        return row

    def apply(self) -> None:
        w = self._main
        w.app_settings.setValue(settings.MARK_READ_KEY, self.markReadCheck.isChecked())
        w.app_settings.setValue(ASK_EVERY_KEY, self.askEverySpin.value())
        theme = str(self.themeCombo.currentData())
        if theme != w.theme:
            w.apply_theme(theme)
        w.app_settings.setValue("theme", w.theme)
        w.app_settings.sync()
        triage = getattr(w, "triage", None)
        check = getattr(getattr(triage, "view", None), "markReadCheck", None)
        if isinstance(check, QCheckBox):
            check.setChecked(self.markReadCheck.isChecked())  # the triage view's own box agrees


def show_preferences(parent: QWidget, w: PreferencesHost) -> PreferencesDialog:
    """Edit → Preferences, on `parent`; OK applies to `w` (the window)."""
    dialog = PreferencesDialog(parent, w)
    dialog.accepted.connect(dialog.apply)
    dialog.open()
    return dialog
